import Foundation

extension ManagedObjectContext {
    /// Writes every change to the stores in one transaction per store; a child's go to its parent.
    ///
    /// Validation runs first; if anything fails, a `ValidationError` lists every failing object and
    /// key (or, when the one failure is an error an app's validation method threw, that error is
    /// thrown itself, as in Core Data), and neither the store nor the context's pending changes are touched. Conflicts (a race
    /// lost to another writer, uniqueness constraints) go to `mergePolicy`'s `resolve` methods; with
    /// `.error`, the default, the save throws `PersistenceError.conflict` (or `.constraintConflict`)
    /// naming the objects, and so does any error a policy throws, with nothing written.
    public func save() throws {
        // Delete rules held back by `propagatesDeletesAtEndOfEvent` run now, before anything sees the changes.
        if !unpropagatedDeletes.isEmpty { propagatePendingDeletes() }
        processPendingChanges()
        guard hasChanges || !problems.isEmpty || !unfulfilledFaults.isEmpty || !conflictCheckedObjects.isEmpty else { return }
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }

        // The three sets never share an object: each is walked as it is, with no union built.
        for changed in [insertedSet, updatedSet, deletedSet] {
            for object in changed { object.willSave() }
        }
        if !unpropagatedDeletes.isEmpty { propagatePendingDeletes() }
        processPendingChanges()
        if computeDerivedAttributes(coordinator) { processPendingChanges() }
        post(.willSave, ContextChanges(inserted: insertedSet, updated: updatedSet, deleted: deletedSet))

        var failures = problems + unfulfilledFaults.values.sorted { $0.description < $1.description }
        // An app's hook runs before the model's rules are checked, as Core Data's `super` call
        // checks them where the override makes it: a hook that fills in a required value before
        // calling `super` (a generated identifier, a default) passes.
        for object in insertedSet {
            failures += hookFailures(object) { try $0.validateForInsert() }
            failures += Validation.failures(of: object)
        }
        for object in updatedSet where !object.faultFlag {
            failures += hookFailures(object) { try $0.validateForUpdate() }
            failures += Validation.failures(of: object)
        }
        for object in deletedSet {
            failures += Validation.deleteFailures(of: object)
            failures += hookFailures(object) { try $0.validateForDelete() }
        }
        guard failures.isEmpty else { throw ValidationError.thrownBySave(failures) }
        if let parent {
            saveIntoParent(parent)
            advanceQueryGeneration()
            return
        }
        try settleConstraintConflicts(coordinator)
        let wantsObjects = coordinator.withStores { coordinator.persistentStores.contains { $0.needsPermanentIDsBeforeSave } }
        if wantsObjects { try obtainPermanentIDs(for: Array(insertedSet)) }

        // A conflict settled by the merge policy changes what is written: the batches are made
        // again from the settled objects, a few times at most (each round lost another race).
        var round = 0
        while true {
            // Settling is for a save nothing of which was written: a conflict in a second store,
            // after the first committed, is reported as it is.
            var wroteSome = false
            do {
                let (batches, updated) = try writeChanges(coordinator, handingObjects: wantsObjects, wroteSome: &wroteSome)
                didCommit(batches, updated: updated)
                advanceQueryGeneration()
                return
            } catch PersistenceError.conflict(let ids) where round < 3 && !wroteSome {
                round += 1
                try resolveLockingConflicts(ids, coordinator: coordinator)
                processPendingChanges()
                guard hasChanges || !conflictCheckedObjects.isEmpty else { return }
            }
        }
    }

    /// Hands every change to its store, one transaction per store; the batches written and the
    /// updated objects they held.
    /// `handingObjects`: some store wants the saved objects themselves (`SaveChanges.objects`).
    private func writeChanges(_ coordinator: PersistentStoreCoordinator, handingObjects: Bool,
                              wroteSome: inout Bool) throws -> ([StoreBatch], Set<ManagedObject>) {
        let updated = updatedSet.filter { !$0.faultFlag }
        var batches: [StoreBatch] = []
        try coordinator.withStores {
            var router = SaveRouter(coordinator: coordinator, assignments: assignedStores)
            for object in insertedSet {
                let index = try router.batch(forNew: object, in: &batches)
                if batches[index].insertedObjects.isEmpty {
                    batches[index].insertedObjects.reserveCapacity(insertedSet.count)
                    batches[index].changes.inserted.reserveCapacity(insertedSet.count)
                }
                batches[index].changes.inserted.append(ObjectSnapshot(id: object.objectID, values: object.values,
                                                                      version: object.storeVersion, changed: []))
                batches[index].insertedObjects.append(object)
            }
            for object in updated {
                let index = try router.batch(for: object.objectID, in: &batches)
                batches[index].changes.updated.append(ObjectSnapshot(id: object.objectID, values: object.values,
                                                                     version: object.storeVersion, changed: Self.changedSlots(of: object),
                                                                     committedValues: object.committedValues))
                if handingObjects, batches[index].store.needsPermanentIDsBeforeSave { batches[index].changes.objects.append(object) }
            }
            for object in deletedSet {
                let index = try router.batch(for: object.objectID, in: &batches)
                if handingObjects, batches[index].store.needsPermanentIDsBeforeSave { batches[index].changes.objects.append(object) }
                batches[index].changes.deleted.append(ObjectSnapshot(id: object.objectID, values: object.values,
                                                                     version: object.storeVersion, changed: Self.changedSlots(of: object)))
            }
            // Unchanged objects given to `detectConflicts(for:)`: their versions are checked, nothing
            // is written for them (changed ones are checked by their own write).
            for object in conflictCheckedObjects where object.managedObjectContext === self && !object.hasChanges
                && !object.objectID.isTemporaryID && !object.faultFlag {
                let index = try router.batch(for: object.objectID, in: &batches)
                batches[index].changes.locked.append(ObjectSnapshot(id: object.objectID, values: [], version: object.storeVersion, changed: []))
            }
        }
        try describeForSpotlight(&batches)
        try askingStores(coordinator) {
            for index in batches.indices where !batches[index].changes.isEmpty || !batches[index].changes.locked.isEmpty {
                let store = batches[index].store
                // A store that cannot check versions in its own write is asked first, under the
                // coordinator's lock, which every write to it takes too.
                if batches[index].changes.isEmpty || !store.checksLockedVersionsInSave, !batches[index].changes.locked.isEmpty {
                    let conflicts = try store.versionConflicts(among: batches[index].changes.locked)
                    if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
                    batches[index].changes.locked = []
                    if batches[index].changes.isEmpty { continue }
                }
                if store.isReadOnly { throw PersistenceError.store(path: store.url?.path ?? "store", reason: "the store is read-only") }
                batches[index].changes.origin = origin
                if handingObjects, store.needsPermanentIDsBeforeSave { batches[index].changes.objects += batches[index].insertedObjects }
                batches[index].permanentIDs = try store.save(batches[index].changes)
                wroteSome = true
            }
        }
        return (batches, updated)
    }

    /// Who saves, for persistent history.
    var origin: SaveOrigin { SaveOrigin(author: transactionAuthor, contextName: name) }

    /// An update's slots whose value differs from the last saved one; every slot when nothing was
    /// saved yet. (An insert writes every slot and needs none.)
    static func changedSlots(of object: ManagedObject) -> [Int] {
        guard let committed = object.committedValues else { return Array(object.values.indices) }
        return object.values.indices.filter { !StoredValue.same(committed[$0], object.values[$0]) }
    }

    private func hookFailures(_ object: ManagedObject, _ hook: (ManagedObject) throws -> Void) -> [ValidationFailure] {
        // `ManagedObject`'s own hooks accept everything: only subclasses need them called.
        guard type(of: object) != ManagedObject.self else { return [] }
        // The save checks the model's rules itself: `super`'s hooks leave them alone meanwhile.
        object.isUnderValidation = true
        defer { object.isUnderValidation = false }
        do {
            try hook(object)
            return []
        } catch {
            return ValidationFailure.failures(from: error, object: object, key: nil)
        }
    }

    private func didCommit(_ batches: [StoreBatch], updated: Set<ManagedObject>) {
        let inserted = insertedSet, deleted = deletedSet
        // Let go of each event's values before permanent IDs are put into the objects' own, so
        // that is done in place rather than on a copy.
        for object in updated { object.eventValues = nil }
        // New objects take their permanent IDs, given back in the order of their snapshots, and
        // become saved objects in the same pass.
        var remapped: [PermanentIDMapping] = []
        for batch in batches where !batch.insertedObjects.isEmpty {
            for (object, permanent) in zip(batch.insertedObjects, batch.permanentIDs) {
                if object.objectID.isTemporaryID {
                    registry.remove(object)
                    object.objectID = permanent
                    registry.insert(object)
                }
                object.committedValues = object.values
                object.eventValues = nil
                object.storeVersion = 1
                object.insertedFlag = false
                object.updatedFlag = false
            }
            remapped.append(PermanentIDMapping(snapshots: batch.changes.inserted, permanent: batch.permanentIDs))
        }
        remapRegisteredObjects(&remapped)
        for object in updated {
            object.committedValues = object.values
            object.storeVersion += 1
            object.updatedFlag = false
        }
        clearSavedChanges(deleted: deleted)
        for batch in batches {
            for object in batch.insertedObjects { object.didSave() }
        }
        for saved in [updated, deleted] {
            for object in saved { object.didSave() }
        }
        undoManager?.closeGroup()
        // A save that only checked versions (`detectConflicts(for:)`) changed nothing to tell of.
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        post(.didSave, ContextChanges(inserted: inserted, updated: updated, deleted: deleted))
        let saved = SavedObjectIDs(inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deleted.map(\.objectID))
        postSavedObjectIDs(saved)
        persistentStoreCoordinator?.contextDidSave(self, saved)
        childrenMerge(saved)
    }

    /// The end of every save, to a store or a parent: the change sets empty, and a deleted object
    /// leaves the context, as in Core Data (its `managedObjectContext` is nil from here on;
    /// undoing the deletion brings it back).
    func clearSavedChanges(deleted: Set<ManagedObject>) {
        for object in deleted {
            unregister(object)
            retainedObjects?.remove(object)
            object.managedObjectContext = nil
            object.deletedFlag = false
            object.committedValues = nil
        }
        insertedSet = []
        updatedSet = []
        deletedSet = []
        problems = []
        unfulfilledFaults = [:]
        assignedStores = [:]
        conflictCheckedObjects = []
        noteContextChange()
    }

    /// Saves a new object into `store` rather than the first store that takes its entity, as Core
    /// Data's `assign(_:to:)`: for coordinators with several stores of the same configuration.
    /// Throws when the object is not new (its store is fixed), or the store is not this context's,
    /// is read-only or does not take the object's entity.
    public func assign(_ object: ManagedObject, to store: PersistentStore) throws {
        guard object.objectID.isTemporaryID else {
            throw PersistenceError.invalidRequest("\(object.objectID) is saved already: its store is fixed")
        }
        guard let coordinator = persistentStoreCoordinator, coordinator.persistentStores.contains(where: { $0 === store }) else {
            throw PersistenceError.invalidRequest("the store \(store.url?.path ?? store.identifier) is not one of this context's stores")
        }
        guard !store.isReadOnly else { throw PersistenceError.store(path: store.url?.path ?? store.identifier, reason: "the store is read-only") }
        guard coordinator.managedObjectModel.entities(forConfiguration: store.configurationName).contains(where: { $0 === object.entity }) else {
            throw PersistenceError.invalidRequest("the store \(store.url?.path ?? store.identifier) does not take entity \(object.entity.name)")
        }
        assignedStores[object.objectID] = store
    }

    /// Drops every unsaved change: new objects go, changed and deleted ones get their saved values.
    public func rollback() {
        for object in insertedSet {
            unregister(object)
            retainedObjects?.remove(object)
            object.insertedFlag = false
            object.managedObjectContext = nil
        }
        let restored = updatedSet.union(deletedSet)
        // Observers hear of the values put back once the context is settled.
        let observed = restored.compactMap { object in object.valuesBeforeChange.map { (object, $0) } }
        for object in restored {
            if let committed = object.committedValues { object.values = committed }
            object.eventValues = nil
            object.updatedFlag = false
            object.deletedFlag = false
        }
        insertedSet = []
        updatedSet = []
        deletedSet = []
        pendingInserted = []
        pendingUpdated = []
        pendingDeleted = []
        unpropagatedDeletes = []
        problems = []
        unfulfilledFaults = [:]
        undoManager?.removeAllActions()
        for object in restored { object.awake(fromSnapshotEvents: .rollback) }
        for (object, before) in observed { object.reportChanges(since: before) }
        noteContextChange()
    }

    /// Forgets every object; unsaved changes are lost. Incremental stores hear that the context
    /// lets go of their objects.
    public func reset() {
        advanceQueryGeneration()
        rollback()
        dropObjectCaches()
        unregisterAll()
        for object in registeredObjects { object.managedObjectContext = nil }
        registry.removeAll()
        if retainedObjects != nil { retainedObjects = [] }
        conflictCheckedObjects = []
        openChanges = []
        if rowReadTimes.isOn { rowReadTimes.stop(); rowReadTimes.startIfNeeded() }
    }

    /// Gives new objects their permanent IDs now, before they are saved.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
        // In a child, an object its parent made is the parent's to give an ID to.
        let temporary = objects.filter { $0.objectID.isTemporaryID && (parent == nil || $0.insertedFlag) }
        guard !temporary.isEmpty else { return }
        // One request per store, for all of its objects at once.
        var batches: [StoreBatch] = []
        try askingStores(coordinator) {
            var router = SaveRouter(coordinator: coordinator, assignments: assignedStores)
            for object in temporary {
                let index = try router.batch(forNew: object, in: &batches)
                batches[index].insertedObjects.append(object)
            }
            for index in batches.indices {
                let ids = batches[index].insertedObjects.map(\.objectID)
                batches[index].changes.inserted = ids.map { ObjectSnapshot(id: $0, values: [], version: 0, changed: []) }
                batches[index].permanentIDs = try batches[index].store.permanentIDs(for: batches[index].insertedObjects)
            }
        }
        var remapped: [PermanentIDMapping] = []
        for batch in batches {
            for (object, permanent) in zip(batch.insertedObjects, batch.permanentIDs) where object.objectID.isTemporaryID {
                reregister(object, as: permanent)
            }
            remapped.append(PermanentIDMapping(snapshots: batch.changes.inserted, permanent: batch.permanentIDs))
        }
        remapRegisteredObjects(&remapped)
    }

    /// Points every loaded object's relationships at the permanent IDs. Only objects of entities
    /// with relationships can hold IDs: without such entities in the model nothing is walked, and
    /// no dictionary of the new IDs is built.
    /// Children lent temporary IDs are told of their permanent ones too.
    private func remapRegisteredObjects(_ mappings: inout [PermanentIDMapping]) {
        let remaps = persistentStoreCoordinator?.managedObjectModel.hasRelationships ?? true
        guard !mappings.isEmpty, remaps || !lentIDs.isEmpty else { return }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for index in mappings.indices { mapping.merge(mappings[index].dictionary()) { first, _ in first } }
        retireLentIDs(mapping)
        if remaps { remapRegisteredObjects(with: mapping) }
    }

    /// Points every loaded object's relationships at the permanent IDs `mapping` gives.
    func remapRegisteredObjects(with mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        for object in registry.allObjects {
            guard !object.faultFlag, !object.entity.relationshipIndices.isEmpty else { continue }
            object.remapIDs(mapping)
        }
    }
}
