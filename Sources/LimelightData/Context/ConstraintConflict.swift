import Foundation

/// Objects that would share the values of a uniqueness constraint, as a save hands them to the
/// merge policy: Core Data's `NSConstraintConflict`.
///
/// A save finds them in two rounds, each handed to the policy on its own: first new objects of
/// this context with the same values as each other (`databaseObject` is `nil`, and
/// `conflictingObjects` lists them in the order they were made), then a new object whose values a
/// saved object already holds (`conflictingObjects` is that one new object, `databaseObject` the
/// saved one). The thrown form of a conflict is `PersistenceError.constraintConflict`.
public final class ConstraintConflict: CustomStringConvertible {
    /// The names of the constraint's properties.
    public let constraint: [String]
    /// The values the objects share, by property name (a to-one as its `ManagedObjectID`).
    public let constraintValues: [String: Any]
    /// The new objects of this context that hold the values.
    public let conflictingObjects: [ManagedObject]
    /// The values each of `conflictingObjects` was last saved with: empty for a new object.
    public let conflictingSnapshots: [[AnyHashable: Any]]
    /// The saved object's values as the store holds them, when a saved object holds the values.
    public let databaseSnapshot: [String: Any]?

    /// The uniqueness constraint, for settling and for the error.
    let uniqueness: UniquenessConstraint
    /// The saved object's row, when a saved object holds the values.
    let databaseRow: StoreRow?
    /// The error the conflict is reported as: the saved object (if any) and the new ones, by the
    /// IDs they had when it was found.
    let error: PersistenceError
    /// The saving context, which settles the conflict.
    private(set) weak var context: ManagedObjectContext?
    /// Objects that left for another while the conflict was settled, and the one each became:
    /// relationships to them are pointed there at the end of the save's constraint check.
    var replacements: [ManagedObjectID: ManagedObjectID] = [:]

    init(_ uniqueness: UniquenessConstraint, values: [StoredValue], objects: [ManagedObject], row: StoreRow?, context: ManagedObjectContext) {
        constraint = uniqueness.properties.map(\.name)
        var named: [String: Any] = [:]
        for (property, value) in zip(uniqueness.properties, values) { named[property.name] = value.value ?? NSNull() }
        constraintValues = named
        conflictingObjects = objects
        conflictingSnapshots = objects.map { object -> [AnyHashable: Any] in
            object.committedValues.map { MergeConflict.snapshot($0, of: object.entity) } ?? [:]
        }
        databaseSnapshot = row.map { MergeConflict.snapshot($0.values, of: $0.id.entity) }
        self.uniqueness = uniqueness
        databaseRow = row
        let ids = objects.map(\.objectID)
        error = uniqueness.conflict(values, row.map { [$0.id] + ids.prefix(1) } ?? Array(ids.prefix(2)))
        self.context = context
    }

    /// The saved object that holds the values, as an object of the saving context: the one the
    /// context holds, or else one registered when first asked for (a fault until its values are
    /// read), which the conflict keeps, so the merge policy's settling finds it and the new
    /// object goes into it. `nil` when only new objects conflict.
    public var databaseObject: ManagedObject? {
        if let asked { return asked }
        guard let id = databaseRow?.id, let context else { return nil }
        asked = context.object(with: id)
        return asked
    }
    private var asked: ManagedObject?

    public var description: String {
        let values = constraint.map { "\($0) = \(constraintValues[$0] ?? "nil")" }.joined(separator: ", ")
        return "ConstraintConflict on \(uniqueness.owner.name) (\(values)) for \(conflictingObjects.map(\.objectID))"
            + (databaseRow.map { " against \($0.id)" } ?? "")
    }
}
