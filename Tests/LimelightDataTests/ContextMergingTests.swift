import Foundation
import Testing
@testable import LimelightData

/// One context's save brought into others: automatically on the same coordinator, from a save
/// notification, and from IDs saved elsewhere (another coordinator on the same file).
@Suite struct ContextMergingTests {
    /// Two private-queue contexts on one coordinator over a new store, with two photographers.
    static func contexts(_ folder: TemporaryFolder) throws -> (writer: ManagedObjectContext, reader: ManagedObjectContext, ids: [ManagedObjectID]) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue), reader = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        reader.persistentStoreCoordinator = coordinator
        let ids = try writer.performAndWait {
            let people = try ["Ada", "Grace"].map { name -> ManagedObject in
                let person = try writer.insertNewObject(forEntityName: "Person")
                person.setValue(name, forKey: "firstName")
                return person
            }
            try writer.save()
            return people.map(\.objectID)
        }
        return (writer, reader, ids)
    }

    @Test func savesReachAContextThatMergesAutomatically() throws {
        let folder = try TemporaryFolder()
        let (writer, reader, ids) = try Self.contexts(folder)
        reader.automaticallyMergesChangesFromParent = true
        #expect(reader.automaticallyMergesChangesFromParent && !writer.automaticallyMergesChangesFromParent)
        var heard: [(updated: Int, deleted: Int, inserted: Int)] = []
        var insertedNames: [String] = []
        let (ada, grace) = try reader.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            reader.addObserver { event, changes in
                guard case .objectsDidChange = event else { return }
                heard.append((changes.updated.count, changes.deleted.count, changes.inserted.count))
                // Objects the context does not keep (unchanged ones) are the observer's to keep.
                insertedNames += changes.inserted.compactMap { $0.value(forKey: "firstName") as? String }
            }
            let ada = try reader.existingObject(with: ids[0]), grace = try reader.existingObject(with: ids[1])
            // Read now, changed here without saving: the merge must keep this on top.
            #expect(ada.value(forKey: "firstName") as? String == "Ada")
            ada.setValue("Lovelace", forKey: "lastName")
            return (ada, grace)
        }
        let newID = try writer.performAndWait { () throws -> ManagedObjectID in
            let writersAda = try writer.existingObject(with: ids[0])
            writersAda.setValue("Augusta", forKey: "firstName")
            writer.delete(try writer.existingObject(with: ids[1]))
            let added = try writer.insertNewObject(forEntityName: "Person")
            added.setValue("Hedy", forKey: "firstName")
            try writer.save()
            return added.objectID
        }
        // The merge is queued on the reader's queue by the save: anything run there after sees it.
        reader.performAndWait {
            #expect(ada.value(forKey: "firstName") as? String == "Augusta")
            #expect(ada.value(forKey: "lastName") as? String == "Lovelace")
            #expect(ada.hasChanges)
            #expect(grace.managedObjectContext == nil)
            #expect(reader.registeredObject(for: ids[1]) == nil)
            #expect(insertedNames == ["Hedy"])
            #expect(heard.last.map { [$0.updated, $0.deleted, $0.inserted] } == [1, 1, 1])
        }
        let hedy = try reader.performAndWait { try reader.existingObject(with: newID).value(forKey: "firstName") as? String }
        #expect(hedy == "Hedy")
        // And the reader's own save goes through: its snapshot of Ada is the merged one.
        try reader.performAndWait { try reader.save() }
        try writer.performAndWait {
            let again = try writer.existingObject(with: ids[0])
            writer.refresh(again, mergeChanges: false)
            #expect(again.value(forKey: "firstName") as? String == "Augusta")
            #expect(again.value(forKey: "lastName") as? String == "Lovelace")
        }
        // Switched off, saves no longer arrive.
        reader.automaticallyMergesChangesFromParent = false
        try writer.performAndWait {
            try writer.existingObject(with: ids[0]).setValue("Ada", forKey: "firstName")
            try writer.save()
        }
        reader.performAndWait { #expect(ada.value(forKey: "firstName") as? String == "Augusta") }
    }

    @Test func aSaveNotificationMergesByHand() throws {
        let folder = try TemporaryFolder()
        let (writer, reader, ids) = try Self.contexts(folder)
        let ada = try reader.performAndWait { try reader.existingObject(with: ids[0]) }
        let note = Box<Notification>()
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { note.value = $0 }
        defer { NotificationCenter.default.removeObserver(token) }
        try writer.performAndWait {
            try writer.existingObject(with: ids[0]).setValue("Augusta", forKey: "firstName")
            try writer.save()
        }
        let saved = try #require(note.value)
        #expect((saved.userInfo?["updatedObjectIDs"] as? Set<ManagedObjectID>) == [ids[0]])
        // Not merging automatically: the reader still has what it read until it merges.
        reader.performAndWait {
            #expect(ada.value(forKey: "firstName") as? String == "Ada")
            reader.mergeChanges(fromContextDidSave: saved)
            #expect(ada.value(forKey: "firstName") as? String == "Augusta")
        }
    }

    @Test func changesSavedElsewhereMergeByTheirURIs() throws {
        let folder = try TemporaryFolder()
        let (_, reader, ids) = try Self.contexts(folder)
        let ada = try reader.performAndWait { try reader.existingObject(with: ids[0]) }
        // Another coordinator (as another process would have) on the same file.
        let other = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try other.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let elsewhere = ManagedObjectContext(concurrencyType: .privateQueue)
        elsewhere.persistentStoreCoordinator = other
        let uri = try elsewhere.performAndWait { () throws -> URL in
            let theirs = try #require(other.managedObjectID(forURIRepresentation: ids[0].uriRepresentation()))
            try elsewhere.existingObject(with: theirs).setValue("Augusta", forKey: "firstName")
            try elsewhere.save()
            return theirs.uriRepresentation()
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: ["updated": [uri]], into: [reader])
        reader.performAndWait { #expect(ada.value(forKey: "firstName") as? String == "Augusta") }
    }
}

/// A value set by a notification handler and read after.
final class Box<Value>: @unchecked Sendable {
    var value: Value?
}
