import Foundation
import Testing
@testable import LimelightData

/// Store metadata set through the coordinator, on open stores and on files, SQLite and XML.
struct StoreMetadataTests {
    @Test(arguments: [StoreType.sqlite, StoreType.xml])
    func metadataSetOnAnOpenStoreIsKeptAndTheUUIDStays(type: StoreType) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("staff.\(type.rawValue)")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: XMLStoreTests.staffModel())
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let uuid = store.identifier
        var metadata = coordinator.metadata(for: store)
        metadata["SeedDataImported"] = 3
        metadata["NSStoreUUID"] = "not-this-one"
        try coordinator.setMetadata(metadata, for: store)
        #expect(coordinator.metadata(for: store)["SeedDataImported"] as? Int == 3)

        let read = try PersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(read["SeedDataImported"] as? Int == 3)
        #expect(read["NSStoreUUID"] as? String == uuid)
        coordinator.remove(store)

        // Written to the file without opening it; the objects and UUID stay.
        var next = read
        next["SeedDataImported"] = 4
        try PersistentStoreCoordinator.setMetadata(next, forPersistentStoreOfType: type, at: url)
        let reopened = try PersistentStoreCoordinator(managedObjectModel: XMLStoreTests.staffModel())
        let again = try reopened.addPersistentStore(type: type, at: url)
        #expect(again.identifier == uuid)
        #expect(reopened.metadata(for: again)["SeedDataImported"] as? Int == 4)
    }

    @Test func aReadOnlyStoreKeepsItsMetadata() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("staff.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: XMLStoreTests.staffModel())
        coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [StoreOption.readOnly: true])
        #expect(throws: PersistenceError.self) { try coordinator.setMetadata(["x": 1], for: store) }
        #expect(coordinator.metadata(for: store)["x"] == nil)
    }

    @Test func aFileThatIsNoStoreIsNamed() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.txt")
        try Data("hello".utf8).write(to: url)
        for type in [StoreType.sqlite, .xml] {
            do {
                try PersistentStoreCoordinator.setMetadata(["x": 1], forPersistentStoreOfType: type, at: url)
                Issue.record("metadata was written into a file that is no \(type) store")
            } catch {
                #expect("\(error)".contains("notes.txt"), "\(error)")
            }
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == "hello")
    }
}
