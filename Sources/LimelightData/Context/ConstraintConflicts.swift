import Foundation

extension ManagedObjectContext {
    /// Before a save writes: new objects whose uniqueness-constrained values another new object,
    /// or a saved object, already holds, settled as Core Data's merge policies settle constraint
    /// conflicts, or reported by `.error` naming the objects and values.
    ///
    /// Two new objects with the same values become one: the first made, its empty values filled
    /// from the other. A new object whose values a saved object holds becomes that object: with
    /// `.mergeByPropertyObjectTrump` its own values win where it has them; with `.overwrite` all
    /// of them; with `.mergeByPropertyStoreTrump` the saved ones win where the store has them;
    /// with `.rollback` the saved object stays as it was. To-many relationships of both are kept.
    /// Relationships to an object that went now point at the one that stayed. A changed saved
    /// object taking another's values is always an error.
    func settleConstraintConflicts(_ coordinator: PersistentStoreCoordinator) throws {
        guard coordinator.managedObjectModel.hasUniquenessConstraints else { return }
        var constraintsByEntity: [ObjectIdentifier: [UniquenessConstraint]] = [:]
        func constraints(_ entity: EntityDescription) -> [UniquenessConstraint] {
            if let known = constraintsByEntity[ObjectIdentifier(entity)] { return known }
            let found = UniquenessConstraint.all(of: entity)
            constraintsByEntity[ObjectIdentifier(entity)] = found
            return found
        }
        // New objects in the order they were made, so "the first" is well defined.
        let inserted = insertedSet.filter { !constraints($0.entity).isEmpty }.sorted { $0.objectID.creationOrder < $1.objectID.creationOrder }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        var holders: [String: ManagedObject] = [:]
        for object in inserted {
            for constraint in constraints(object.entity) {
                guard object.insertedFlag, let values = constraint.values(of: object) else { continue }
                let key = constraint.key(values)
                if let first = holders[key] {
                    guard mergePolicy != .error else { throw constraint.conflict(values, [first.objectID, object.objectID]) }
                    absorb(object, into: first, taking: .emptyOnes)
                    mapping[object.objectID] = first.objectID
                } else {
                    holders[key] = object
                }
            }
        }
        // For constraints of one attribute, which new objects' values the store may hold, asked
        // once per constraint for all of them; the others are not looked up one by one.
        var mayBeHeld: [String: Set<ObjectIdentifier>] = [:]
        var asked: Set<String> = []
        for object in inserted where object.insertedFlag {
            for constraint in constraints(object.entity) where asked.insert(constraint.identity).inserted {
                let candidates = inserted.compactMap { other in
                    other.insertedFlag && other.entity.isKind(of: constraint.owner) ? constraint.values(of: other).map { (other, $0) } : nil
                }
                let store = try coordinator.withStores { try coordinator.store(forNew: object.entity) }
                guard let held = try coordinator.withStores({ try constraint.possiblyHeld(candidates.map(\.1), in: store) }) else { continue }
                mayBeHeld[constraint.identity] = Set(held.map { ObjectIdentifier(candidates[$0].0) })
            }
        }
        for object in inserted where object.insertedFlag {
            for constraint in constraints(object.entity) {
                guard let values = constraint.values(of: object),
                      mayBeHeld[constraint.identity].map({ $0.contains(ObjectIdentifier(object)) }) ?? true,
                      let row = try coordinator.withStores({
                          try coordinator.store(forNew: object.entity).row(of: constraint.owner, matching: constraint.properties, values: values)
                      }) else { continue }
                let saved = registry.object(for: row.id)
                // Deleted in this save: the deletion is written before the insertion.
                if saved?.deletedFlag == true { continue }
                guard mergePolicy != .error else { throw constraint.conflict(values, [row.id, object.objectID]) }
                let temporary = object.objectID
                if let saved {
                    if saved.faultFlag { fireFault(saved) }
                    absorb(object, into: saved, taking: ValueTaking(mergePolicy))
                } else {
                    try become(object, row: row, coordinator: coordinator)
                }
                mapping[temporary] = row.id
                break
            }
        }
        // A changed saved object may not take values another saved object holds.
        for object in updatedSet where !object.faultFlag {
            for constraint in constraints(object.entity) {
                guard let values = constraint.values(of: object),
                      let row = try coordinator.withStores({
                          try coordinator.store(for: object.objectID).row(of: constraint.owner, matching: constraint.properties, values: values)
                      }),
                      row.id != object.objectID, registry.object(for: row.id)?.deletedFlag != true else { continue }
                throw constraint.conflict(values, [row.id, object.objectID])
            }
        }
        if !mapping.isEmpty { remapRegisteredObjects(with: mapping) }
    }

    /// Which of a departing object's values the object that stays takes.
    private enum ValueTaking {
        /// All of them, empty ones too (`.overwrite`).
        case all
        /// Those it has (`.mergeByPropertyObjectTrump`).
        case given
        /// Those it has where the other has none (`.mergeByPropertyStoreTrump`, two new objects).
        case emptyOnes
        /// None (`.rollback`).
        case none

        init(_ policy: MergePolicy) {
            switch policy {
            case .overwrite: self = .all
            case .mergeByPropertyObjectTrump: self = .given
            case .mergeByPropertyStoreTrump, .error: self = .emptyOnes
            case .rollback: self = .none
            }
        }

        func takes(_ value: StoredValue, over current: StoredValue) -> Bool {
            switch self {
            case .all: return true
            case .given: return !value.isNull
            case .emptyOnes: return !value.isNull && current.isNull
            case .none: return false
            }
        }
    }

    /// `object` leaves the context for `survivor`, which takes its values as `taking` says;
    /// to-many members of both stay.
    private func absorb(_ object: ManagedObject, into survivor: ManagedObject, taking: ValueTaking) {
        for index in object.values.indices where index < survivor.values.count {
            let mine = object.values[index]
            if case .toMany(.loaded(let added)) = mine {
                let relationship = survivor.entity.properties[index] as? RelationshipDescription
                var ids = relationship.map { survivor.relatedIDsLoaded($0, at: index) } ?? []
                for id in added { ids.insert(id) }
                survivor.values[index] = .toMany(.loaded(ids))
                continue
            }
            if taking.takes(mine, over: survivor.values[index]) { survivor.values[index] = mine }
        }
        markUpdated(survivor)
        insertedSet.remove(object)
        pendingInserted.remove(object)
        unregister(object)
        retainedObjects?.remove(object)
        object.insertedFlag = false
        object.managedObjectContext = nil
    }

    /// A new object takes the identity of the saved `row`: it is that object now, changed, its
    /// values settled with the row's by the merge policy (as if it had read the row empty).
    private func become(_ object: ManagedObject, row: StoreRow, coordinator: PersistentStoreCoordinator) throws {
        reregister(object, as: row.id)
        insertedSet.remove(object)
        object.insertedFlag = false
        object.updatedFlag = true
        updatedSet.insert(object)
        var read = object.entityLayout.emptyValues
        for index in read.indices where object.entityLayout.kinds[index] == .toMany {
            read[index] = .toMany(.fault)
            // The saved object's members stay, the new object's join them.
            if case .toMany(.loaded(let added)) = object.values[index],
               let relationship = object.entity.properties[index] as? RelationshipDescription {
                var ids = RelatedIDs(try askingStores(coordinator) { try coordinator.store(for: row.id).relatedIDs(of: row.id, relationship: relationship) })
                for id in added { ids.insert(id) }
                object.values[index] = .toMany(.loaded(ids))
            }
        }
        object.committedValues = read
        try settleConflicts([row.id], coordinator: coordinator)
    }
}
