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
                    guard mergePolicy != .error else { throw conflict(constraint, values, [first.objectID, object.objectID]) }
                    absorb(object, into: first, fillingOnly: true)
                    mapping[object.objectID] = first.objectID
                } else {
                    holders[key] = object
                }
            }
        }
        // Constraints of one attribute: which values the store holds, asked for all at once.
        var held: [String: Set<String>] = [:]
        for object in inserted where object.insertedFlag {
            for constraint in constraints(object.entity) where constraint.properties.count == 1 {
                let name = constraint.owner.name + "." + constraint.properties[0].name
                guard held[name] == nil, let attribute = constraint.properties[0] as? AttributeDescription else { continue }
                let values = inserted.filter { $0.insertedFlag && $0.entity.isKind(of: constraint.owner) }.compactMap { constraint.values(of: $0)?.first }
                held[name] = try coordinator.withStores {
                    try coordinator.store(forNew: object.entity).heldValues(of: constraint.owner, attribute: attribute, among: values)
                }
            }
        }
        func mayBeHeld(_ constraint: UniquenessConstraint, _ values: [StoredValue]) -> Bool {
            guard constraint.properties.count == 1, let attribute = constraint.properties[0] as? AttributeDescription,
                  let known = held[constraint.owner.name + "." + attribute.name],
                  let text = try? SQLiteValueMapping.sqlValue(values[0], for: attribute).description else { return true }
            return known.contains(text)
        }
        for object in inserted where object.insertedFlag {
            for constraint in constraints(object.entity) {
                guard let values = constraint.values(of: object), mayBeHeld(constraint, values),
                      let row = try coordinator.withStores({
                          try coordinator.store(forNew: object.entity).row(of: constraint.owner, matching: constraint.properties, values: values)
                      }) else { continue }
                let saved = registry.object(for: row.id)
                // Deleted in this save: the deletion is written before the insertion.
                if saved?.deletedFlag == true { continue }
                guard mergePolicy != .error else { throw conflict(constraint, values, [row.id, object.objectID]) }
                let temporary = object.objectID
                if let saved {
                    if saved.faultFlag { fireFault(saved) }
                    absorb(object, into: saved, fillingOnly: mergePolicy == .mergeByPropertyStoreTrump || mergePolicy == .rollback,
                           keepingAll: mergePolicy == .rollback, overwriting: mergePolicy == .overwrite)
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
                throw conflict(constraint, values, [row.id, object.objectID])
            }
        }
        if !mapping.isEmpty { remapRegisteredObjects(with: mapping) }
    }

    private func conflict(_ constraint: UniquenessConstraint, _ values: [StoredValue], _ ids: [ManagedObjectID]) -> PersistenceError {
        .constraintConflict(entity: constraint.owner.name, properties: constraint.properties.map(\.name),
                            values: values.map { "\($0.value ?? "nil")" }, objects: ids)
    }

    /// `object` leaves the context for `survivor`, whose values it fills (only its empty ones
    /// with `fillingOnly`, none with `keepingAll`, all it has with `overwriting`, else the ones
    /// it has); to-many members of both stay.
    private func absorb(_ object: ManagedObject, into survivor: ManagedObject, fillingOnly: Bool,
                        keepingAll: Bool = false, overwriting: Bool = false) {
        for index in object.values.indices where index < survivor.values.count {
            let mine = object.values[index]
            if case .toMany(.loaded(let added)) = mine {
                let relationship = survivor.entity.properties[index] as? RelationshipDescription
                var ids = relationship.map { survivor.relatedIDsLoaded($0, at: index) } ?? []
                for id in added { ids.insert(id) }
                survivor.values[index] = .toMany(.loaded(ids))
                continue
            }
            if keepingAll { continue }
            if overwriting || (!mine.isNull && (!fillingOnly || survivor.values[index].isNull)) { survivor.values[index] = mine }
        }
        markUpdated(survivor)
        insertedSet.remove(object)
        pendingInserted.remove(object)
        registry.remove(object)
        object.insertedFlag = false
        object.managedObjectContext = nil
    }

    /// A new object takes the identity of the saved `row`: it is that object now, changed, its
    /// values settled with the row's by the merge policy (as if it had read the row empty).
    private func become(_ object: ManagedObject, row: StoreRow, coordinator: PersistentStoreCoordinator) throws {
        registry.remove(object)
        object.objectID = row.id
        registry.insert(object)
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
                var ids = RelatedIDs(try coordinator.withStores { try coordinator.store(for: row.id).relatedIDs(of: row.id, relationship: relationship) })
                for id in added { ids.insert(id) }
                object.values[index] = .toMany(.loaded(ids))
            }
        }
        object.committedValues = read
        try settleConflicts([row.id], coordinator: coordinator)
    }
}
