import Foundation
import Testing
@testable import LimelightData

/// `ManagedObjectID.persistentStore`: the store a saved object's ID came from, for as long as the
/// store is added; none for a new object's temporary ID. IDs do not keep stores alive.
struct ObjectIDStoreTests {
    @Test func savedIDsNameTheirStoreAndTemporaryOnesNone() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let people = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("people.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (temporary, saved, obtained) = try context.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID, ManagedObjectID) in
            let ada = try context.insertNewObject(forEntityName: "Person")
            let temporary = ada.objectID
            try context.save()
            let grace = try context.insertNewObject(forEntityName: "Person")
            try context.obtainPermanentIDs(for: [grace])
            return (temporary, ada.objectID, grace.objectID)
        }
        #expect(temporary.isTemporaryID && temporary.persistentStore == nil)
        #expect(saved.persistentStore === people)
        #expect(obtained.persistentStore === people)
        // Read back through the coordinator, by URI and by a fetch.
        #expect(coordinator.managedObjectID(forURIRepresentation: saved.uriRepresentation())?.persistentStore === people)
        let fetched = try context.performAndWait { try context.fetchObjectIDs(FetchRequest<ManagedObjectID>(entityName: "Person")) }
        #expect(Set(fetched) == [saved, obtained] && fetched.allSatisfy { $0.persistentStore === people })
    }

    @Test func eachStoreOfACoordinatorNamesItsOwnIDs() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let first = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("first.sqlite"))
        let second = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("second.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (inFirst, inSecond) = try context.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let ada = try context.insertNewObject(forEntityName: "Person")
            let grace = try context.insertNewObject(forEntityName: "Person")
            try context.assign(grace, to: second)
            try context.save()
            return (ada.objectID, grace.objectID)
        }
        #expect(inFirst.persistentStore === first && inFirst.storeIdentifier == first.identifier)
        #expect(inSecond.persistentStore === second && inSecond.storeIdentifier == second.identifier)
    }

    @Test func aRemovedStoreIsNoLongerNamed() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("people.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let id = try context.performAndWait { () throws -> ManagedObjectID in
            let ada = try context.insertNewObject(forEntityName: "Person")
            try context.save()
            return ada.objectID
        }
        #expect(id.persistentStore === store)
        coordinator.remove(store)
        #expect(id.persistentStore == nil)
        // The ID keeps naming the store's identifier, and the store added again takes it back.
        #expect(id.storeIdentifier == store.identifier)
        let reopened = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("people.sqlite"))
        #expect(reopened.identifier == id.storeIdentifier && id.persistentStore == nil)
        #expect(coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())?.persistentStore === reopened)
    }

    @Test func anIDDoesNotKeepItsStoreAlive() throws {
        let folder = try TemporaryFolder()
        weak var gone: PersistentStore?
        var id: ManagedObjectID?
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("people.sqlite"))
            gone = store
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            id = try context.performAndWait { () throws -> ManagedObjectID in
                let ada = try context.insertNewObject(forEntityName: "Person")
                try context.save()
                return ada.objectID
            }
            #expect(id?.persistentStore === store)
        }
        #expect(gone == nil)
        #expect(id?.persistentStore == nil && id?.isTemporaryID == false)
    }
}
