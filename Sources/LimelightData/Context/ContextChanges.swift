import Foundation

/// Moments a context reports to its observers.
public enum ContextEvent: Sendable {
    /// Changes were processed (`objectsDidChange`).
    case objectsDidChange
    /// A save is about to write.
    case willSave
    /// A save wrote these changes.
    case didSave
}

/// The objects a notification is about.
public struct ContextChanges {
    public var inserted: Set<ManagedObject> = []
    public var updated: Set<ManagedObject> = []
    public var deleted: Set<ManagedObject> = []
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ManagedObjectContext {
    /// Calls `handler` for every event of this context; returns a token for `removeObserver`.
    @discardableResult
    public func addObserver(_ handler: @escaping (ContextEvent, ContextChanges) -> Void) -> UUID {
        let token = UUID()
        observers[token] = handler
        return token
    }

    public func removeObserver(_ token: UUID) { observers[token] = nil }

    func post(_ event: ContextEvent, _ changes: ContextChanges) {
        for handler in observers.values { handler(event, changes) }
        let name: Notification.Name
        switch event {
        case .objectsDidChange: name = Self.didChangeObjectsNotification
        case .willSave: name = Self.willSaveObjectsNotification
        case .didSave: name = Self.didSaveObjectsNotification
        }
        NotificationCenter.default.post(name: name, object: self, userInfo: [
            "inserted": changes.inserted, "updated": changes.updated, "deleted": changes.deleted,
        ])
    }

    // MARK: Inserting and deleting

    /// Creates an object of the named entity, inserted into this context.
    public func insertNewObject(forEntityName name: String) throws -> ManagedObject {
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entity(named: name) else {
            throw PersistenceError.invalidRequest("the model has no entity named '\(name)'")
        }
        let object = makeObject(entity: entity)
        insert(object)
        return object
    }

    /// Registers a new object; it is saved with the next save.
    public func insert(_ object: ManagedObject) {
        let current = object.managedObjectContext
        if current === self, object.insertedFlag { return }
        let wasDeleted = object.deletedFlag
        let isFirstInsert = object.committedValues == nil && !wasDeleted
        if current !== self {
            // An object moving over from another context leaves that one's registry.
            current?.objectDidGo(object)
            object.managedObjectContext = self
        }
        object.deletedFlag = false
        object.insertedFlag = true
        registry.insert(object)
        if retainedObjects != nil { retainedObjects?.insert(object) }
        insertedSet.insert(object)
        // Only a deleted object can be in the deleted set: a new one costs no lookup there.
        if wasDeleted { deletedSet.remove(object) }
        pendingInserted.insert(object)
        if isFirstInsert {
            object.entityLayout.ownValues(&object.values)
            for (index, value) in object.entityLayout.initialValues {
                // Defaults fill attributes not set yet; to-manys always start empty.
                if object.entityLayout.kinds[index] == .toMany || object.values[index].isNull { object.values[index] = value }
            }
            object.awakeFromInsert()
        }
        undoManager?.register { context in
            context.delete(object)
            context.noteSnapshotEvent(.undoInsertion, for: object)
        }
        noteContextChange()
    }

    /// Marks an object for deletion at the next save and applies its relationships' delete rules:
    /// Nullify and Cascade now (at the next save when `propagatesDeletesAtEndOfEvent` is off),
    /// Deny when saving.
    public func delete(_ object: ManagedObject) {
        guard object.managedObjectContext === self, !object.deletedFlag else { return }
        if object.faultFlag { fireFault(object) }
        object.prepareForDeletion()
        let wasInserted = object.insertedFlag
        object.deletedFlag = true
        pendingDeleted.insert(object)
        if wasInserted {
            object.insertedFlag = false
            insertedSet.remove(object)
        } else {
            updatedSet.remove(object)
            deletedSet.insert(object)
        }
        undoManager?.register { context in
            context.undelete(object, wasInserted: wasInserted)
            context.noteSnapshotEvent(.undoDeletion, for: object)
        }
        if propagatesDeletesAtEndOfEvent {
            propagateDelete(of: object)
        } else {
            unpropagatedDeletes.append(object)
        }
        noteContextChange()
    }

    /// Runs a deleted object's delete rules: Nullify and Cascade (Deny is checked when saving).
    func propagateDelete(of object: ManagedObject) {
        for (index, property) in object.entity.properties.enumerated() {
            guard let relationship = property as? RelationshipDescription else { continue }
            let related = relatedIDs(of: object, relationship: relationship, slot: object.values[index])
            switch relationship.deleteRule {
            case .cascade:
                for id in related { delete(self.object(with: id)) }
            case .nullify:
                guard let inverse = relationship.inverseRelationship else { continue }
                for id in related {
                    let other = self.object(with: id)
                    guard !other.deletedFlag, let inverseIndex = other.entity.index(of: inverse.name) else { continue }
                    let before = other.values[inverseIndex]
                    other.unlinkInverse(inverse, from: object.objectID)
                    undoManager?.register { context in
                        other.restoreSlot(inverseIndex, to: before)
                        context.noteSnapshotEvent(.undoUpdate, for: other)
                    }
                }
            case .deny, .noAction:
                continue
            }
        }
    }

    /// Runs the delete rules that waited while `propagatesDeletesAtEndOfEvent` was off, and those
    /// of the objects their cascades delete.
    func propagatePendingDeletes() {
        while !unpropagatedDeletes.isEmpty {
            let waiting = unpropagatedDeletes
            unpropagatedDeletes = []
            for object in waiting where object.deletedFlag && object.managedObjectContext === self {
                // A cascade's deletes wait too while the property is off: they join the loop.
                propagateDelete(of: object)
            }
        }
    }

    private func undelete(_ object: ManagedObject, wasInserted: Bool) {
        pendingDeleted.remove(object)
        // A new object, or one whose deletion was saved (its row is gone, so it comes back as a
        // new one under its old ID, as in Core Data), is inserted again. `insert` must see the
        // deletion it takes back: that is what tells it this is not a first insert, so no
        // defaults overwrite the object's values and `awakeFromInsert` is not called again.
        if wasInserted || object.managedObjectContext !== self {
            object.deletedFlag = true
            insert(object)
            return
        }
        object.deletedFlag = false
        deletedSet.remove(object)
        if !object.changedValues().isEmpty { object.updatedFlag = true; updatedSet.insert(object) }
        registry.insert(object)
        undoManager?.register { context in
            context.delete(object)
            context.noteSnapshotEvent(.undoInsertion, for: object)
        }
    }

    /// Called by objects when a value changed through change tracking.
    func objectDidChange(_ object: ManagedObject, index: Int, oldValue: StoredValue, registerUndo: Bool) {
        markUpdated(object)
        if registerUndo {
            undoManager?.register { context in
                object.restoreSlot(index, to: oldValue)
                context.noteSnapshotEvent(.undoUpdate, for: object)
            }
        }
        if object.keyValueObservers != nil { object.reportChange(at: index, from: oldValue) }
    }

    /// Counts a saved object as updated, for a change that is not undone on its own (the inverse
    /// side of a relationship change, which undoing the change itself puts back).
    func markUpdated(_ object: ManagedObject) {
        if !object.insertedFlag && !object.deletedFlag {
            object.updatedFlag = true
            updatedSet.insert(object)
            pendingUpdated.insert(object)
        } else if object.insertionAnnounced && !object.deletedFlag {
            pendingUpdated.insert(object)
        }
        noteContextChange()
    }

    /// Ends the current undo step and tells observers what changed since the last time.
    public func processPendingChanges() {
        if propagatesDeletesAtEndOfEvent, !unpropagatedDeletes.isEmpty { propagatePendingDeletes() }
        undoManager?.closeGroup()
        let changes = ContextChanges(inserted: pendingInserted, updated: pendingUpdated.subtracting(pendingInserted),
                                     deleted: pendingDeleted)
        for object in pendingInserted where object.insertedFlag { object.insertionAnnounced = true }
        pendingInserted = []
        pendingUpdated = []
        pendingDeleted = []
        noteContextChange()
        guard !changes.isEmpty else { return }
        post(.objectsDidChange, changes)
        // Once observers have seen the event (asking the objects what it changed), its values are
        // where the next event's changes are measured from (`changedValuesForCurrentEvent`): a
        // shared reference to each changed object's array. An object an observer changed
        // meanwhile keeps the earlier ones, as that change belongs to the next event.
        let changedMeanwhile = !pendingUpdated.isEmpty
        for changed in [changes.inserted, changes.updated] {
            for object in changed where !object.deletedFlag && !(changedMeanwhile && pendingUpdated.contains(object)) {
                object.eventValues = object.values
            }
        }
    }
}
