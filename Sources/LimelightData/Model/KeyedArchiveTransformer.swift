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

    /// The classes an archive may hold, as Core Data's secure transformer allows them.
    private static let allowedClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSOrderedSet.self, NSString.self, NSNumber.self, NSDate.self,
        NSData.self, NSURL.self, NSUUID.self, NSNull.self,
    ]

    /// The value an archive holds, in Swift's types where Foundation bridges them (`[Any]`,
    /// `[String: Any]`, `String`, numbers …); `data` itself when it is no such archive.
    private static func decode(_ data: Data) -> Any {
        // A keyed archive is a binary property list; anything else is not worth handing over.
        // Nor is one whose objects hold themselves, nest without end or are shared into a bomb:
        // Foundation's unarchiver and `bridged` follow every reference, and would never return
        // (or overflow the stack). Without sharing, every reference is a byte of the archive.
        // Nor one holding anything but plain values in their usual form, which Foundation's
        // unarchiver reads without checking (see `holdsOnlyPlainValues`).
        guard data.starts(with: Array("bplist00".utf8)),
              let archive = try? KeyedArchive(data, source: "a transformable value"), archive.holdsOnlyPlainValues(),
              (try? archive.expandedCount(limit: max(data.count, 1 << 20))) != nil,
              let object = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: allowedClasses, from: data) else { return data }
        return bridged(object)
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

    /// Foundation objects as the Swift values an application reads from other attributes.
    private static func bridged(_ object: Any) -> Any {
        switch object {
        case let string as NSString: return string as String
        case let array as NSArray: return array.map(bridged)
        case let set as NSOrderedSet: return set.array.map(bridged)
        case let set as NSSet: return Set(set.allObjects.compactMap { bridged($0) as? AnyHashable })
        case let dictionary as NSDictionary:
            var result: [AnyHashable: Any] = [:]
            for (key, value) in dictionary { if let key = bridged(key) as? AnyHashable { result[key] = bridged(value) } }
            // String keys, by far the usual, read as `[String: Any]`.
            if result.keys.allSatisfy({ $0.base is String }) {
                return Dictionary(uniqueKeysWithValues: result.map { ($0.key.base as? String ?? "", $0.value) })
            }
            return result
        case let date as NSDate: return date as Date
        case let data as NSData: return data as Data
        case let url as NSURL: return url as URL
        case let uuid as NSUUID: return uuid as UUID
        default: return object
        }
    }
}
