import Foundation

/// One object and key that failed validation, and why.
public struct ValidationFailure: Error, CustomStringConvertible, @unchecked Sendable {
    public var objectID: ManagedObjectID?
    public var entityName: String
    public var key: String?
    public var reason: String

    public init(object: ManagedObject, key: String?, reason: String) {
        self.objectID = object.objectID
        self.entityName = object.entity.name
        self.key = key
        self.reason = reason
    }

    public var description: String {
        "\(entityName)\(key.map { ".\($0)" } ?? "") (\(objectID.map { "\($0)" } ?? "?")): \(reason)"
    }
}

/// Every failure found by one save's validation: the save changed nothing.
public struct ValidationError: Error, CustomStringConvertible {
    public var failures: [ValidationFailure]

    public var description: String {
        "validation failed for \(failures.count) value(s):\n" + failures.map { "  - \($0)" }.joined(separator: "\n")
    }
}

/// Errors from saving, fetching and the stores behind a context.
public enum PersistenceError: Error, CustomStringConvertible {
    /// Another context or process saved these objects since they were read (optimistic locking).
    case conflict(objects: [ManagedObjectID])
    /// The store could not be read or written; `path` names it.
    case store(path: String, reason: String)
    /// A model and a store do not fit each other.
    case incompatibleModel(path: String, differences: [String])
    /// No store is added to the coordinator, or the object's store is gone.
    case noStore(String)
    /// The object with this ID no longer exists.
    case objectNotFound(ManagedObjectID)
    /// A request that cannot be carried out as asked.
    case invalidRequest(String)
    /// Deleting was refused by a Deny rule.
    case deleteDenied(ValidationFailure)
    /// Objects would share the values of a uniqueness constraint (with the `.error` merge
    /// policy, a policy's override that left the conflict in place, or a changed saved object
    /// taking another's values); nothing was written.
    case constraintConflict(entity: String, properties: [String], values: [String], objects: [ManagedObjectID])
    /// The store holds a value or row its model and layout do not allow; `StoreDamage` names
    /// the file, table, entity, row and column.
    case damagedStore(StoreDamage)

    public var description: String {
        switch self {
        case .conflict(let ids): return "save conflict: changed by someone else since read: \(ids.map(\.description).joined(separator: ", "))"
        case .store(let path, let reason): return "\(path): \(reason)"
        case .incompatibleModel(let path, let differences):
            return "\(path): the model does not fit the store:\n" + differences.map { "  - \($0)" }.joined(separator: "\n")
        case .noStore(let reason): return "no store: \(reason)"
        case .objectNotFound(let id): return "no object with ID \(id)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .deleteDenied(let failure): return "delete denied: \(failure)"
        case .constraintConflict(let entity, let properties, let values, let objects):
            return "uniqueness constraint of \(entity) (\(properties.joined(separator: ", "))): \(values.joined(separator: ", ")) is held by "
                + objects.map(\.uriString).joined(separator: " and ")
        case .damagedStore(let damage): return damage.description
        }
    }
}
