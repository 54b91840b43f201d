import CSystemd
import Foundation

/// The arguments of a method call, read in order. sd-bus has checked them against the method's
/// signature before the call reaches the provider, so a read fails only when memory runs out;
/// it throws then, as any sd-bus failure does.
struct BusArguments {
    let message: OpaquePointer

    /// An `as` argument.
    func readStrings() throws -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try BusSystemError.check(sd_bus_message_read_strv(message, &list), "reading a string array argument")
        guard let list else { return [] }
        defer { free(list) }
        var strings: [String] = []
        var index = 0
        while let item = list[index] {
            strings.append(String(cString: item))
            free(item)
            index += 1
        }
        return strings
    }

    /// An `s` argument.
    func readString() throws -> String {
        var value: UnsafePointer<CChar>?
        try BusSystemError.check(sd_bus_message_read_basic(message, Self.code("s"), &value), "reading a string argument")
        // The string belongs to the message.
        return value.map { String(cString: $0) } ?? ""
    }

    /// A `u` argument.
    func readUInt32() throws -> UInt32 {
        var value: UInt32 = 0
        try BusSystemError.check(sd_bus_message_read_basic(message, Self.code("u"), &value), "reading an unsigned argument")
        return value
    }

    /// A D-Bus type code as the C `char` sd-bus takes.
    static func code(_ character: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: character.value) }
}

/// The reply to a method call, written value by value, then sent.
final class BusReply {
    private let message: OpaquePointer

    init(to call: OpaquePointer) throws {
        var reply: OpaquePointer?
        try BusSystemError.check(sd_bus_message_new_method_return(call, &reply), "making a reply")
        guard let reply else { throw BusSystemError(action: "making a reply", code: ENOMEM) }
        message = reply
    }

    deinit { sd_bus_message_unref(message) }

    func append(_ value: String) throws {
        try BusSystemError.check(value.withCString { sd_bus_message_append_basic(message, BusArguments.code("s"), $0) }, "writing a string")
    }

    func append(_ value: Int32) throws {
        var value = value
        try BusSystemError.check(sd_bus_message_append_basic(message, BusArguments.code("i"), &value), "writing an integer")
    }

    func append(_ value: Double) throws {
        var value = value
        try BusSystemError.check(sd_bus_message_append_basic(message, BusArguments.code("d"), &value), "writing a double")
    }

    /// An `as` value.
    func append(_ values: [String]) throws {
        try container("a", "s") { for value in values { try append(value) } }
    }

    /// A container (`a` array, `r` struct, `e` dictionary entry, `v` variant) of `contents`
    /// (its element's or its members' signature), filled by `body`.
    func container(_ type: Unicode.Scalar, _ contents: String, _ body: () throws -> Void) throws {
        try BusSystemError.check(sd_bus_message_open_container(message, BusArguments.code(type), contents), "opening a container \(contents)")
        try body()
        try BusSystemError.check(sd_bus_message_close_container(message), "closing a container \(contents)")
    }

    /// An `a{sv}` dictionary of string and string-array values.
    func append(dictionary: [(key: String, value: BusVariant)]) throws {
        try container("a", "{sv}") {
            for (key, value) in dictionary {
                try container("e", "sv") {
                    try append(key)
                    switch value {
                    case .string(let string): try container("v", "s") { try append(string) }
                    case .strings(let strings): try container("v", "as") { try append(strings) }
                    }
                }
            }
        }
    }

    /// Sends the reply on the call's connection.
    func send() throws {
        try BusSystemError.check(sd_bus_send(nil, message, nil), "sending a reply")
    }
}

/// The values the provider puts in variants.
enum BusVariant {
    case string(String)
    case strings([String])
}
