import Foundation
import Testing
@testable import LimelightData

/// The coordinator's store calls take `nil` options, as Core Data code passes them
/// (`addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)`).
@Suite struct StoreCallsWithNilOptionsTests {
    @Test func addMigrateReadAndDestroyWithNilOptions() throws {
        let folder = try TemporaryFolder()
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Tag", properties: [AttributeDescription(name: "name", type: .string)])])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let url = folder.file("tags.sqlite")
        let store = try coordinator.addPersistentStore(type: .sqlite, configuration: nil, at: url, options: nil)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.insertNewObject(forEntityName: "Tag").setValue("red", forKey: "name")
        try context.save()
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url, options: nil)
        #expect(metadata["NSStoreUUID"] as? String == store.identifier)
        let copyURL = folder.file("copy.sqlite")
        try coordinator.migratePersistentStore(store, to: copyURL, options: nil, type: .sqlite)
        context.reset()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 1)
        try coordinator.destroyPersistentStore(at: copyURL, type: .sqlite, options: nil)
        #expect(!FileManager.default.fileExists(atPath: copyURL.path))
        try coordinator.replacePersistentStore(at: copyURL, destinationOptions: nil, withPersistentStoreFrom: url, sourceOptions: nil, type: .sqlite)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: copyURL)["NSStoreUUID"] as? String == store.identifier)
    }
}
