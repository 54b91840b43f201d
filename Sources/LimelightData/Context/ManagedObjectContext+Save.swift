import Foundation

extension ManagedObjectContext {
    /// Writes every change to the stores in one transaction per store.
    ///
    /// Validation runs first; if anything fails, a `ValidationError` lists every failing object and
    /// key, and neither the store nor the context's pending changes are touched. A save that lost a
    /// race with another writer throws `PersistenceError.conflict` naming the objects.
    public func save() throws {
        processPendingChanges()
        guard hasChanges || !problems.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }

        for object in insertedSet.union(updatedSet).union(deletedSet) { object.willSave() }
        processPendingChanges()
        post(.willSave, ContextChanges(inserted: insertedSet, updated: updatedSet, deleted: deletedSet))

        var failures = problems
        for object in insertedSet {
            failures += Validation.failures(of: object)
            failures += hookFailures(object) { try $0.validateForInsert() }
        }
        for object in updatedSet where !object.faultFlag {
            failures += Validation.failures(of: object)
            failures += hookFailures(object) { try $0.validateForUpdate() }
        }
        for object in deletedSet {
            failures += Validation.deleteFailures(of: object)
            failures += hookFailures(object) { try $0.validateForDelete() }
        }
        guard failures.isEmpty else { throw ValidationError(failures: failures) }

        let inserted = insertedSet, updated = updatedSet.filter { !$0.faultFlag }, deleted = deletedSet
        var changesByStore: [ObjectIdentifier: (PersistentStore, SaveChanges)] = [:]
        func add(_ object: ManagedObject, to keyPath: WritableKeyPath<SaveChanges, [ObjectSnapshot]>, store: PersistentStore) {
            let changed = object.committedValues.map { committed in
                object.values.indices.filter { !ValueEquality.same(committed[$0], object.values[$0]) }
            } ?? Array(object.values.indices)
            let snapshot = ObjectSnapshot(id: object.objectID, values: object.values, version: object.storeVersion, changed: changed)
            changesByStore[ObjectIdentifier(store), default: (store, SaveChanges())].1[keyPath: keyPath].append(snapshot)
        }
        try coordinator.withStores {
            for object in inserted {
                let store = object.objectID.isTemporaryID ? try coordinator.store(forNew: object.entity) : try coordinator.store(for: object.objectID)
                add(object, to: \.inserted, store: store)
            }
            for object in updated { add(object, to: \.updated, store: try coordinator.store(for: object.objectID)) }
            for object in deleted { add(object, to: \.deleted, store: try coordinator.store(for: object.objectID)) }
        }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        try coordinator.withStores {
            for (store, changes) in changesByStore.values where !changes.isEmpty {
                if store.isReadOnly { throw PersistenceError.store(path: store.url?.path ?? "store", reason: "the store is read-only") }
                mapping.merge(try store.save(changes)) { a, _ in a }
            }
        }
        didCommit(inserted: inserted, updated: updated, deleted: deleted, mapping: mapping)
    }

    private func hookFailures(_ object: ManagedObject, _ hook: (ManagedObject) throws -> Void) -> [ValidationFailure] {
        do {
            try hook(object)
            return []
        } catch let failure as ValidationFailure {
            return [failure]
        } catch let error as ValidationError {
            return error.failures
        } catch {
            return [ValidationFailure(object: object, key: nil, reason: "\(error)")]
        }
    }

    private func didCommit(inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
                           mapping: [ManagedObjectID: ManagedObjectID]) {
        for object in inserted {
            if let permanent = mapping[object.objectID] {
                registry[object.objectID] = nil
                object.objectID = permanent
                registry[permanent] = WeakObject(object: object)
            }
        }
        if !mapping.isEmpty {
            for object in registeredObjects where !object.faultFlag { object.remapIDs(mapping) }
        }
        for object in inserted.union(updated) {
            object.committedValues = object.values
            object.storeVersion = object.insertedFlag ? 1 : object.storeVersion + 1
            object.insertedFlag = false
            object.updatedFlag = false
        }
        for object in deleted {
            registry[object.objectID] = nil
            object.deletedFlag = false
            object.committedValues = nil
        }
        insertedSet = []
        updatedSet = []
        deletedSet = []
        problems = []
        for object in inserted.union(updated).union(deleted) { object.didSave() }
        undoManager?.closeGroup()
        post(.didSave, ContextChanges(inserted: inserted, updated: updated, deleted: deleted))
    }

    /// Drops every unsaved change: new objects go, changed and deleted ones get their saved values.
    public func rollback() {
        for object in insertedSet {
            registry[object.objectID] = nil
            object.insertedFlag = false
            object.managedObjectContext = nil
        }
        for object in updatedSet.union(deletedSet) {
            if let committed = object.committedValues { object.values = committed }
            object.updatedFlag = false
            object.deletedFlag = false
        }
        insertedSet = []
        updatedSet = []
        deletedSet = []
        pendingInserted = []
        pendingUpdated = []
        pendingDeleted = []
        problems = []
        undoManager?.removeAllActions()
    }

    /// Forgets every object; unsaved changes are lost.
    public func reset() {
        rollback()
        for object in registeredObjects { object.managedObjectContext = nil }
        registry = [:]
    }

    /// Gives new objects their permanent IDs now, before they are saved.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        try coordinator.withStores {
            for object in temporary {
                let store = try coordinator.store(forNew: object.entity)
                mapping.merge(try store.obtainPermanentIDs(for: [object.objectID])) { a, _ in a }
            }
        }
        for object in temporary {
            guard let permanent = mapping[object.objectID] else { continue }
            registry[object.objectID] = nil
            object.objectID = permanent
            registry[permanent] = WeakObject(object: object)
        }
        for object in registeredObjects where !object.faultFlag { object.remapIDs(mapping) }
    }
}
