import Foundation

/// Core Data's own transformer for Transformable attributes: a value kept as a keyed archive
/// (`NSKeyedArchiver`'s format). Core Data uses it when an attribute names no transformer, or names
/// `NSSecureUnarchiveFromData` / `NSKeyedUnarchiveFromData`; `ValueTransformerRegistry` holds it
/// under those names.
///
/// Without it, an array of strings or a dictionary a Core Data app kept in such an attribute
/// would read here as the archive's bytes. Reading is limited to the property-list classes that
/// `NSSecureUnarchiveFromDataTransformer` allows (and URLs and UUIDs); bytes that are no such
/// archive (an app's own class, or bytes stored as they are) come back unchanged, so nothing is
/// lost on a save.
enum KeyedArchiveTransformer {
    /// The transformer names that mean a keyed archive; Core Data's default is the first.
    static let names = ["NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"]

    static let transformer = ValueTransformerRegistry.Transformer(encode: encode, decode: decode)

    /// The value an archive holds, in Swift's types (`[Any]`, `[String: Any]`, `String`,
    /// numbers …); `data` itself when it is no such archive.
    private static func decode(_ data: Data) -> Any {
        // A keyed archive is a binary property list; anything else is not worth handing over.
        // Nor is one whose objects hold themselves, nest without end or are shared into a bomb:
        // reading the values follows every reference, and would never return (or overflow the
        // stack). Without sharing, every reference is a byte of the archive.
        // Nor one holding anything but plain values in their usual form. The values are read by
        // `KeyedArchive`, not Foundation's unarchiver, which trusts the fields it reads.
        guard data.starts(with: Array("bplist00".utf8)),
              let archive = try? KeyedArchive(data, source: "a transformable value"), archive.holdsOnlyPlainValues(),
              (try? archive.expandedCount(limit: max(data.count, 1 << 20))) != nil,
              let value = archive.plainRootValue() else { return data }
        return value
    }

    /// An archive of `value`; throws when `value` (or something inside it) has no archivable form.
    private static func encode(_ value: Any) throws -> Data {
        let object = value as AnyObject
        guard object is NSSecureCoding else {
            throw ValueTransformerRegistry.TransformError(name: names[0], reason: "\(type(of: value)) cannot be archived (register a transformer for it)")
        }
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        } catch {
            throw ValueTransformerRegistry.TransformError(name: names[0], reason: "cannot archive \(type(of: value)): \(error.localizedDescription)")
        }
    }
}
