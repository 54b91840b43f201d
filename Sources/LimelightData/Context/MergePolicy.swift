import Foundation

/// How a save settles a conflict: objects another context or process saved since this context
/// read them. Core Data's merge policies, by the same names.
public enum MergePolicy: Sendable, Equatable {
    /// The save fails with `PersistenceError.conflict` and nothing is written (the default).
    case error
    /// Property by property, what the other writer changed wins; this context's other changes
    /// are kept.
    case mergeByPropertyStoreTrump
    /// Property by property, what this context changed wins; the other writer's other changes
    /// are kept.
    case mergeByPropertyObjectTrump
    /// This context's objects are written as they are, over whatever the store holds.
    case overwrite
    /// This context's changes to the conflicting objects are dropped for what the store holds.
    case rollback
}

extension ManagedObjectContext {
    /// Settles the conflicting objects by `mergePolicy`: each takes the store's current row as its
    /// saved state, and its values become the policy's mix of that row and its own changes.
    ///
    /// An object the other writer deleted is gone for the store-first policies (it leaves this
    /// context); the object-first policies cannot bring a deleted row back, so the conflict is
    /// thrown for it as with `.error`.
    func settleConflicts(_ ids: [ManagedObjectID], coordinator: PersistentStoreCoordinator) throws {
        for id in ids {
            guard let object = registry.object(for: id) else { continue }
            let row = try askingStores(coordinator) { try coordinator.store(for: id).rows(for: [id]).first }
            // An unchanged object checked by `detectConflicts(for:)` has nothing of its own to
            // keep: whatever the policy, it takes what the store holds, or leaves with its row.
            let unchanged = !object.hasChanges
            if unchanged, let row {
                object.values = row.values
                object.committedValues = row.values
                object.eventValues = nil
                object.storeVersion = row.version
                object.cachedRow = nil
                object.fetchedResults = [:]
                object.awake(fromSnapshotEvents: .mergePolicy)
                continue
            }
            guard let row else {
                guard unchanged || mergePolicy == .rollback || mergePolicy == .mergeByPropertyStoreTrump else {
                    throw PersistenceError.conflict(objects: [id])
                }
                insertedSet.remove(object)
                updatedSet.remove(object)
                deletedSet.remove(object)
                unregister(object)
                conflictCheckedObjects.remove(object)
                retainedObjects?.remove(object)
                object.managedObjectContext = nil
                object.deletedFlag = false
                continue
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
                    if mergePolicy == .rollback || !changedHere {
                        settled[slot] = .toMany(.fault)
                        settledCommitted[slot] = .toMany(.fault)
                    } else {
                        settledCommitted[slot] = committed[slot]
                    }
                    continue
                }
                let changedHere = !StoredValue.same(committed[slot], local[slot])
                let changedThere = !StoredValue.same(committed[slot], stored)
                switch mergePolicy {
                case .rollback: settled[slot] = stored
                case .mergeByPropertyStoreTrump: settled[slot] = changedThere || !changedHere ? stored : local[slot]
                case .mergeByPropertyObjectTrump: settled[slot] = changedHere ? local[slot] : stored
                case .overwrite, .error: settled[slot] = local[slot]
                }
            }
            object.values = settled
            object.committedValues = settledCommitted
            object.eventValues = nil
            object.storeVersion = row.version
            object.cachedRow = nil
            if mergePolicy == .rollback, deletedSet.remove(object) != nil { object.deletedFlag = false }
            // Settled to exactly what the store holds: nothing is left to write for it.
            if !deletedSet.contains(object), object.values.indices.allSatisfy({ StoredValue.same(object.values[$0], object.committedValues?[$0] ?? .null) }) {
                updatedSet.remove(object)
                object.updatedFlag = false
            }
            object.awake(fromSnapshotEvents: .mergePolicy)
        }
    }
}
