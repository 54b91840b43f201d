import Foundation

/// A Transformable attribute's value kept as a keyed archive of the classes an app allows, as Core
/// Data apps keep theirs by subclassing Foundation's `NSSecureUnarchiveFromDataTransformer` and
/// overriding `allowedTopLevelClasses`. Subclass it the same way and register the subclass with
/// `setValueTransformer(_:forName:)`.
///
/// `transformedValue(_:)` reads an archive and `reverseTransformedValue(_:)` writes one, as in
/// Foundation. The archive is looked over before Foundation's unarchiver sees it: on Linux that
/// unarchiver stops the process at a class it was not allowed to read, and reads the fields of
/// a damaged archive without checking them. So an archive whose root is of no allowed class,
/// that names a class this process does not have or one that cannot be read securely, or whose
/// plain values or references are damaged, is refused with an error saying which, and the
/// attribute reads as `nil`.
open class SecureUnarchiveAttributeTransformer: AttributeValueTransformer {
    /// Foundation's default: the property-list classes, URLs and UUIDs.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
         NSUUID.self, NSNull.self]
    }

    override open class func transformedValueClass() -> AnyClass { NSObject.self }

    override open class func allowsReverseTransformation() -> Bool { true }

    /// The object `value` (a keyed archive) holds; `nil` when it is no archive of allowed classes.
    override open func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? unarchive(data)
    }

    /// A keyed archive of `value`, written for secure reading; `nil` when it cannot be archived so.
    override open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value, let object = value as AnyObject as? NSSecureCoding else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }

    override var readsStoredBytesForward: Bool { true }

    override func explanation(ofUnreadable data: Data) -> String {
        do {
            _ = try unarchive(data)
            return "\(type(of: self)).transformedValue gave nothing for \(data.count) stored bytes"
        } catch let error as ValueTransformerRegistry.TransformError {
            // The error that reports this names the transformer already.
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    /// The object an archive holds, once it is known to be safe to hand to Foundation.
    func unarchive(_ data: Data) throws -> Any {
        let allowed = Self.allowedTopLevelClasses
        let allowedNames = Set(allowed.map { NSStringFromClass($0) })
        let reason = { (text: String) in ValueTransformerRegistry.TransformError(name: "\(type(of: self))", reason: text) }
        guard data.starts(with: Array("bplist00".utf8)), let archive = try? KeyedArchive(data, source: "a transformable value") else {
            throw reason("\(data.count) stored bytes are no keyed archive")
        }
        guard let others = archive.otherClassNames() else { throw reason("the keyed archive is damaged") }
        do {
            _ = try archive.expandedCount(limit: max(data.count, 1 << 20))
        } catch {
            throw reason("\(error)")
        }
        let rootClass = archive.rootClassName()
        if let rootClass, !Self.isAllowed(rootClass, among: allowedNames) {
            throw reason("the archive holds a \(rootClass), which is not among its allowed top-level classes (\(allowedNames.sorted().joined(separator: ", ")))")
        }
        guard !others.isEmpty else {
            // Plain values only: read without Foundation's unarchiver, as Core Data's default is.
            guard let value = archive.plainRootValue() else { throw reason("the archive holds no value") }
            return value
        }
        var classes = allowed
        for name in others.sorted() {
            guard let found = NSClassFromString(name) else { throw reason("the archive holds a \(name), a class this program does not have") }
            guard found is NSSecureCoding.Type else { throw reason("the archive holds a \(name), which does not adopt NSSecureCoding") }
            classes.append(found)
        }
        do {
            guard let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) else {
                throw reason("the archive holds no value")
            }
            return object
        } catch let error as ValueTransformerRegistry.TransformError {
            throw error
        } catch {
            throw reason("cannot unarchive: \(error.localizedDescription)")
        }
    }

    /// Whether an archived class name is one of the allowed ones; Foundation's mutable and
    /// bridged forms count as their plain class (an `NSMutableArray` for `NSArray`).
    private static func isAllowed(_ name: String, among allowed: Set<String>) -> Bool {
        if allowed.contains(name) { return true }
        if name.hasPrefix("NSMutable"), allowed.contains("NS" + name.dropFirst("NSMutable".count)) { return true }
        return false
    }
}
