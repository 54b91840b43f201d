import Foundation

extension ManagedObject {
    /// A live, mutable view of a to-many relationship: inserting and removing through it is tracked
    /// like `setValue(_:forKey:)` and keeps inverses in step.
    public func mutableSetValue(forKey key: String) -> MutableSetProxy {
        MutableSetProxy(owner: self, key: key)
    }

    /// A live, mutable view of an ordered to-many relationship, as Core Data's
    /// `mutableOrderedSetValue(forKey:)`: inserting, removing, replacing and moving through it is
    /// tracked like `setValue(_:forKey:)`, keeps inverses in step and keeps the order.
    public func mutableOrderedSetValue(forKey key: String) -> MutableOrderedSetProxy {
        MutableOrderedSetProxy(owner: self, key: key)
    }

    /// `mutableSetValue(forKey:)` of the object a dotted key path reaches through to-one
    /// relationships (`"folder.children"`), as Core Data's `mutableSetValue(forKeyPath:)`. An empty
    /// to-one on the way gives a proxy that is empty and changes nothing; a step that is not a
    /// to-one relationship is recorded as a problem the next save reports.
    public func mutableSetValue(forKeyPath keyPath: String) -> MutableSetProxy {
        let (owner, key) = relationshipOwner(forKeyPath: keyPath)
        return MutableSetProxy(owner: owner, key: key)
    }

    /// `mutableOrderedSetValue(forKey:)` of the object a dotted key path reaches through to-one
    /// relationships, as Core Data's `mutableOrderedSetValue(forKeyPath:)`; a one-part key path
    /// (`#keyPath(Folder.children)`) is the relationship itself.
    public func mutableOrderedSetValue(forKeyPath keyPath: String) -> MutableOrderedSetProxy {
        let (owner, key) = relationshipOwner(forKeyPath: keyPath)
        return MutableOrderedSetProxy(owner: owner, key: key)
    }

    /// The object the key path's leading to-one relationships reach (`nil` past an empty one),
    /// and the last key.
    private func relationshipOwner(forKeyPath keyPath: String) -> (ManagedObject?, String) {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let key = components.removeLast()
        var owner: ManagedObject? = self
        for component in components {
            guard let current = owner else { break }
            guard let relationship = current.entity.property(named: component) as? RelationshipDescription, !relationship.isToMany else {
                current.managedObjectContext?.recordProblem(ValidationFailure(object: current, key: keyPath,
                    reason: "the key path continues after \(current.entity.name).\(component), which is not a to-one relationship"))
                return (nil, key)
            }
            owner = current.value(forKey: component) as? ManagedObject
        }
        return (owner, key)
    }

    /// The IDs of the objects a relationship holds (in order for an ordered one), as Core Data's
    /// `objectIDs(forRelationshipNamed:)` gives them: read without turning them into objects or
    /// firing their faults. Empty for an unknown name or a property that is not a relationship.
    public func objectIDs(forRelationshipNamed name: String) -> [ManagedObjectID] {
        guard let index = entityLayout.keys.index(of: name),
              let relationship = entity.properties[index] as? RelationshipDescription else { return [] }
        return relatedIDsLoaded(relationship, at: index).ids
    }

    /// The IDs a relationship's slot holds, a to-many's loaded from the store first if need be.
    func relatedIDsLoaded(_ relationship: RelationshipDescription, at index: Int) -> RelatedIDs {
        if faultFlag { managedObjectContext?.fireFault(self) }
        guard let context = managedObjectContext else {
            switch values[index] {
            case .objectID(let id): return [id]
            case .toMany(.loaded(let ids)): return ids
            default: break
            }
            return []
        }
        return context.relatedIDs(of: self, relationship: relationship, slot: values[index])
    }

    func setToOne(_ relationship: RelationshipDescription, at index: Int, to newID: ManagedObjectID?, registerUndo: Bool) {
        let oldID = values[index].objectID
        if oldID == newID { return }
        values[index] = newID.map(StoredValue.objectID) ?? .null
        managedObjectContext?.objectDidChange(self, index: index, oldValue: oldID.map(StoredValue.objectID) ?? .null, registerUndo: registerUndo)
        guard let inverse = relationship.inverseRelationship, let context = managedObjectContext else { return }
        if let oldID { context.object(with: oldID).unlinkInverse(inverse, from: objectID) }
        if let newID { context.object(with: newID).linkInverse(inverse, to: self) }
    }

    /// Adds `added` to, or takes `removed` out of, the to-many named `key`, with change tracking,
    /// undo and the inverse kept in step. Returns false when `key` is not a to-many relationship
    /// (the caller then goes through `setValue`, which reports the problem).
    func changeToMany(_ key: String, adding added: ManagedObject? = nil, removing removed: ManagedObject? = nil) -> Bool {
        guard let index = entity.index(of: key), let relationship = entity.properties[index] as? RelationshipDescription,
              relationship.isToMany else { return false }
        var ids = relatedIDsLoaded(relationship, at: index)
        if let added, ids.contains(added.objectID) { return true }
        if let removed, !ids.contains(removed.objectID) { return true }
        // Undo of an unordered to-many undoes just this change, so filling a large one does not
        // copy its list for each object added; an ordered one's puts the list back, positions
        // and all. The slot lets go of its list first, so the change is made in place. An observed
        // object keeps its old list too, for its observers (and its undo puts that back).
        let old: StoredValue? = relationship.isOrdered || keyValueObservers != nil ? .toMany(.loaded(ids)) : nil
        values[index] = .null
        if let added { ids.insert(added.objectID) }
        if let removed { ids.remove(removed.objectID) }
        values[index] = .toMany(.loaded(ids))
        if let context = managedObjectContext {
            if let old {
                context.objectDidChange(self, index: index, oldValue: old, registerUndo: true)
            } else {
                context.markUpdated(self)
                context.undoManager?.register { [self] context in
                    _ = changeToMany(key, adding: removed, removing: added)
                    context.noteSnapshotEvent(.undoUpdate, for: self)
                }
            }
        }
        guard let inverse = relationship.inverseRelationship, let context = managedObjectContext else { return true }
        if let added { context.object(with: added.objectID).linkInverse(inverse, to: self) }
        if let removed { context.object(with: removed.objectID).unlinkInverse(inverse, from: objectID) }
        return true
    }

    func replaceToMany(_ relationship: RelationshipDescription, at index: Int, with newIDs: [ManagedObjectID], registerUndo: Bool) {
        let oldIDs = relatedIDsLoaded(relationship, at: index)
        var unique: [ManagedObjectID] = []
        var seen: Set<ManagedObjectID> = []
        for id in newIDs where seen.insert(id).inserted { unique.append(id) }
        if unique == oldIDs.ids { return }
        values[index] = .toMany(.loaded(RelatedIDs(unique)))
        managedObjectContext?.objectDidChange(self, index: index, oldValue: .toMany(.loaded(oldIDs)), registerUndo: registerUndo)
        guard let inverse = relationship.inverseRelationship, let context = managedObjectContext else { return }
        let oldSet = Set(oldIDs)
        for id in oldIDs where !seen.contains(id) { context.object(with: id).unlinkInverse(inverse, from: objectID) }
        for id in unique where !oldSet.contains(id) { context.object(with: id).linkInverse(inverse, to: self) }
    }

    /// Puts `other` into this object's side of a relationship, as the inverse of a change made on
    /// `other`. Not registered for undo: undoing the original change restores both sides.
    ///
    /// The inverse of a to-many is often large (a tag's items, while each item gets its tags), so
    /// the slot lets go of its array before the change: the append then happens in place, where a
    /// copy of every ID each time made filling such a relationship quadratic.
    func linkInverse(_ relationship: RelationshipDescription, to other: ManagedObject) {
        guard let index = entity.index(of: relationship.name) else { return }
        if relationship.isToMany {
            var ids = relatedIDsLoaded(relationship, at: index)
            guard !ids.contains(other.objectID) else { return }
            let old = keyValueObservers == nil ? nil : values[index]
            values[index] = .null
            ids.insert(other.objectID)
            values[index] = .toMany(.loaded(ids))
            managedObjectContext?.markUpdated(self)
            if let old { reportChange(at: index, from: old) }
        } else {
            if faultFlag { managedObjectContext?.fireFault(self) }
            let oldID = values[index].objectID
            guard oldID != other.objectID else { return }
            values[index] = .objectID(other.objectID)
            managedObjectContext?.markUpdated(self)
            if keyValueObservers != nil { reportChange(at: index, from: oldID.map(StoredValue.objectID) ?? .null) }
            // A one-to-one or many-to-one move: the previous partner lets go of this object.
            if let oldID, let context = managedObjectContext, let back = relationship.inverseRelationship {
                context.object(with: oldID).unlinkInverse(back, from: objectID)
            }
        }
    }

    func unlinkInverse(_ relationship: RelationshipDescription, from otherID: ManagedObjectID) {
        guard let index = entity.index(of: relationship.name) else { return }
        if relationship.isToMany {
            var ids = relatedIDsLoaded(relationship, at: index)
            guard ids.contains(otherID) else { return }
            // In place, as in `linkInverse`.
            let old = keyValueObservers == nil ? nil : values[index]
            values[index] = .null
            ids.remove(otherID)
            values[index] = .toMany(.loaded(ids))
            managedObjectContext?.markUpdated(self)
            if let old { reportChange(at: index, from: old) }
        } else {
            if faultFlag { managedObjectContext?.fireFault(self) }
            guard values[index].objectID == otherID else { return }
            values[index] = .null
            managedObjectContext?.markUpdated(self)
            if keyValueObservers != nil { reportChange(at: index, from: .objectID(otherID)) }
        }
    }

    /// Puts a slot back to a previous raw value through the tracked path (undo and redo).
    func restoreSlot(_ index: Int, to raw: StoredValue) {
        let property = entity.properties[index]
        if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                let ids: [ManagedObjectID]
                if case .toMany(.loaded(let loaded)) = raw { ids = loaded.ids } else { ids = [] }
                replaceToMany(relationship, at: index, with: ids, registerUndo: true)
            } else {
                setToOne(relationship, at: index, to: raw.objectID, registerUndo: true)
            }
        } else {
            setStoredValue(raw, at: index, registerUndo: true)
        }
    }

    /// Rewrites temporary IDs held in relationship slots after a save made them permanent.
    func remapIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        func remap(_ slot: inout StoredValue) {
            if case .objectID(let id) = slot, let new = mapping[id] {
                slot = .objectID(new)
            } else if case .toMany(.loaded(let ids)) = slot, ids.contains(where: { mapping[$0] != nil }) {
                slot = .toMany(.loaded(RelatedIDs(ids.map { mapping[$0] ?? $0 })))
            }
        }
        for index in entity.relationshipIndices {
            remap(&values[index])
            if committedValues != nil { remap(&committedValues![index]) }
        }
    }
}
