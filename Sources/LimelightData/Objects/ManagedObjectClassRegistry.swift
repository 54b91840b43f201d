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

    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        classes.withLock { table in
            table["entity:" + entity.name] ?? entity.managedObjectClassName.flatMap { table[$0] } ?? ManagedObject.self
        }
    }
}
