import Foundation

/// The notifications a context posts, under Core Data's names and with its raw values, so code
/// that observes `NSManagedObjectContextDidSave` and friends reads the same here.
extension ManagedObjectContext {
    /// Posted when the context processed changes (`processPendingChanges()`, a save, an undo, a
    /// merge): user info `inserted`, `updated`, `deleted`, each a `Set<ManagedObject>`.
    public static let didChangeObjectsNotification = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted before a save writes, with the objects it is about to write under `inserted`,
    /// `updated` and `deleted` (Core Data's has no user info).
    public static let willSaveObjectsNotification = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted after a save wrote: user info `inserted`, `updated`, `deleted`, each a
    /// `Set<ManagedObject>`, the saving context's objects.
    public static let didSaveObjectsNotification = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted after every save with the IDs it wrote: safe to hand to a context on another queue.
    /// User info `inserted_objectIDs`, `updated_objectIDs`, `deleted_objectIDs` (and, as earlier,
    /// `insertedObjectIDs` …), each a `Set<ManagedObjectID>`, as Core Data's.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after the context merged changes saved elsewhere (automatically or by
    /// `mergeChanges`): user info `inserted_objectIDs`, `updated_objectIDs`, `deleted_objectIDs`,
    /// each a `Set<ManagedObjectID>` of the objects the merge reached in this context.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// Earlier names of the notifications above.
    public static let objectsDidChangeNotification = didChangeObjectsNotification
    public static let willSaveNotification = willSaveObjectsNotification
    public static let didSaveNotification = didSaveObjectsNotification

    /// The keys of the notifications' user info, with Core Data's raw values
    /// (`NSInsertedObjectsKey` is `NotificationKey.insertedObjects.rawValue`, and so on).
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        /// Not posted by this framework: merged objects are reported as updated.
        case refreshedObjects = "refreshed"
        /// Not posted by this framework.
        case invalidatedObjects = "invalidated"
        /// Not posted by this framework.
        case invalidatedAllObjects = "invalidatedAll"
        case insertedObjectIDs = "inserted_objectIDs"
        case updatedObjectIDs = "updated_objectIDs"
        case deletedObjectIDs = "deleted_objectIDs"
        /// Not posted by this framework.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// Not posted by this framework.
        case invalidatedObjectIDs = "invalidated_objectIDs"
        /// Not posted by this framework.
        case queryGeneration = "newQueryGeneration"
    }

    /// User info for `didSaveObjectIDsNotification`: Core Data's keys and this framework's
    /// earlier ones, with the same sets.
    static func objectIDsUserInfo(inserted: [ManagedObjectID], updated: [ManagedObjectID], deleted: [ManagedObjectID]) -> [AnyHashable: Any] {
        let inserted = Set(inserted), updated = Set(updated), deleted = Set(deleted)
        return [
            NotificationKey.insertedObjectIDs.rawValue: inserted,
            NotificationKey.updatedObjectIDs.rawValue: updated,
            NotificationKey.deletedObjectIDs.rawValue: deleted,
            "insertedObjectIDs": inserted, "updatedObjectIDs": updated, "deletedObjectIDs": deleted,
        ]
    }
}

/// Core Data's notification names without their `NS` (`.NSManagedObjectContextDidSave` is
/// `.managedObjectContextDidSave` here), the same names as `ManagedObjectContext`'s.
extension Notification.Name {
    public static let managedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
    public static let managedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification
    public static let managedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
    public static let managedObjectContextDidSaveObjectIDs = ManagedObjectContext.didSaveObjectIDsNotification
    public static let managedObjectContextDidMergeChangesObjectIDs = ManagedObjectContext.didMergeChangesObjectIDsNotification
}

/// A notification's user info read by a `NotificationKey`: the keys are the raw strings, as Core
/// Data's, so `userInfo?[NotificationKey.deletedObjects]` would otherwise look up the key itself,
/// find nothing and say so with a silent `nil`.
extension Dictionary where Key == AnyHashable {
    public subscript(key: ManagedObjectContext.NotificationKey) -> Value? {
        self[AnyHashable(key.rawValue)]
    }
}
