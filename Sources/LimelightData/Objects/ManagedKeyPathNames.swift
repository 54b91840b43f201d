import Foundation
import Synchronization

/// The entity property a Swift key path to a `@Managed` declaration names (`\Recipe.name` is
/// `"name"`), for the places Core Data takes key paths: `QuerySortDescriptor(keyPath:)` and `%K`
/// in predicate formats.
///
/// Core Data reads a key path's Objective-C string; Swift on Linux prints a wrapped property's key
/// path only as a getter's address. So the declaration is read once, on a throwaway object of the
/// key path's root class with an entity of no properties: its wrapper learns the declaration's
/// name (`ManagedKeyCache`, by reflection) and finds no value, and the name is looked up among
/// those learned by the key path's equality. Answers are kept per key path. The class's
/// `init(entity:insertInto:)` runs for the throwaway object (with no context, so no
/// `awakeFromInsert`); a declaration of a type with no empty value and no stand-in (a
/// transformable's own class) is not read, and not named: give such keys as strings.
enum ManagedKeyPathNames {
    /// Key paths are immutable once made.
    private struct Key: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }
    private static let known = Mutex<[Key: String]>([:])
    /// How many probes are reading right now: while one is, a declared type with no empty value
    /// gets a stand-in instead of stopping the program (`standIn(for:)`).
    private static let probes = Atomic<Int>(0)

    /// The property name `keyPath` stands for, or nil when it is not one `@Managed` declaration
    /// of a `ManagedObject` subclass (a path through a relationship, a computed property).
    static func name(of keyPath: AnyKeyPath) -> String? {
        let key = Key(keyPath: keyPath)
        if let name = known.withLock({ $0[key] }) { return name }
        guard let root = type(of: keyPath).rootType as? ManagedObject.Type, canRead(type(of: keyPath).valueType) else { return nil }
        let probe = root.init(entity: EntityDescription(name: "KeyPathProbe", properties: []), insertInto: nil)
        probes.add(1, ordering: .sequentiallyConsistent)
        _ = probe[keyPath: keyPath]
        probes.subtract(1, ordering: .sequentiallyConsistent)
        guard let name = ManagedKeyCache.name(ofWrapped: keyPath) else { return nil }
        known.withLock { $0[key] = name }
        return name
    }

    /// Whether a probe can read a declaration of `type`: one the framework has an empty value or
    /// a stand-in of. Any other (a transformable's own class) would stop the program, so its key
    /// path is not named.
    private static func canRead(_ type: Any.Type) -> Bool {
        if type is OptionalMarker.Type || type is ManagedObject.Type || type is ManagedCollectionMarker.Type
            || type is ManagedDefaultValue.Type { return true }
        let known: [Any.Type] = [Int.self, Int16.self, Int32.self, Int64.self, Double.self, Float.self, Bool.self, String.self,
                                 Data.self, Date.self, UUID.self, URL.self, Decimal.self]
        return known.contains { $0 == type }
    }

    /// What a probe's read returns for a declared type the framework has no empty value of: an
    /// object of a managed class, or a fixed date, UUID, URL or decimal. Nil outside probes.
    static func standIn<Value>(for type: Value.Type) -> Value? {
        guard probes.load(ordering: .sequentiallyConsistent) > 0 else { return nil }
        if let objectClass = Value.self as? ManagedObject.Type {
            return objectClass.init(entity: EntityDescription(name: "KeyPathProbe", properties: []), insertInto: nil) as? Value
        }
        let candidates: [Any] = [Date(timeIntervalSinceReferenceDate: 0), UUID(), URL(fileURLWithPath: "/"), Decimal(0)]
        return candidates.lazy.compactMap { $0 as? Value }.first
    }
}
