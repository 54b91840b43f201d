import Foundation
import Synchronization

/// The entity key path a Swift key path through `@Managed` declarations names (`\Recipe.name` is
/// `"name"`, `\Book.author?.name` is `"author.name"`), for the places Core Data takes key paths:
/// `QuerySortDescriptor(keyPath:)` and `%K` in predicate formats.
///
/// Core Data reads a key path's Objective-C string; Swift on Linux prints a wrapped property's key
/// path only as a getter's address. So the key path is read once, on throwaway objects with an
/// entity of no properties, which record the declarations read (`KeyPathProbe`). Answers are kept
/// per key path. A key path of a type the framework has no empty value of (a transformable's own
/// type), or one that would reach a declaration of such a type through an optional relationship
/// (`\Book.author?.settings`), is not named: give such keys as strings.
enum ManagedKeyPathNames {
    /// Key paths are immutable once made.
    private struct Key: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }
    private static let known = Mutex<[Key: String]>([:])

    /// The dotted key path `keyPath` stands for, or nil when it is not a chain of `@Managed`
    /// declarations of `ManagedObject` subclasses through to-one relationships (a computed
    /// property, a step past a to-many relationship).
    static func name(of keyPath: AnyKeyPath) -> String? {
        let key = Key(keyPath: keyPath)
        if let name = known.withLock({ $0[key] }) { return name }
        guard let root = type(of: keyPath).rootType as? ManagedObject.Type, hasEmptyValue(type(of: keyPath).valueType),
              let name = KeyPathProbe.name(of: keyPath, from: root) else { return nil }
        known.withLock { $0[key] = name }
        return name
    }

    /// The class of the throwaway object a probe's read of a declaration of `type` gives: a
    /// managed class, or the optional of one (`Author?`); nil for any other type.
    static func standInClass(for type: Any.Type) -> ManagedObject.Type? {
        if let objectClass = type as? ManagedObject.Type { return objectClass }
        return (type as? OptionalMarker.Type)?.wrappedType as? ManagedObject.Type
    }

    /// Whether a `@Managed` declaration of `type` reads as something on an object with no value:
    /// a type the framework has an empty value of, or a managed class (a probe's stand-in). A
    /// declaration of any other type (a transformable's own) would stop the program.
    static func hasEmptyValue(_ type: Any.Type) -> Bool {
        if type is OptionalMarker.Type || type is ManagedObject.Type || type is ManagedCollectionMarker.Type
            || type is ManagedDefaultValue.Type { return true }
        let known: [Any.Type] = [Int.self, Int16.self, Int32.self, Int64.self, Double.self, Float.self, Bool.self, String.self, Data.self]
        return known.contains { $0 == type }
    }

    /// Whether `start`, or a class reachable from it through to-one relationships, has a
    /// `@Managed` declaration of exactly `type`; found by reflection on throwaway objects.
    static func declares(_ type: Any.Type, reachableFrom start: ManagedObject.Type) -> Bool {
        let entity = EntityDescription(name: "KeyPathProbe", properties: [])
        var pending = [start]
        var reached: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        while let objectClass = pending.popLast() {
            let declared = declaredTypes(of: objectClass.init(entity: entity, insertInto: nil))
            if declared.contains(where: { $0 == type }) { return true }
            for destination in declared.compactMap(standInClass(for:)) where reached.insert(ObjectIdentifier(destination)).inserted {
                pending.append(destination)
            }
        }
        return false
    }

    private static func declaredTypes(of object: ManagedObject) -> [Any.Type] {
        var types: [Any.Type] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            types += current.children.compactMap { ($0.value as? ManagedWrapperInfo).map { type(of: $0).declaredType } }
            mirror = current.superclassMirror
        }
        return types
    }
}
