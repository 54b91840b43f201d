import Foundation

/// What a context tells incremental stores about the objects it holds, as Core Data does: the
/// store's `managedObjectContextDidRegisterObjects(with:)` when the context first registers
/// objects of it, `managedObjectContextDidUnregisterObjects(with:)` when it lets them go (an
/// object released, deleted and saved, or thrown out with `reset()`, or the context itself gone),
/// so a store can count who holds which of its records. Turning an object into a fault is not
/// letting it go.
///
/// Only a context that has read through a coordinator with an incremental store takes part
/// (`readsIncrementalStores`): for the others, making an object costs one test of that flag and
/// releasing one a test of the object's own `announcedToStore`.
extension ManagedObjectContext {
    /// Runs `body` under the coordinator's lock as this context's request, so incremental stores
    /// hand this context to their subclass's methods. The first such read through a coordinator
    /// with an incremental store tells it of the objects the context holds already.
    func askingStores<T>(_ coordinator: PersistentStoreCoordinator, _ body: () throws -> T) rethrows -> T {
        try coordinator.withStores {
            guard coordinator.hasIncrementalStores else { return try body() }
            let outer = coordinator.askingContext
            coordinator.askingContext = self
            defer { coordinator.askingContext = outer }
            if !readsIncrementalStores {
                readsIncrementalStores = true
                registeringTogether {
                    for object in registry.allObjects { noteRegistered(object) }
                }
            }
            return try body()
        }
    }

    /// Runs `body`, telling each store of the objects registered meanwhile with one call at the
    /// end rather than one per object: what a fetch does.
    func registeringTogether<T>(_ body: () throws -> T) rethrows -> T {
        guard pendingRegistrations == nil else { return try body() }
        pendingRegistrations = []
        defer {
            let ids = pendingRegistrations ?? []
            pendingRegistrations = nil
            tellStores(ids) { $0.managedObjectContextDidRegisterObjects(with: $1) }
        }
        return try body()
    }

    /// Tells `object`'s store that this context holds it, when the store is incremental and was
    /// not told yet.
    func noteRegistered(_ object: ManagedObject) {
        guard !object.announcedToStore, !object.objectID.isTemporaryID, let coordinator = persistentStoreCoordinator else { return }
        coordinator.withStores {
            guard let store = try? coordinator.store(for: object.objectID) as? IncrementalStore else { return }
            object.announcedToStore = true
            if pendingRegistrations != nil {
                pendingRegistrations?.append(object.objectID)
            } else {
                store.managedObjectContextDidRegisterObjects(with: [object.objectID])
            }
        }
    }

    /// Takes `object` out of the registry: the context lets it go.
    func unregister(_ object: ManagedObject) {
        registry.remove(object)
        guard object.announcedToStore else { return }
        object.announcedToStore = false
        tellStores([object.objectID]) { $0.managedObjectContextDidUnregisterObjects(with: $1) }
    }

    /// Registers `object` under `id`, its new identity (a temporary ID made permanent, or the
    /// saved object a new one turned out to be); a store told of the old ID hears it let go.
    func reregister(_ object: ManagedObject, as id: ManagedObjectID) {
        unregister(object)
        object.objectID = id
        registry.insert(object)
        if readsIncrementalStores { noteRegistered(object) }
    }

    /// Tells the stores that the context lets go of every object it holds (`reset()`, or the
    /// context going away), one call per store.
    func unregisterAll() {
        guard readsIncrementalStores else { return }
        var ids: [ManagedObjectID] = []
        for object in registry.allObjects where object.announcedToStore {
            object.announcedToStore = false
            ids.append(object.objectID)
        }
        tellStores(ids) { $0.managedObjectContextDidUnregisterObjects(with: $1) }
    }

    /// Whether the faults of `owner`'s to-many fire together (batch faulting): not for an
    /// incremental store's objects, whose values are asked for one object at a time as in Core Data.
    func batchesFaults(throughToManyOf owner: ManagedObjectID) -> Bool {
        guard readsIncrementalStores, let coordinator = persistentStoreCoordinator else { return true }
        return coordinator.withStores { !((try? coordinator.store(for: owner)) is IncrementalStore) }
    }

    /// Hands `ids` to their incremental stores, grouped into one call per store.
    private func tellStores(_ ids: [ManagedObjectID], _ message: (IncrementalStore, [ManagedObjectID]) -> Void) {
        guard let first = ids.first, let coordinator = persistentStoreCoordinator else { return }
        let groups = ids.allSatisfy({ $0.storeIdentifier == first.storeIdentifier })
            ? [ids] : Array(Dictionary(grouping: ids) { $0.storeIdentifier ?? "" }.values)
        coordinator.withStores {
            for group in groups {
                guard let head = group.first, let store = try? coordinator.store(for: head) as? IncrementalStore else { continue }
                message(store, group)
            }
        }
    }
}
