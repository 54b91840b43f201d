import Foundation
import Testing
@testable import LimelightData

/// A shelf note whose properties are written as hand-written Core Data accessors: primitive
/// values between `willChangeValue`/`didChangeValue`, and a cached value the model does not know.
final class AccessorNote: ManagedObject {
    var title: String? {
        get {
            willAccessValue(forKey: "title")
            defer { didAccessValue(forKey: "title") }
            return primitiveValue(forKey: "title") as? String
        }
        set {
            willChangeValue(forKey: "title")
            setPrimitiveValue(newValue, forKey: "title")
            didChangeValue(forKey: "title")
        }
    }

    var shelf: ManagedObject? {
        get { primitiveValue(forKey: "shelf") as? ManagedObject }
        set {
            willChangeValue(forKey: "shelf")
            setPrimitiveValue(newValue, forKey: "shelf")
            didChangeValue(forKey: "shelf")
        }
    }

    /// Not in the model; changing it counts as a change of the object.
    var summary = "" {
        willSet { willChangeValue(forKey: "summary") }
        didSet { didChangeValue(forKey: "summary") }
    }
    override class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { false }
}

/// The same unmodeled property on a class that keeps Core Data's default.
final class QuietNote: ManagedObject {
    var summary = "" {
        willSet { willChangeValue(forKey: "summary") }
        didSet { didChangeValue(forKey: "summary") }
    }
}

/// Hand-written accessors as Core Data apps write them: primitive values set between
/// `willChangeValue` and `didChangeValue` are tracked, undoable and keep inverses; unmodeled keys
/// count as changes only when the class asks; `willAccessValue` fires faults.
struct CustomAccessorTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "AccessorNote", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "notes"),
        ])
        note.managedObjectClassName = "AccessorNote"
        let quiet = EntityDescription(name: "QuietNote", properties: [AttributeDescription(name: "title", type: .string)])
        quiet.managedObjectClassName = "QuietNote"
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "AccessorNote", inverse: "shelf", toMany: true),
        ])
        ManagedObjectClassRegistry.shared.register(AccessorNote.self)
        ManagedObjectClassRegistry.shared.register(QuietNote.self)
        return ManagedObjectModel(entities: [note, quiet, shelf])
    }

    @Test func primitiveValuesBetweenChangeNotificationsAreTrackedUndoneAndSaved() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.performAndWait {
            let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
            note.title = "Draft"
            try context.save()

            // Set without the pair: the value alone changes.
            note.setPrimitiveValue("Quiet", forKey: "title")
            #expect(!note.hasChanges)
            note.setPrimitiveValue("Draft", forKey: "title")

            note.title = "Final"
            #expect(note.isUpdated && context.updatedObjects.contains(note))
            #expect(note.changedValues()["title"] as? String == "Final")
            context.processPendingChanges()
            context.undo()
            #expect(note.title == "Draft")
            note.title = "Final"
            try context.save()
        }
        let reader = try TestStack.context(model: Self.model(), at: url)
        try reader.performAndWait {
            let notes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "AccessorNote"))
            #expect(notes.map { $0.value(forKey: "title") as? String } == ["Final"])
        }
    }

    @Test func aRelationshipSetThroughItsPrimitiveKeepsTheInverse() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.performAndWait {
            let kitchen = try context.insertNewObject(forEntityName: "Shelf"), hall = try context.insertNewObject(forEntityName: "Shelf")
            kitchen.setValue("Kitchen", forKey: "name")
            hall.setValue("Hall", forKey: "name")
            let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
            note.shelf = kitchen
            #expect((kitchen.value(forKey: "notes") as? Set<ManagedObject>) == [note])
            try context.save()
            note.shelf = hall
            #expect((kitchen.value(forKey: "notes") as? Set<ManagedObject>)?.isEmpty == true)
            #expect((hall.value(forKey: "notes") as? Set<ManagedObject>) == [note])
            try context.save()
        }
        let reader = try TestStack.context(model: Self.model(), at: url)
        try reader.performAndWait {
            let shelves = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf"))
            let counts = Dictionary(uniqueKeysWithValues: shelves.map {
                ($0.value(forKey: "name") as? String ?? "", ($0.value(forKey: "notes") as? Set<ManagedObject>)?.count ?? -1)
            })
            #expect(counts == ["Kitchen": 0, "Hall": 1])
        }
    }

    @Test func nestedChangeNotificationsRecordOneChange() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("notes.sqlite"))
        try context.performAndWait {
            let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
            note.title = "One"
            try context.save()
            note.willChangeValue(forKey: "title")
            note.title = "Two"                      // a pair inside the pair
            note.setPrimitiveValue("Three", forKey: "title")
            note.didChangeValue(forKey: "title")
            context.processPendingChanges()
            context.undo()
            #expect(note.title == "One")
            #expect(!note.hasPersistentChangedValues)
        }
    }

    @Test func unmodeledChangesCountOnlyWhenTheClassSaysSo() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("notes.sqlite"))
        try context.performAndWait {
            let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
            let quiet = try #require(try context.insertNewObject(forEntityName: "QuietNote") as? QuietNote)
            try context.save()
            quiet.summary = "ignored"
            #expect(!quiet.hasChanges && !context.hasChanges)
            note.summary = "counted"
            #expect(note.isUpdated && context.updatedObjects == [note])
            // Nothing modeled changed: the save writes no value, and the object is saved.
            try context.save()
            #expect(!note.hasChanges && !context.hasChanges)
        }
    }

    @Test func accessingAFaultLoadsIt() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("notes.sqlite"))
        try context.performAndWait {
            let note = try #require(try context.insertNewObject(forEntityName: "AccessorNote") as? AccessorNote)
            note.title = "Kept"
            try context.save()
            #expect(note.faultingState == 0)
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault && note.faultingState != 0)
            note.willAccessValue(forKey: nil)
            #expect(!note.isFault && note.faultingState == 0)
            #expect(note.title == "Kept")
        }
    }
}
