import Foundation

/// The codes Core Data gives its errors (`NSManagedObjectMergeError` …), which this framework's
/// errors carry when bridged to `NSError`, in `NSCocoaErrorDomain` as Core Data's are. Code
/// written for Core Data tests them (`(error as NSError).code == NSManagedObjectMergeError`);
/// here that reads `(error as NSError).code == PersistenceErrorCode.managedObjectMerge`.
/// Matching the typed error (`catch PersistenceError.conflict`) says the same and more.
public enum PersistenceErrorCode {
    /// One value failed validation (`NSManagedObjectValidationError`).
    public static let managedObjectValidation = 1550
    /// Several values failed; `NSDetailedErrors` in the user info lists them
    /// (`NSValidationMultipleErrorsError`).
    public static let validationMultipleErrors = 1560
    /// A Deny delete rule refused a deletion (`NSValidationRelationshipDeniedDeleteError`).
    public static let validationRelationshipDeniedDelete = 1600
    /// The object is gone from its store (`NSManagedObjectReferentialIntegrityError`).
    public static let managedObjectReferentialIntegrity = 133_000
    /// A save lost a race with another writer (`NSManagedObjectMergeError`).
    public static let managedObjectMerge = 133_020
    /// A save would break a uniqueness constraint (`NSManagedObjectConstraintMergeError`).
    public static let managedObjectConstraintMerge = 133_021
    /// A request that cannot be carried out, or no store to carry it out (`NSCoreDataError`).
    public static let coreData = 134_060
    /// A store could not be read or written (`NSPersistentStoreOperationError`).
    public static let persistentStoreOperation = 134_070
    /// The model does not fit the store (`NSPersistentStoreIncompatibleVersionHashError`).
    public static let persistentStoreIncompatibleVersionHash = 134_100
    /// The store holds what its model does not allow (Foundation's `NSFileReadCorruptFileError`).
    public static let fileReadCorruptFile = 259
}

extension PersistenceError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    public var errorCode: Int {
        switch self {
        case .conflict: return PersistenceErrorCode.managedObjectMerge
        case .constraintConflict: return PersistenceErrorCode.managedObjectConstraintMerge
        case .store: return PersistenceErrorCode.persistentStoreOperation
        case .incompatibleModel: return PersistenceErrorCode.persistentStoreIncompatibleVersionHash
        case .noStore, .invalidRequest: return PersistenceErrorCode.coreData
        case .objectNotFound: return PersistenceErrorCode.managedObjectReferentialIntegrity
        case .deleteDenied: return PersistenceErrorCode.validationRelationshipDeniedDelete
        case .damagedStore: return PersistenceErrorCode.fileReadCorruptFile
        }
    }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}

extension ValidationError {
    /// The user info key of the errors a multiple-errors validation error holds (Core Data's
    /// `NSDetailedErrorsKey`, and its value).
    public static let detailedErrorsKey = "NSDetailedErrors"
    /// The user info key of the property a validation error is about (Core Data's
    /// `NSValidationKeyErrorKey`, and its value).
    public static let validationKeyErrorKey = "NSValidationErrorKey"
}

extension ValidationFailure: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }
    public var errorCode: Int { PersistenceErrorCode.managedObjectValidation }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        info[ValidationError.validationKeyErrorKey] = key
        return info
    }
}

extension ValidationError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// Core Data's code for one failure, or for several (whose errors `NSDetailedErrors` holds).
    public var errorCode: Int {
        failures.count == 1 ? PersistenceErrorCode.managedObjectValidation : PersistenceErrorCode.validationMultipleErrors
    }

    public var errorUserInfo: [String: Any] {
        if failures.count == 1, let failure = failures.first { return failure.errorUserInfo }
        // An application's own errors are listed as they were thrown, as Core Data lists them.
        return [NSLocalizedDescriptionKey: description, Self.detailedErrorsKey: errors.map { $0 as NSError }]
    }
}
