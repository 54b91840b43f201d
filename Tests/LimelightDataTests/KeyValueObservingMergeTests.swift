import Foundation
import Testing
@testable import LimelightData

/// Key-value observing across contexts and refreshes: values another context saved reach the
/// observers of the objects merged, a refresh reports what it put back, and a context's
/// `hasChanges` can be observed as a save button would.
@Suite struct KeyValueObservingMergeTests {
    init() {
        ManagedObjectClassRegistry.shared.register(Photo.self)
        ManagedObjectClassRegistry.shared.register(Person.self, forEntityName: "Person")
    }

    /// Two contexts on one store, with a saved photo "Harbour" by Ada, read into the reader.
    static func contexts(_ folder: TemporaryFolder) throws -> (writer: ManagedObjectContext, reader: ManagedObjectContext, photo: ManagedObjectID) {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue), reader = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        reader.persistentStoreCoordinator = coordinator
        let id = try writer.performAndWait {
            let photo = try #require(try writer.insertNewObject(forEntityName: "Photo") as? Photo)
            let ada = try #require(try writer.insertNewObject(forEntityName: "Person") as? Person)
            photo.name = "Harbour"
            ada.firstName = "Ada"
            photo.photographer = ada
            try writer.save()
            return photo.objectID
        }
        return (writer, reader, id)
    }

    @Test func anotherContextsSaveMergedByHandIsReported() throws {
        let folder = try TemporaryFolder()
        let (writer, reader, id) = try Self.contexts(folder)
        let names = Heard<String?>(), ratings = Heard<Int16>(), photographers = Heard<String?>()
        let (photo, tokens) = try reader.performAndWait { () throws -> (Photo, [KeyValueObservation]) in
            let photo = try #require(try reader.existingObject(with: id) as? Photo)
            return (photo, [
                photo.observe(\.name, options: [.old, .new]) { _, change in names.changes.append(change) },
                photo.observe(\.rating, options: .new) { _, change in ratings.changes.append(change) },
                photo.observe(\.photographer?.firstName, options: .new) { _, change in photographers.changes.append(change) },
            ])
        }
        let note = Box<Notification>()
        let observer = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { note.value = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait {
            let photo = try #require(try writer.existingObject(with: id) as? Photo)
            photo.name = "Bridge"
            photo.photographer?.firstName = "Augusta"
            try writer.save()
        }
        let saved = try #require(note.value)
        reader.performAndWait {
            #expect(names.changes.isEmpty)
            reader.mergeChanges(fromContextDidSave: saved)
            // The name and the photographer's name changed; the rating did not.
            #expect(names.newValues == ["Bridge"])
            #expect(names.changes.first?.oldValue == .some("Harbour"))
            #expect(ratings.changes.isEmpty)
            #expect(photographers.newValues == ["Augusta"])
            #expect(photo.name == "Bridge")
        }
        withExtendedLifetime(tokens) {}
    }

    @Test func automaticMergesReportOnTheReadersQueueKeepingItsOwnChanges() throws {
        let folder = try TemporaryFolder()
        let (writer, reader, id) = try Self.contexts(folder)
        reader.automaticallyMergesChangesFromParent = true
        let names = Heard<String?>(), ratings = Heard<Int16>()
        let tokens = try reader.performAndWait { () throws -> [KeyValueObservation] in
            let photo = try #require(try reader.existingObject(with: id) as? Photo)
            // A change of the reader's own, which the merge keeps on top.
            photo.rating = 5
            return [
                photo.observe(\.name, options: .new) { _, change in names.changes.append(change) },
                photo.observe(\.rating, options: .new) { _, change in ratings.changes.append(change) },
            ]
        }
        try writer.performAndWait {
            let photo = try #require(try writer.existingObject(with: id) as? Photo)
            photo.name = "Bridge"
            photo.rating = 1
            try writer.save()
        }
        reader.performAndWait {
            #expect(names.newValues == ["Bridge"])
            #expect(ratings.changes.isEmpty)
        }
        withExtendedLifetime(tokens) {}
    }

    @Test func refreshReportsTheValuesItPutsBack() throws {
        let folder = try TemporaryFolder()
        let (writer, _, id) = try Self.contexts(folder)
        let heard = Heard<String?>()
        try writer.performAndWait {
            let photo = try #require(try writer.existingObject(with: id) as? Photo)
            let token = photo.observe(\.name, options: [.old, .new]) { _, change in heard.changes.append(change) }
            // Merging with nothing new in the store: the object's own change stays, nothing to tell.
            photo.name = "Bridge"
            writer.refresh(photo, mergeChanges: true)
            #expect(heard.newValues == ["Bridge"])
            // Dropping the change: the saved value comes back, and observers hear of it.
            writer.refresh(photo, mergeChanges: false)
            #expect(heard.newValues == ["Bridge", "Harbour"])
            #expect(heard.changes.last?.oldValue == .some("Bridge"))
            // Unchanged, refreshed again: the same value, no call.
            writer.refresh(photo, mergeChanges: false)
            #expect(heard.changes.count == 2)
            withExtendedLifetime(token) {}
        }
    }

    @Test func aChildsSaveIsReportedInItsParent() throws {
        let folder = try TemporaryFolder()
        let (writer, _, id) = try Self.contexts(folder)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = writer
        let heard = Heard<String?>()
        let token = try writer.performAndWait { () throws -> KeyValueObservation in
            let photo = try #require(try writer.existingObject(with: id) as? Photo)
            return photo.observe(\.name, options: .new) { _, change in heard.changes.append(change) }
        }
        try child.performAndWait {
            try child.existingObject(with: id).setValue("Bridge", forKey: "name")
            try child.save()
        }
        writer.performAndWait { #expect(heard.newValues == ["Bridge"]) }
        withExtendedLifetime(token) {}
    }

    @Test func aContextsHasChangesCanBeObserved() throws {
        let folder = try TemporaryFolder()
        let (writer, _, id) = try Self.contexts(folder)
        let heard = Heard<Bool>()
        try writer.performAndWait {
            var token: KeyValueObservation? = writer.observe(\.hasChanges, options: [.initial, .new, .old]) { context, change in
                #expect(context === writer)
                heard.changes.append(change)
            }
            #expect(heard.newValues == [false])
            let photo = try #require(try writer.existingObject(with: id) as? Photo)
            photo.name = "Bridge"
            photo.rating = 4
            #expect(heard.newValues == [false, true])
            try writer.save()
            #expect(heard.newValues == [false, true, false])
            // An insertion undone, a change rolled back.
            _ = try writer.insertNewObject(forEntityName: "Person")
            writer.processPendingChanges()
            writer.undo()
            photo.name = "Mountain"
            writer.rollback()
            #expect(heard.newValues == [false, true, false, true, false, true, false])
            #expect(heard.changes.last?.oldValue == true)
            token = nil
            photo.name = "Pier"
            #expect(heard.changes.count == 7)
            #expect(token == nil && writer.contextObservers == nil)
        }
    }
}
