import Foundation
import Synchronization

/// Maps entities to the Swift classes that represent them.
///
/// Register a subclass under the `representedClassName` an Xcode model names, or set it on the
/// entity directly with `register(_:forEntityName:)`; entities with no class get `ManagedObject`.
public final class ManagedObjectClassRegistry: Sendable {
    public static let shared = ManagedObjectClassRegistry()
    private let classes = Mutex<[String: ManagedObject.Type]>([:])

    /// Registers `type` under its Swift name (and the entity's class name, if given).
    public func register(_ type: ManagedObject.Type, as className: String? = nil) {
        let name = className ?? String(describing: type)
        classes.withLock { $0[name] = type }
    }

    /// Registers `type` for every entity called `entityName`, whatever class name the model says.
    public func register(_ type: ManagedObject.Type, forEntityName entityName: String) {
        classes.withLock { $0["entity:" + entityName] = type }
    }

    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        classes.withLock { table in
            table["entity:" + entity.name] ?? entity.managedObjectClassName.flatMap { table[$0] } ?? ManagedObject.self
        }
    }
}
