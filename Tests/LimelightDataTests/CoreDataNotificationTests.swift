import Foundation
import Testing
@testable import LimelightData

/// Context notifications under Core Data's names, raw values and user info keys, and merging
/// from the user info as Core Data apps pass it on.
struct CoreDataNotificationTests {
    @Test func namesAndKeysAreCoreDatas() {
        #expect(Notification.Name.managedObjectContextDidSave.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(ManagedObjectContext.willSaveObjectsNotification.rawValue == "NSManagingContextWillSaveChangesNotification")
        #expect(ManagedObjectContext.didChangeObjectsNotification.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(ManagedObjectContext.objectsDidChangeNotification == ManagedObjectContext.didChangeObjectsNotification)
        #expect(ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue == "inserted_objectIDs")
        #expect(ManagedObjectContext.NotificationKey.deletedObjects.rawValue == "deleted")
    }

    @Test func aSavesNotificationsCarryItsObjectsAndTheirIDs() throws {
        let folder = try TemporaryFolder()
        let writer = try TestStack.context(model: ObjectEventTests.model(), at: folder.file("notes.sqlite"))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
        let saved = Box<Notification>(), savedIDs = Box<Notification>(), merged = Box<Notification>()
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(forName: .managedObjectContextDidSave, object: writer, queue: nil) { saved.value = $0 },
            center.addObserver(forName: .managedObjectContextDidSaveObjectIDs, object: writer, queue: nil) { savedIDs.value = $0 },
            center.addObserver(forName: .managedObjectContextDidMergeChangesObjectIDs, object: reader, queue: nil) { merged.value = $0 },
        ]
        defer { tokens.forEach(center.removeObserver) }
        let note = try writer.performAndWait { () throws -> ManagedObject in
            let note = try writer.insertNewObject(forEntityName: "SnapshotNote")
            note.setValue("Hello", forKey: "title")
            try writer.save()
            return note
        }
        let objects = try #require(saved.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<ManagedObject>)
        #expect(objects == [note])
        let ids = try #require(savedIDs.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? [ManagedObjectID])
        #expect(ids == [note.objectID])

        // Passed on as Core Data apps pass it: the notification's user info, as it is.
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: savedIDs.value?.userInfo ?? [:], into: [reader])
        let mergedIDs = merged.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? [ManagedObjectID]
        #expect(mergedIDs == [note.objectID])
        let title = try reader.performAndWait { try reader.existingObject(with: note.objectID).value(forKey: "title") as? String }
        #expect(title == "Hello")
    }
}
