import Foundation

/// An error a method call is answered with: a D-Bus error name and a message for the caller.
struct BusError: Error, CustomStringConvertible {
    var name: String
    var message: String

    var description: String { "\(name): \(message)" }

    /// The call's arguments are wrong: an ID that is no record's, an action that does not exist.
    static func invalidArguments(_ message: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    /// The call was right but could not be carried out (no application for the record's type).
    static func failed(_ message: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }
}

/// A failed sd-bus function: what was being done, and the errno it returned.
struct BusSystemError: Error, CustomStringConvertible {
    var action: String
    var code: Int32

    var description: String {
        let reason = String(cString: strerror(code))
        return "\(action): \(reason)"
    }

    /// Passes on a non-negative sd-bus result; throws for a negative one.
    @discardableResult
    static func check(_ result: Int32, _ action: @autoclosure () -> String) throws -> Int32 {
        guard result >= 0 else { throw BusSystemError(action: action(), code: -result) }
        return result
    }
}
