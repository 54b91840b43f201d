import Foundation

/// One object and key that failed validation, and why.
public struct ValidationFailure: Error, CustomStringConvertible, @unchecked Sendable {
    public var objectID: ManagedObjectID?
    public var entityName: String
    public var key: String?
    public var reason: String
    /// The error the application's own check threw (a `validateForInsert()`, `validateForUpdate()`,
    /// `validateForDelete()` or `validateValue(_:forKey:)` override), as it was thrown: `nil` for
    /// the model's rules. `reason` is its text.
    public var error: (any Error)?

    public init(object: ManagedObject, key: String?, reason: String) {
        self.objectID = object.objectID
        self.entityName = object.entity.name
        self.key = key
        self.reason = reason
    }

    /// A failure carrying an error an application's check threw.
    public init(object: ManagedObject, key: String?, error: any Error) {
        self.init(object: object, key: key, reason: "\(error)")
        self.error = error
    }

    public var description: String {
        "\(entityName)\(key.map { ".\($0)" } ?? "") (\(objectID.map { "\($0)" } ?? "?")): \(reason)"
    }

    /// The failures an error thrown by one of `object`'s validation methods stands for: a
    /// `ValidationFailure` or `ValidationError` as they are, Core Data's multiple-errors error
    /// (code 1560) as each error its `NSDetailedErrors` lists, anything else as one failure
    /// that keeps the error.
    static func failures(from error: any Error, object: ManagedObject, key: String?) -> [ValidationFailure] {
        switch error {
        case let failure as ValidationFailure: return [failure]
        case let validation as ValidationError: return validation.failures
        default:
            let bridged = error as NSError
            if bridged.domain == NSCocoaErrorDomain, bridged.code == PersistenceErrorCode.validationMultipleErrors,
               let detailed = bridged.userInfo[ValidationError.detailedErrorsKey] as? [any Error], !detailed.isEmpty {
                return detailed.flatMap { failures(from: $0, object: object, key: key) }
            }
            return [ValidationFailure(object: object, key: key, error: error)]
        }
    }
}

/// Every failure found by one save's validation: the save changed nothing.
///
/// A save with one failure that an application's own check threw throws that error itself, as
/// Core Data does, so `catch` matches it by its type; with several, it throws this, and
/// `errors` (or `NSDetailedErrors` when bridged to `NSError`) holds each as it was thrown.
public struct ValidationError: Error, CustomStringConvertible {
    public var failures: [ValidationFailure]

    public init(failures: [ValidationFailure]) {
        self.failures = failures
    }

    /// Each failure's error: what the application's check threw, or the failure itself for the
    /// model's rules.
    public var errors: [any Error] { failures.map { $0.error ?? $0 } }

    public var description: String {
        "validation failed for \(failures.count) value(s):\n" + failures.map { "  - \($0)" }.joined(separator: "\n")
    }

    /// What a save whose validation found `failures` throws: an application's error itself when
    /// it is the only one, as in Core Data; this error otherwise.
    static func thrownBySave(_ failures: [ValidationFailure]) -> any Error {
        if failures.count == 1, let own = failures[0].error { return own }
        return ValidationError(failures: failures)
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
