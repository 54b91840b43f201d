import Foundation

/// Where one dictionary of a batch insert went.
private enum UpsertTarget {
    case inserted(Int)
    case updated(Int)
    case existing(ManagedObjectID)
}

extension ManagedObjectContext {
    /// A batch insert into an entity with uniqueness constraints: a dictionary whose constrained
    /// values a saved object holds updates that object instead, as Core Data's batch insert does,
    /// by the context's merge policy: `.mergeByPropertyObjectTrump` writes the values the
    /// dictionary gives, `.overwrite` all of its values (defaults for the rest), the store-first
    /// policies leave the saved object as it is, and `.error` refuses the request, naming the
    /// dictionary. Dictionaries with the same values make one object, later ones merged into it
    /// the same way. Returns the object of each dictionary, each once, in order. Only the policy's
    /// `mergeType` counts: a batch insert makes no objects to hand to its `resolve` methods.
    func upsert(_ snapshots: [ObjectSnapshot], given: [[Int]], entity: EntityDescription,
                constraints: [UniquenessConstraint], store: PersistentStore) throws -> [ManagedObjectID] {
        let policyType = mergePolicy.mergeType
        let writesValues = policyType == .mergeByPropertyObjectTrumpMergePolicyType || policyType == .overwriteMergePolicyType
        // Per constraint of one attribute, which dictionaries' values the store may hold, asked
        // for all at once; the others are not looked up one by one.
        var mayBeHeld: [Int: Set<Int>] = [:]
        for (number, constraint) in constraints.enumerated() {
            let candidates = snapshots.indices.compactMap { row in constraint.values(in: snapshots[row].values, of: entity).map { (row, $0) } }
            guard let held = try constraint.possiblyHeld(candidates.map(\.1), in: store) else { continue }
            mayBeHeld[number] = Set(held.map { candidates[$0].0 })
        }
        var inserted: [ObjectSnapshot] = [], updated: [ObjectSnapshot] = []
        var targets: [UpsertTarget] = []
        var byKey: [String: UpsertTarget] = [:]
        for (row, snapshot) in snapshots.enumerated() {
            let slots = policyType == .overwriteMergePolicyType ? Array(snapshot.values.indices) : given[row]
            // To-manys are not written by an update: they stay as the store has them.
            let written = slots.filter { !isToMany($0, entity) }
            var target: UpsertTarget?
            var fromEarlier = false
            var keys: [String] = []
            for (number, constraint) in constraints.enumerated() {
                guard let values = constraint.values(in: snapshot.values, of: entity) else { continue }
                let key = constraint.key(values)
                keys.append(key)
                if let earlier = byKey[key] {
                    guard policyType != .errorMergePolicyType else {
                        throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): "
                            + "\(constraint.properties.map(\.name).joined(separator: ", ")) \(constraint.shown(values).joined(separator: ", ")) "
                            + "is given twice, and the merge policy is .error")
                    }
                    target = earlier
                    fromEarlier = true
                    break
                }
                guard mayBeHeld[number].map({ $0.contains(row) }) ?? true,
                      let saved = try store.row(of: constraint.owner, matching: constraint.properties, values: values) else { continue }
                guard policyType != .errorMergePolicyType else { throw constraint.conflict(values, [saved.id]) }
                if writesValues {
                    var values = saved.values
                    for slot in written { values[slot] = snapshot.values[slot] }
                    updated.append(ObjectSnapshot(id: saved.id, values: values, version: saved.version,
                                                  changed: written, committedValues: saved.values))
                    target = .updated(updated.count - 1)
                } else {
                    target = .existing(saved.id)
                }
                break
            }
            switch target {
            case .inserted(let index)? where fromEarlier && writesValues:
                var values = inserted[index].values
                for slot in slots { values[slot] = snapshot.values[slot] }
                inserted[index] = ObjectSnapshot(id: inserted[index].id, values: values, version: 0, changed: [])
            case .updated(let index)? where fromEarlier && writesValues:
                var values = updated[index].values
                for slot in written { values[slot] = snapshot.values[slot] }
                let changed = Array(Set(updated[index].changed + written)).sorted()
                updated[index] = ObjectSnapshot(id: updated[index].id, values: values, version: updated[index].version,
                                                changed: changed, committedValues: updated[index].committedValues)
            case nil:
                inserted.append(snapshot)
                target = .inserted(inserted.count - 1)
            default:
                break
            }
            for key in keys where byKey[key] == nil { byKey[key] = target }
            if let target { targets.append(target) }
        }
        let permanent = try store.save(SaveChanges(inserted: inserted, updated: updated, origin: origin))
        var seen: Set<ManagedObjectID> = []
        return targets.compactMap { target -> ManagedObjectID? in
            let id: ManagedObjectID
            switch target {
            case .inserted(let index): id = permanent[index]
            case .updated(let index): id = updated[index].id
            case .existing(let existing): id = existing
            }
            return seen.insert(id).inserted ? id : nil
        }
    }

    private func isToMany(_ slot: Int, _ entity: EntityDescription) -> Bool {
        (entity.properties[slot] as? RelationshipDescription)?.isToMany ?? false
    }
}
