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
        let ids = try #require(savedIDs.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID>)
        #expect(ids == [note.objectID])
        // The key itself reads the same as its raw value, as Core Data's string constants do.
        let byKey = saved.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects] as? Set<ManagedObject>
        #expect(byKey == [note])
        #expect(savedIDs.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID> == [note.objectID])

        // Passed on as Core Data apps pass it: the notification's user info, as it is.
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: savedIDs.value?.userInfo ?? [:], into: [reader])
        let mergedIDs = merged.value?.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID>
        #expect(mergedIDs == [note.objectID])
        let title = try reader.performAndWait { try reader.existingObject(with: note.objectID).value(forKey: "title") as? String }
        #expect(title == "Hello")
    }

    /// The object-ID notifications carry sets, as Core Data's: what a save wrote and what a merge
    /// reached, each under its key, and the merges that read them keep working.
    @Test func objectIDNotificationsCarrySetsThatMergesRead() throws {
        let folder = try TemporaryFolder()
        let (writer, reader, ids) = try ContextMergingTests.contexts(folder)
        let coordinator = try #require(writer.persistentStoreCoordinator)
        reader.automaticallyMergesChangesFromParent = true
        // A context that merges by hand, and one on another coordinator (as another process's).
        let byHand = ManagedObjectContext(concurrencyType: .privateQueue)
        byHand.persistentStoreCoordinator = coordinator
        let otherCoordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try otherCoordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let remote = ManagedObjectContext(concurrencyType: .privateQueue)
        remote.persistentStoreCoordinator = otherCoordinator
        // A merge reaches the objects a context holds: the reader holds both people.
        let readersPeople = try reader.performAndWait { try ids.map { try reader.existingObject(with: $0) } }
        let byHandAda = try byHand.performAndWait { try byHand.existingObject(with: ids[0]) }
        let remoteAda = try remote.performAndWait { () throws -> ManagedObject in
            guard let theirs = otherCoordinator.managedObjectID(forURIRepresentation: ids[0].uriRepresentation()) else {
                throw PersistenceError.invalidRequest("the other coordinator does not know \(ids[0])")
            }
            return try remote.existingObject(with: theirs)
        }
        #expect(remote.performAndWait { remoteAda.value(forKey: "firstName") as? String } == "Ada")

        let saved = Box<Notification>(), merged = Box<Notification>()
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { saved.value = $0 },
            center.addObserver(forName: ManagedObjectContext.didMergeChangesObjectIDsNotification, object: reader, queue: nil) { merged.value = $0 },
        ]
        defer { tokens.forEach(center.removeObserver) }
        // The new photo is the first of its table: its primary key is a person's, in another entity.
        let inserted = try writer.performAndWait { () throws -> [ManagedObjectID] in
            try writer.existingObject(with: ids[0]).setValue("Augusta", forKey: "firstName")
            writer.delete(try writer.existingObject(with: ids[1]))
            let hedy = try writer.insertNewObject(forEntityName: "Person")
            hedy.setValue("Hedy", forKey: "firstName")
            let photo = try writer.insertNewObject(forEntityName: "Photo")
            photo.setValue(hedy, forKey: "photographer")
            try writer.save()
            return [hedy.objectID, photo.objectID]
        }
        let samePrimaryKey = try #require(ids.first { $0.primaryKey == inserted[1].primaryKey })
        #expect(samePrimaryKey != inserted[1] && samePrimaryKey.hashValue != inserted[1].hashValue)

        typealias Key = ManagedObjectContext.NotificationKey
        let info = try #require(saved.value?.userInfo)
        #expect(info[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> == Set(inserted))
        #expect(info[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID> == [ids[0]])
        #expect(info[Key.deletedObjectIDs.rawValue] as? Set<ManagedObjectID> == [ids[1]])
        #expect(info["insertedObjectIDs"] as? Set<ManagedObjectID> == Set(inserted))
        // An ID read through another coordinator on the same model and file is the same member.
        let sameModel = try PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
        try sameModel.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let readAgain = try #require(sameModel.managedObjectID(forURIRepresentation: ids[0].uriRepresentation()))
        #expect((info[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID>)?.contains(readAgain) == true)

        // The automatic merge reached the reader, and says so with sets.
        let mergedInfo = try #require(reader.performAndWait { merged.value?.userInfo })
        #expect(mergedInfo[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> == Set(inserted))
        #expect(mergedInfo[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID> == [ids[0]])
        #expect(mergedInfo[Key.deletedObjectIDs.rawValue] as? Set<ManagedObjectID> == [ids[1]])
        let readerSees = reader.performAndWait {
            (readersPeople[0].value(forKey: "firstName") as? String, readersPeople[1].managedObjectContext == nil)
        }
        #expect(readerSees.0 == "Augusta" && readerSees.1)

        // By hand, from the notification itself and from its user info on another coordinator.
        let notification = try #require(saved.value)
        let byHandResult = try byHand.performAndWait { () throws -> (String?, String?) in
            byHand.mergeChanges(fromContextDidSave: notification)
            let hedy = try byHand.existingObject(with: inserted[0])
            return (byHandAda.value(forKey: "firstName") as? String, hedy.value(forKey: "firstName") as? String)
        }
        #expect(byHandResult.0 == "Augusta" && byHandResult.1 == "Hedy")
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: info, into: [remote])
        let remoteName = remote.performAndWait { remoteAda.value(forKey: "firstName") as? String }
        #expect(remoteName == "Augusta")
    }
}
