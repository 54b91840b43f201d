import Foundation

extension ManagedObjectContext {
    /// A save lost a race for the objects `ids` (optimistic locking): each becomes a
    /// `MergeConflict` with the store's current row, the merge policy resolves them, and what it
    /// left unsettled is settled by the objects' values as they are then.
    func resolveLockingConflicts(_ ids: [ManagedObjectID], coordinator: PersistentStoreCoordinator) throws {
        var conflicts: [MergeConflict] = []
        for id in ids {
            guard let object = registry.object(for: id) else { continue }
            let row = try askingStores(coordinator) { try coordinator.store(for: id).rows(for: [id]).first }
            conflicts.append(MergeConflict(object, row: row, context: self))
        }
        try mergePolicy.resolve(mergeConflicts: conflicts)
        // A policy that returned has settled the conflicts: those it did not hand to `super` keep
        // the values it left them with, written over the store's.
        for conflict in conflicts {
            try settle(conflict, as: .overwriteMergePolicyType)
        }
    }

    /// Settles one conflict by `type`, unless its object left the context or was settled already
    /// (its version is no longer the one the conflict was found at).
    func settle(_ conflict: MergeConflict, as type: MergePolicyType) throws {
        let object = conflict.sourceObject
        guard object.managedObjectContext === self, object.storeVersion == conflict.readVersion else { return }
        try settle(object, row: conflict.row, as: type)
    }

    /// Settles the objects `ids` by `type` against their rows as the store holds them now.
    func settleConflicts(_ ids: [ManagedObjectID], coordinator: PersistentStoreCoordinator, as type: MergePolicyType) throws {
        for id in ids {
            guard let object = registry.object(for: id) else { continue }
            let row = try askingStores(coordinator) { try coordinator.store(for: id).rows(for: [id]).first }
            try settle(object, row: row, as: type)
        }
    }

    /// The object takes the store's `row` as its saved state, and its values become `type`'s mix
    /// of that row and its own changes; without a row (deleted by the other writer) it leaves
    /// this context for the store-first types, and is a conflict for the others.
    private func settle(_ object: ManagedObject, row: StoreRow?, as type: MergePolicyType) throws {
        // An unchanged object checked by `detectConflicts(for:)` has nothing of its own to
        // keep: whatever the policy, it takes what the store holds, or leaves with its row.
        let unchanged = !object.hasChanges
        if unchanged, let row {
            object.values = row.values
            object.committedValues = row.values
            object.eventValues = nil
            object.storeVersion = row.version
            object.cachedRowValues = nil
            object.fetchedResults = [:]
            object.awake(fromSnapshotEvents: .mergePolicy)
            return
        }
        guard let row else {
            guard unchanged || type == .rollbackMergePolicyType || type == .mergeByPropertyStoreTrumpMergePolicyType else {
                throw PersistenceError.conflict(objects: [object.objectID])
            }
            insertedSet.remove(object)
            updatedSet.remove(object)
            deletedSet.remove(object)
            unregister(object)
            conflictCheckedObjects.remove(object)
            retainedObjects?.remove(object)
            object.managedObjectContext = nil
            object.deletedFlag = false
            return
        }
        let local = object.values
        let committed = object.committedValues ?? row.values
        var settled = local
        var settledCommitted = row.values
        for slot in local.indices where slot < row.values.count {
            let stored = row.values[slot]
            // A to-many is not in the row. Where the store's state should win, the slot and its
            // saved state both become unloaded: nothing is written for it, and it is read again.
            if case .toMany = local[slot] {
                let changedHere = !StoredValue.same(committed[slot], local[slot])
                if type == .rollbackMergePolicyType || !changedHere {
                    settled[slot] = .toMany(.fault)
                    settledCommitted[slot] = .toMany(.fault)
                } else {
                    settledCommitted[slot] = committed[slot]
                }
                continue
            }
            let changedHere = !StoredValue.same(committed[slot], local[slot])
            let changedThere = !StoredValue.same(committed[slot], stored)
            switch type {
            case .rollbackMergePolicyType: settled[slot] = stored
            case .mergeByPropertyStoreTrumpMergePolicyType: settled[slot] = changedThere || !changedHere ? stored : local[slot]
            case .mergeByPropertyObjectTrumpMergePolicyType: settled[slot] = changedHere ? local[slot] : stored
            case .overwriteMergePolicyType, .errorMergePolicyType: settled[slot] = local[slot]
            }
        }
        object.values = settled
        object.committedValues = settledCommitted
        object.eventValues = nil
        object.storeVersion = row.version
        object.cachedRowValues = nil
        if type == .rollbackMergePolicyType, deletedSet.remove(object) != nil { object.deletedFlag = false }
        // Settled to exactly what the store holds: nothing is left to write for it.
        if !deletedSet.contains(object), object.values.indices.allSatisfy({ StoredValue.same(object.values[$0], object.committedValues?[$0] ?? .null) }) {
            updatedSet.remove(object)
            object.updatedFlag = false
        }
        object.awake(fromSnapshotEvents: .mergePolicy)
    }
}
