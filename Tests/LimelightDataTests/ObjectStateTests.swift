import Foundation
import Testing
@testable import LimelightData

/// A note that records the hooks called on it.
final class HookedNote: ManagedObject {
    nonisolated(unsafe) static var calls: [String] = []
    override func prepareForDeletion() { Self.calls.append("prepareForDeletion \(value(forKey: "title") as? String ?? "")") }
    override func willTurnIntoFault() { Self.calls.append("willTurnIntoFault \(value(forKey: "title") as? String ?? "")") }
    override func didTurnIntoFault() { Self.calls.append("didTurnIntoFault") }
}

/// Object state a Core Data user asks about, and the calls that refresh it: deletion and fault
/// hooks, persistent changes, relationship faults, refreshing all objects, refetching.
@Suite(.serialized) struct ObjectStateTests {
    static func context(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let note = EntityDescription(name: "HookedNote", properties: [AttributeDescription(name: "title", type: .string)])
        note.managedObjectClassName = "HookedNote"
        ManagedObjectClassRegistry.shared.register(HookedNote.self)
        return try TestStack.context(model: ManagedObjectModel(entities: [note]), at: folder.file("notes.sqlite"))
    }

    @Test func deletionAndFaultHooksAreCalledWithTheValuesStillThere() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        try context.performAndWait {
            HookedNote.calls = []
            let note = try context.insertNewObject(forEntityName: "HookedNote")
            note.setValue("Salsa", forKey: "title")
            try context.save()
            context.refresh(note, mergeChanges: false)
            #expect(HookedNote.calls == ["willTurnIntoFault Salsa", "didTurnIntoFault"])
            HookedNote.calls = []
            context.delete(note)
            context.delete(note)
            #expect(HookedNote.calls == ["prepareForDeletion Salsa"])
        }
    }

    @Test func persistentChangesAndRelationshipFaults() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let ids = try context.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let ada = try context.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(ada, forKey: "photographer")
            try context.save()
            #expect(!ada.hasPersistentChangedValues)
            ada.setValue("Augusta", forKey: "firstName")
            #expect(ada.hasPersistentChangedValues && ada.hasChanges)
            ada.setValue("Ada", forKey: "firstName")
            // Set back to what was saved: changed, but nothing to write.
            #expect(!ada.hasPersistentChangedValues && ada.hasChanges)
            return (ada.objectID, photo.objectID)
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = context.persistentStoreCoordinator
        try reader.performAndWait {
            let ada = try reader.existingObject(with: ids.0), photo = try reader.existingObject(with: ids.1)
            #expect(ada.hasFault(forRelationshipNamed: "photos"))
            #expect(photo.hasFault(forRelationshipNamed: "photographer") == false)   // Ada is loaded
            _ = ada.value(forKey: "photos")
            #expect(!ada.hasFault(forRelationshipNamed: "photos"))
            reader.refresh(ada, mergeChanges: false)
            #expect(photo.hasFault(forRelationshipNamed: "photographer"))
            #expect(!photo.hasFault(forRelationshipNamed: "name"))
        }
    }

    @Test func refreshingAllObjectsAndRefetchingTakeTheStoresValues() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = context.persistentStoreCoordinator
        let (ada, grace) = try context.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            let ada = try context.insertNewObject(forEntityName: "Person"), grace = try context.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            grace.setValue("Grace", forKey: "firstName")
            try context.save()
            return (ada, grace)
        }
        func changeElsewhere(_ first: String, _ last: String) throws {
            try writer.performAndWait {
                for (object, name) in [(ada, first), (grace, last)] {
                    try writer.existingObject(with: object.objectID).setValue(name, forKey: "lastName")
                }
                try writer.save()
            }
        }
        try changeElsewhere("Lovelace", "Hopper")
        try context.performAndWait {
            grace.setValue("Brewster", forKey: "firstName")
            // A fetch keeps what loaded objects hold, unless asked to refresh them.
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            _ = try context.fetch(request)
            #expect(ada.value(forKey: "lastName") == nil)
            request.shouldRefreshRefetchedObjects = true
            _ = try context.fetch(request)
            #expect(ada.value(forKey: "lastName") as? String == "Lovelace")
            #expect(grace.value(forKey: "lastName") as? String == "Hopper")
            #expect(grace.value(forKey: "firstName") as? String == "Brewster")
        }
        try changeElsewhere("Byron", "Murray")
        context.performAndWait {
            context.refreshAllObjects()
            #expect(ada.isFault && !grace.isFault)
            #expect(ada.value(forKey: "lastName") as? String == "Byron")
            #expect(grace.value(forKey: "lastName") as? String == "Murray")
            #expect(grace.value(forKey: "firstName") as? String == "Brewster")
        }
    }

    /// A fault whose object another context deleted from the store reads as deleted and leaves
    /// saves alone; with `shouldDeleteInaccessibleFaults` off the next save names it.
    @Test func inaccessibleFaultsTurnIntoDeletedObjects() throws {
        let folder = try TemporaryFolder()
        let writer = try Self.context(folder)
        let ids = try writer.performAndWait {
            let notes = try ["gone", "kept"].map { title -> ManagedObject in
                let note = try writer.insertNewObject(forEntityName: "HookedNote")
                note.setValue(title, forKey: "title")
                return note
            }
            try writer.save()
            return notes.map(\.objectID)
        }
        let coordinator = try #require(writer.persistentStoreCoordinator)
        for deletes in [true, false] {
            let reader = ManagedObjectContext(concurrencyType: .privateQueue)
            reader.persistentStoreCoordinator = coordinator
            reader.shouldDeleteInaccessibleFaults = deletes
            try reader.performAndWait {
                let gone = reader.object(with: ids[0])
                let kept = reader.object(with: ids[1])
                #expect(gone.isFault)
                // Deleted by the writer in the first round; gone from the store in both.
                if deletes {
                    try writer.performAndWait {
                        writer.delete(try writer.existingObject(with: ids[0]))
                        try writer.save()
                    }
                }
                #expect(gone.value(forKey: "title") == nil)
                #expect(gone.isDeleted == deletes)
                #expect(throws: PersistenceError.self) { try reader.existingObject(with: ids[0]) }
                kept.setValue("still here", forKey: "title")
                if deletes {
                    try reader.save()
                } else {
                    let failure = try #require(throws: ValidationError.self) { try reader.save() }
                    #expect("\(failure)".contains("no longer exists"))
                }
            }
        }
    }
}
