import Foundation

extension ManagedObjectContext {
    /// Before a save writes: new objects whose uniqueness-constrained values another new object,
    /// or a saved object, already holds, handed to the merge policy in two rounds (new objects
    /// among themselves, then new objects against saved ones), which settles them or throws (see
    /// `MergePolicy.resolve(constraintConflicts:)`). A conflict a subclass's resolving leaves in
    /// place fails the save. A changed saved object taking another's values is always an error.
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
        func newObjects() -> [ManagedObject] {
            insertedSet.filter { !constraints($0.entity).isEmpty }.sorted { $0.objectID.creationOrder < $1.objectID.creationOrder }
        }
        var raised: [ConstraintConflict] = []
        // Relationships to an object that went point at the one that stayed, even when a later
        // round fails the save.
        defer {
            var mapping: [ManagedObjectID: ManagedObjectID] = [:]
            for conflict in raised { mapping.merge(conflict.replacements) { first, _ in first } }
            remapRegisteredObjects(with: mapping)
        }
        var inserted = newObjects()
        let alike = sharedValueConflicts(among: inserted, constraints: constraints)
        if !alike.isEmpty {
            raised += alike
            try resolve(alike) { sharedValueConflicts(among: newObjects(), constraints: constraints) }
            inserted = newObjects()
        }
        let held = try heldValueConflicts(of: inserted, constraints: constraints, coordinator: coordinator)
        if !held.isEmpty {
            raised += held
            try resolve(held) { try heldValueConflicts(of: newObjects(), constraints: constraints, coordinator: coordinator) }
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
    }

    /// Hands one round of conflicts to the merge policy. What a subclass settled is checked
    /// again: a conflict still there fails the save as with `.error`. (The class's own settling
    /// leaves none, and is not checked.)
    private func resolve(_ conflicts: [ConstraintConflict], remaining: () throws -> [ConstraintConflict]) throws {
        try mergePolicy.resolve(mergeConflicts: conflicts)
        guard type(of: mergePolicy) != MergePolicy.self else { return }
        // Deletions the policy made run their rules before the check.
        if !unpropagatedDeletes.isEmpty { propagatePendingDeletes() }
        if let left = try remaining().first { throw left.error }
    }

    /// New objects with the same values of a constraint: one conflict per values, its objects in
    /// the order they were made, the conflicts in the order their second objects were made. An
    /// object is in one conflict at most.
    private func sharedValueConflicts(among inserted: [ManagedObject],
                                      constraints: (EntityDescription) -> [UniquenessConstraint]) -> [ConstraintConflict] {
        var holders: [String: ManagedObject] = [:]
        var groups: [String: (constraint: UniquenessConstraint, values: [StoredValue], objects: [ManagedObject])] = [:]
        var order: [String] = []
        for object in inserted {
            for constraint in constraints(object.entity) {
                guard let values = constraint.values(of: object) else { continue }
                let key = constraint.key(values)
                guard let first = holders[key] else {
                    holders[key] = object
                    continue
                }
                if groups[key] == nil { order.append(key) }
                groups[key, default: (constraint, values, [first])].objects.append(object)
                break
            }
        }
        return order.compactMap { key in
            groups[key].map { ConstraintConflict($0.constraint, values: $0.values, objects: $0.objects, row: nil, context: self) }
        }
    }

    /// New objects whose values of a constraint a saved object holds: one conflict per new
    /// object, for the first of its constraints that is held. A saved object deleted in this
    /// save holds nothing (its deletion is written before the insertion).
    private func heldValueConflicts(of inserted: [ManagedObject], constraints: (EntityDescription) -> [UniquenessConstraint],
                                    coordinator: PersistentStoreCoordinator) throws -> [ConstraintConflict] {
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
        var conflicts: [ConstraintConflict] = []
        for object in inserted where object.insertedFlag {
            for constraint in constraints(object.entity) {
                guard let values = constraint.values(of: object),
                      mayBeHeld[constraint.identity].map({ $0.contains(ObjectIdentifier(object)) }) ?? true,
                      let row = try coordinator.withStores({
                          try coordinator.store(forNew: object.entity).row(of: constraint.owner, matching: constraint.properties, values: values)
                      }),
                      registry.object(for: row.id)?.deletedFlag != true else { continue }
                conflicts.append(ConstraintConflict(constraint, values: values, objects: [object], row: row, context: self))
                break
            }
        }
        return conflicts
    }

    /// `MergePolicy`'s own settling of constraint conflicts by `type` (never
    /// `.errorMergePolicyType`, which throws first). Conflicts of other contexts are left alone.
    func settle(_ conflicts: [ConstraintConflict], as type: MergePolicyType) throws {
        func isNewHere(_ object: ManagedObject) -> Bool { object.insertedFlag && object.managedObjectContext === self }
        // New objects alike: each later one goes into the first still here, one by one in the
        // order they were made. One that went already stands for the one it went into.
        var pairs: [(conflict: ConstraintConflict, object: ManagedObject)] = []
        for conflict in conflicts where conflict.context === self && conflict.databaseRow == nil {
            for object in conflict.conflictingObjects.dropFirst() { pairs.append((conflict, object)) }
        }
        pairs.sort { $0.object.objectID.creationOrder < $1.object.objectID.creationOrder }
        var wentInto: [ObjectIdentifier: ManagedObject] = [:]
        func staying(_ object: ManagedObject) -> ManagedObject {
            var current = object
            while let next = wentInto[ObjectIdentifier(current)] { current = next }
            return current
        }
        for (conflict, object) in pairs where isNewHere(object) {
            guard let survivor = conflict.conflictingObjects.lazy.map(staying).first(where: { $0 !== object && isNewHere($0) }) else { continue }
            conflict.replacements[object.objectID] = survivor.objectID
            wentInto[ObjectIdentifier(object)] = survivor
            absorb(object, into: survivor, taking: .emptyOnes)
        }
        // A new object against a saved one: it becomes that object.
        for conflict in conflicts where conflict.context === self {
            guard let row = conflict.databaseRow, let object = conflict.conflictingObjects.first, isNewHere(object) else { continue }
            let saved = registry.object(for: row.id)
            if saved?.deletedFlag == true { continue }
            let temporary = object.objectID
            if let saved {
                if saved.faultFlag { fireFault(saved) }
                absorb(object, into: saved, taking: ValueTaking(type))
            } else {
                try become(object, row: row, as: type)
            }
            conflict.replacements[temporary] = row.id
        }
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

        init(_ type: MergePolicyType) {
            switch type {
            case .overwriteMergePolicyType: self = .all
            case .mergeByPropertyObjectTrumpMergePolicyType: self = .given
            case .mergeByPropertyStoreTrumpMergePolicyType, .errorMergePolicyType: self = .emptyOnes
            case .rollbackMergePolicyType: self = .none
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
    /// values settled with the row's by `type` (as if it had read the row empty).
    private func become(_ object: ManagedObject, row: StoreRow, as type: MergePolicyType) throws {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
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
        try settleConflicts([row.id], coordinator: coordinator, as: type)
    }
}
