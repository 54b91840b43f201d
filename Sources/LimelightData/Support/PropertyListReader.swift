import Foundation

/// Reads property lists, binary (`bplist00`) and XML, into plain Swift values: `[String: Any]`
/// for a dictionary, `[Any]` for an array or set, `String`, `Int` (or `UInt64` for an integer only
/// it can hold), `Double`, `Bool`, `Date` and `Data`. The counterpart of `PropertyListWriter`.
///
/// Why not `PropertyListSerialization`: on Linux it builds `NSDictionary` and `NSNumber` objects,
/// and bridging them to Swift values makes the runtime search its protocol conformances the
/// first time each type is met: for a short-lived program reading one store's metadata, that
/// was a seventh of all its work. Native values are what callers cast to anyway.
package enum PropertyListReader {
    /// Containers nested deeper are refused: no real list comes near it, and decoding recurses.
    static let maximumDepth = 256

    /// The value at the top of `data`, binary or XML by its first bytes.
    package static func read(_ data: Data) throws(PropertyListReadError) -> Any {
        if data.starts(with: binaryMagic) {
            return try BinaryPropertyListDecoder.decode(data)
        }
        return try XMLPropertyListDecoder.decode(data)
    }

    private static let binaryMagic: [UInt8] = Array("bplist00".utf8)
}

/// Why a property list could not be read.
package struct PropertyListReadError: Error, Equatable, CustomStringConvertible {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { "malformed property list: \(reason)" }
}

/// A keyed archive's object reference (binary marker `0x8n`), which has no other Swift form.
/// Core Data metadata holds none; an archive of objects stored in one would.
package struct PropertyListUID: Hashable, Sendable {
    package var value: UInt64

    package init(_ value: UInt64) {
        self.value = value
    }
}
