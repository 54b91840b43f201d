import Foundation
import Synchronization

/// Maps entities to the Swift classes that represent them.
///
/// Register a subclass under the `representedClassName` an Xcode model names, or set it on the
/// entity directly with `register(_:forEntityName:)`; entities with no class get `ManagedObject`.
public final class ManagedObjectClassRegistry: Sendable {
    public static let shared = ManagedObjectClassRegistry()
    private let classes = Mutex<[String: ManagedObject.Type]>([:])
    /// Counts registrations, so a context may cache its answers until the table changes: looking
    /// up the class takes the lock and builds a string, once per entity instead of per object.
    private let registrations = Atomic<UInt64>(0)

    /// Changes whenever a class is registered.
    var generation: UInt64 { registrations.load(ordering: .acquiring) }

    /// Registers `type` under its Swift name (and the entity's class name, if given).
    public func register(_ type: ManagedObject.Type, as className: String? = nil) {
        let name = className ?? String(describing: type)
        classes.withLock { $0[name] = type }
        registrations.add(1, ordering: .releasing)
    }

    /// Registers `type` for every entity called `entityName`, whatever class name the model says.
    public func register(_ type: ManagedObject.Type, forEntityName entityName: String) {
        classes.withLock { $0["entity:" + entityName] = type }
        registrations.add(1, ordering: .releasing)
    }

    /// The class registered for the entity, by entity name or by the model's class name. Xcode
    /// writes a class of the app's own module as `.Recipe` (or `MyApp.Recipe`), and a class
    /// registered by its Swift name is `Recipe`: a class name found under neither spelling is
    /// looked up without its module, as Core Data finds the class in the module it names.
    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        classes.withLock { table in
            if let type = table["entity:" + entity.name] { return type }
            guard let className = entity.managedObjectClassName else { return ManagedObject.self }
            if let type = table[className] { return type }
            guard let unqualified = className.split(separator: ".").last, unqualified.count < className.count else { return ManagedObject.self }
            return table[String(unqualified)] ?? ManagedObject.self
        }
    }
}
