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

        // The three sets never share an object: each is walked as it is, with no union built.
        for changed in [insertedSet, updatedSet, deletedSet] {
            for object in changed { object.willSave() }
        }
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
            // Only updates need to know what changed: an insert writes every slot.
            let changed = object.insertedFlag ? [] : object.committedValues.map { committed in
                object.values.indices.filter { !ValueEquality.same(committed[$0], object.values[$0]) }
            } ?? Array(object.values.indices)
            let snapshot = ObjectSnapshot(id: object.objectID, values: object.values, version: object.storeVersion, changed: changed)
            changesByStore[ObjectIdentifier(store), default: (store, SaveChanges())].1[keyPath: keyPath].append(snapshot)
        }
        try coordinator.withStores {
            // Where new objects go depends on their entity only: asked once per entity.
            var storeForNew: [ObjectIdentifier: PersistentStore] = [:]
            for object in inserted {
                let store: PersistentStore
                if !object.objectID.isTemporaryID {
                    store = try coordinator.store(for: object.objectID)
                } else if let known = storeForNew[ObjectIdentifier(object.entity)] {
                    store = known
                } else {
                    store = try coordinator.store(forNew: object.entity)
                    storeForNew[ObjectIdentifier(object.entity)] = store
                }
                add(object, to: \.inserted, store: store)
            }
            for object in updated { add(object, to: \.updated, store: try coordinator.store(for: object.objectID)) }
            for object in deleted { add(object, to: \.deleted, store: try coordinator.store(for: object.objectID)) }
        }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        try coordinator.withStores {
            for (store, changes) in changesByStore.values where !changes.isEmpty {
                if store.isReadOnly { throw PersistenceError.store(path: store.url?.path ?? "store", reason: "the store is read-only") }
                let saved = try store.save(changes)
                if mapping.isEmpty { mapping = saved } else { mapping.merge(saved) { a, _ in a } }
            }
        }
        didCommit(inserted: inserted, updated: updated, deleted: deleted, mapping: mapping)
    }

    private func hookFailures(_ object: ManagedObject, _ hook: (ManagedObject) throws -> Void) -> [ValidationFailure] {
        // `ManagedObject`'s own hooks accept everything: only subclasses need them called.
        guard type(of: object) != ManagedObject.self else { return [] }
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
                registry.remove(object)
                object.objectID = permanent
                registry.insert(object)
            }
        }
        if !mapping.isEmpty { remapRegisteredObjects(mapping) }
        for saved in [inserted, updated] {
            for object in saved {
                object.committedValues = object.values
                object.storeVersion = object.insertedFlag ? 1 : object.storeVersion + 1
                object.insertedFlag = false
                object.updatedFlag = false
            }
        }
        for object in deleted {
            registry.remove(object)
            object.deletedFlag = false
            object.committedValues = nil
        }
        insertedSet = []
        updatedSet = []
        deletedSet = []
        problems = []
        for saved in [inserted, updated, deleted] {
            for object in saved { object.didSave() }
        }
        undoManager?.closeGroup()
        post(.didSave, ContextChanges(inserted: inserted, updated: updated, deleted: deleted))
    }

    /// Drops every unsaved change: new objects go, changed and deleted ones get their saved values.
    public func rollback() {
        for object in insertedSet {
            registry.remove(object)
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
        registry.removeAll()
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
            registry.remove(object)
            object.objectID = permanent
            registry.insert(object)
        }
        remapRegisteredObjects(mapping)
    }

    /// Points every loaded object's relationships at the permanent IDs; objects of entities
    /// without relationships hold no IDs and are skipped.
    private func remapRegisteredObjects(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        for object in registry.allObjects {
            guard !object.faultFlag, !object.entity.relationshipIndices.isEmpty else { continue }
            object.remapIDs(mapping)
        }
    }
}
