import Foundation

/// One uniqueness constraint as a save checks it: the entity that declares it and its properties.
struct UniquenessConstraint {
    let owner: EntityDescription
    let properties: [PropertyDescription]

    /// The constraints that hold for `entity`: its own and those of the entities above it.
    static func all(of entity: EntityDescription) -> [UniquenessConstraint] {
        var result: [UniquenessConstraint] = []
        var current: EntityDescription? = entity
        while let owner = current {
            for names in owner.uniquenessConstraints where !names.isEmpty {
                let properties = names.compactMap { owner.property(named: $0) }
                if properties.count == names.count { result.append(UniquenessConstraint(owner: owner, properties: properties)) }
            }
            current = owner.superentity
        }
        return result
    }

    /// The object's values of the constraint, or `nil` when one is empty (SQLite lets any number
    /// of rows leave a constrained column empty).
    func values(of object: ManagedObject) -> [StoredValue]? {
        values(in: object.values, of: object.entity)
    }

    /// `values(of:)` for the slots of an object of `entity` that is not made (a batch insert's).
    func values(in slots: [StoredValue], of entity: EntityDescription) -> [StoredValue]? {
        var values: [StoredValue] = []
        for property in properties {
            guard let index = entity.index(of: property.name), slots.indices.contains(index), !slots[index].isNull else { return nil }
            values.append(slots[index])
        }
        return values
    }

    /// For a constraint of one attribute, the positions of `candidates` (their values of it)
    /// that a saved object may hold, asked of the store for all at once; `nil` when each must be
    /// asked on its own (a constraint of several properties, or a store that cannot tell).
    func possiblyHeld(_ candidates: [[StoredValue]], in store: PersistentStore) throws -> Set<Int>? {
        guard properties.count == 1, let attribute = properties[0] as? AttributeDescription else { return nil }
        return try store.heldPositions(of: owner, attribute: attribute, among: candidates.map { $0[0] })
    }

    /// The error for `values` of this constraint held by `objects` (or given twice).
    func conflict(_ values: [StoredValue], _ objects: [ManagedObjectID]) -> PersistenceError {
        .constraintConflict(entity: owner.name, properties: properties.map(\.name), values: shown(values), objects: objects)
    }

    /// The values as an error shows them.
    func shown(_ values: [StoredValue]) -> [String] { values.map { "\($0.value ?? "nil")" } }

    /// Names the constraint itself: its entity and properties.
    var identity: String { owner.name + ":" + properties.map(\.name).joined(separator: ",") }

    func key(_ values: [StoredValue]) -> String {
        // The constraint's identity, not only its entity: two constraints of one entity whose
        // objects happen to share a value (an email equal to another's nickname) are no conflict.
        ([identity] + values.map { "\(type(of: $0.value as Any))=\($0.value ?? "")" }).joined(separator: "\u{1F}")
    }
}
