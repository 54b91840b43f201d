import Foundation

/// What kind of work a `PersistentStoreRequest` asks of a store (`NSPersistentStoreRequestType`).
public enum PersistentStoreRequestType: Sendable {
    case fetch
    case save
}

/// A request the coordinator hands an `IncrementalStore`'s `execute(_:with:)`: a
/// `FetchRequest<FetchRequestResult>`, or the `SaveChangesRequest` of a save.
public protocol PersistentStoreRequest: AnyObject {
    var requestType: PersistentStoreRequestType { get }
}

/// One save's changes as an `IncrementalStore` receives them (`NSSaveChangesRequest`). The objects
/// are the saving context's, their IDs already permanent; a store writes them all or throws.
public final class SaveChangesRequest: PersistentStoreRequest, @unchecked Sendable {
    public let insertedObjects: Set<ManagedObject>
    public let updatedObjects: Set<ManagedObject>
    public let deletedObjects: Set<ManagedObject>
    /// Objects whose versions must still match without being written (none are locked here).
    public let lockedObjects: Set<ManagedObject>
    public var requestType: PersistentStoreRequestType { .save }

    public init(inserting inserted: Set<ManagedObject>, updating updated: Set<ManagedObject>,
                deleting deleted: Set<ManagedObject>, locking locked: Set<ManagedObject> = []) {
        insertedObjects = inserted
        updatedObjects = updated
        deletedObjects = deleted
        lockedObjects = locked
    }
}
