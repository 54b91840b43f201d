import Foundation

/// A child context's changes as its save hands them to its parent: values by ID, never objects,
/// which stay with their own context.
struct ChildSave {
    var inserted: [(id: ManagedObjectID, values: [StoredValue])] = []
    var updated: [(id: ManagedObjectID, values: [StoredValue], changed: [Int])] = []
    var deleted: [ManagedObjectID] = []
    /// Objects given to the child's `detectConflicts(for:)`: the parent checks them when it saves.
    var locked: [ManagedObjectID] = []
}

extension ManagedObjectContext {
    /// A child's save, after validation: its changes become the parent's unsaved changes, on the
    /// parent's queue, and the child's objects count as saved. No store is touched.
    func saveIntoParent(_ parent: ManagedObjectContext) {
        // IDs the parent made permanent since the child last asked are taken on first, so the
        // changes name the parent's objects as the parent knows them.
        _ = changesFromParent(.objects([]))
        let inserted = insertedSet, deleted = deletedSet
        let updated = updatedSet.filter { !$0.faultFlag }
        var save = ChildSave()
        save.inserted = inserted.map { ($0.objectID, $0.values) }
        save.updated = updated.map { ($0.objectID, $0.values, Self.changedSlots(of: $0)) }
        save.deleted = deleted.map(\.objectID)
        save.locked = conflictCheckedObjects.filter { !$0.hasChanges && !$0.objectID.isTemporaryID }.map(\.objectID)
        parent.performAndWait { parent.takeChildSave(save, from: self) }

        for saved in [inserted, updated] {
            for object in saved {
                object.committedValues = object.values
                object.eventValues = nil
                object.insertedFlag = false
                object.updatedFlag = false
            }
        }
        // Gone for the child as a deletion saved to a store is; the parent now holds it deleted.
        clearSavedChanges(deleted: deleted)
        for saved in [inserted, updated, deleted] {
            for object in saved { object.didSave() }
        }
        undoManager?.closeGroup()
        post(.didSave, ContextChanges(inserted: inserted, updated: updated, deleted: deleted))
        postSavedObjectIDs(SavedObjectIDs(inserted: save.inserted.map(\.id), updated: save.updated.map(\.id), deleted: save.deleted))
    }

    /// Takes a child's saved changes as this context's own unsaved ones. Runs on this context's
    /// queue.
    private func takeChildSave(_ save: ChildSave, from child: ManagedObjectContext) {
        for (id, values) in save.inserted {
            if let object = registry.object(for: id) {
                // Inserted by an earlier save of the child, and changed since.
                let before = object.valuesBeforeChange
                object.values = values
                markUpdated(object)
                object.reportChanges(since: before)
                continue
            }
            let object = makeObject(entity: id.entity)
            object.objectID = id
            object.managedObjectContext = self
            object.values = values
            object.insertedFlag = true
            registry.insertNew(object, id: id)
            if readsIncrementalStores { noteRegistered(object) }
            if retainedObjects != nil { retainedObjects?.insert(object) }
            insertedSet.insert(object)
            pendingInserted.insert(object)
            // The child keeps the object under this ID until the parent saves it.
            lentIDs.insert(id)
        }
        for (id, values, changed) in save.updated {
            let object = object(with: id)
            if object.faultFlag { fireFault(object) }
            let before = object.valuesBeforeChange
            // Only what the child changed: this context's other unsaved changes stay.
            for index in changed where values.indices.contains(index) && object.values.indices.contains(index) {
                object.values[index] = values[index]
            }
            object.fetchedResults = [:]
            markUpdated(object)
            object.reportChanges(since: before)
        }
        for id in save.deleted {
            // The child applied the delete rules; their effects arrive as its other changes.
            let object = object(with: id)
            guard !object.deletedFlag else { continue }
            if object.faultFlag { fireFault(object) }
            object.deletedFlag = true
            pendingDeleted.insert(object)
            if object.insertedFlag {
                object.insertedFlag = false
                insertedSet.remove(object)
            } else {
                updatedSet.remove(object)
                deletedSet.insert(object)
            }
        }
        for id in save.locked { detectConflicts(for: object(with: id)) }
        processPendingChanges()
        let saved = SavedObjectIDs(inserted: save.inserted.map(\.id), updated: save.updated.map(\.id), deleted: save.deleted)
        childrenMerge(saved, except: child)
    }

    /// Hands changes that reached this context to every child merging automatically, each on its
    /// own queue and without waiting, with the permanent IDs its lent objects took.
    func childrenMerge(_ saved: SavedObjectIDs, except source: ManagedObjectContext? = nil) {
        guard !mergingChildren.isEmpty, !saved.isEmpty else { return }
        mergingChildren.removeAll { $0.context == nil }
        let retired = retiredIDs
        for child in mergingChildren.compactMap(\.context) where child !== source {
            child.queue.async {
                child.catchUp(Array(retired.dropFirst(child.retiredIDsSeen)), through: retired.count)
                child.merge(saved)
            }
        }
    }
}
