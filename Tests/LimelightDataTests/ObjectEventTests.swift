import Foundation
import Testing
@testable import LimelightData

/// Records what `awake(fromSnapshotEvents:)` is told.
final class SnapshotNote: ManagedObject {
    nonisolated(unsafe) var events: [SnapshotEventType] = []
    override func awake(fromSnapshotEvents events: SnapshotEventType) { self.events.append(events) }
}

/// What an object says about the current event (`changedValuesForCurrentEvent()`), and the
/// snapshot events that put several of its values back at once.
struct ObjectEventTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "SnapshotNote", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "pages", type: .integer32),
            RelationshipDescription(name: "folder", destination: "NoteFolder", inverse: "notes"),
        ])
        note.managedObjectClassName = "SnapshotNote"
        ManagedObjectClassRegistry.shared.register(SnapshotNote.self)
        let folder = EntityDescription(name: "NoteFolder", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "SnapshotNote", inverse: "folder", toMany: true),
        ])
        return ManagedObjectModel(entities: [note, folder])
    }

    @Test func currentEventChangesGiveTheValuesBeforeTheEvent() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("notes.sqlite"))
        try context.performAndWait {
            let note = try context.insertNewObject(forEntityName: "SnapshotNote")
            note.setValue("A", forKey: "title")
            // A new object's values all changed from nothing in its first event.
            #expect(note.changedValuesForCurrentEvent()["title"].map { $0 == nil } == true)
            try context.save()
            #expect(note.changedValuesForCurrentEvent().isEmpty)

            note.setValue("B", forKey: "title")
            note.setValue(Int32(12), forKey: "pages")
            var seen: [String: Any?] = [:]
            let token = context.addObserver { event, changes in
                if event == .objectsDidChange, changes.updated.contains(note) { seen = note.changedValuesForCurrentEvent() }
            }
            defer { context.removeObserver(token) }
            #expect(note.changedValuesForCurrentEvent()["title"] as? String == "A")
            context.processPendingChanges()
            // Observers of the event see its changes; after it, a new event begins.
            #expect(seen["title"] as? String == "A")
            #expect(seen.keys.contains("pages"))
            #expect(note.changedValuesForCurrentEvent().isEmpty)

            note.setValue("C", forKey: "title")
            #expect(note.changedValuesForCurrentEvent().count == 1)
            #expect(note.changedValuesForCurrentEvent()["title"] as? String == "B")
            #expect(note.changedValues()["title"] as? String == "C")
            // Set back within the event: not a change of it.
            note.setValue("B", forKey: "title")
            #expect(note.changedValuesForCurrentEvent().isEmpty)
            try context.save()
            #expect(note.changedValuesForCurrentEvent().isEmpty)
        }
    }

    @Test func relationshipsGiveTheirObjectsBeforeTheEvent() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let model = Self.model()
        let writer = try TestStack.context(model: model, at: url)
        let ids = try writer.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID, ManagedObjectID) in
            let inbox = try writer.insertNewObject(forEntityName: "NoteFolder"), archive = try writer.insertNewObject(forEntityName: "NoteFolder")
            let note = try writer.insertNewObject(forEntityName: "SnapshotNote")
            note.setValue(inbox, forKey: "folder")
            try writer.save()
            return (note.objectID, inbox.objectID, archive.objectID)
        }
        let context = try TestStack.context(model: model, at: url)
        try context.performAndWait {
            let note = try context.existingObject(with: ids.0)
            let inbox = try context.existingObject(with: ids.1), archive = try context.existingObject(with: ids.2)
            // The folders' notes were never read: they fill in as they were saved.
            note.setValue(archive, forKey: "folder")
            let noteChanges = note.changedValuesForCurrentEvent()
            #expect((noteChanges["folder"] ?? nil) as? ManagedObject === inbox)
            #expect((inbox.changedValuesForCurrentEvent()["notes"] ?? nil) as? Set<ManagedObject> == [note])
            #expect((archive.changedValuesForCurrentEvent()["notes"] ?? nil) as? Set<ManagedObject> == [])
        }
    }

    @Test func undoRollbackRefreshAndMergePoliciesAreSnapshotEvents() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        let other = ManagedObjectContext(concurrencyType: .privateQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        try context.performAndWait {
            let note = try #require(try context.insertNewObject(forEntityName: "SnapshotNote") as? SnapshotNote)
            note.setValue("One", forKey: "title")
            context.processPendingChanges()
            // Undoing the insertion undoes the value set with it too.
            context.undo()
            #expect(note.events == [[.undoInsertion, .undoUpdate]])
            context.redo()
            #expect(note.events.last?.contains(.undoDeletion) == true)
            try context.save()

            note.events = []
            note.setValue("Two", forKey: "title")
            context.processPendingChanges()
            context.undo()
            #expect(note.events == [.undoUpdate])

            note.events = []
            note.setValue("Three", forKey: "title")
            context.rollback()
            #expect(note.events == [.rollback])
            #expect(note.value(forKey: "title") as? String == "One")

            // Another context saves; refreshing with the changes kept is a refresh event.
            try other.performAndWait {
                try other.existingObject(with: note.objectID).setValue(Int32(7), forKey: "pages")
                try other.save()
            }
            note.events = []
            note.setValue("Four", forKey: "title")
            context.refresh(note, mergeChanges: true)
            #expect(note.events == [.refresh])
            #expect(note.value(forKey: "pages") as? Int32 == 7 && note.value(forKey: "title") as? String == "Four")

            // A conflict the merge policy settles.
            try other.performAndWait {
                try other.existingObject(with: note.objectID).setValue(Int32(8), forKey: "pages")
                try other.save()
            }
            note.events = []
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            #expect(note.events.contains(.mergePolicy))
            #expect(note.value(forKey: "pages") as? Int32 == 8 && note.value(forKey: "title") as? String == "Four")
        }
    }
}
