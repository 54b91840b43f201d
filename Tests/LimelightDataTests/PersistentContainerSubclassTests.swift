import Foundation
import Testing
// A plain import, as an application's: subclassing must work from outside the module.
import LimelightData

/// A container whose stores live in a folder of its own choosing, as apps that share a store
/// with their extensions write it.
private final class SharedFolderContainer: PersistentContainer, @unchecked Sendable {
    static let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("shared-folder-container-\(UUID().uuidString)", isDirectory: true)

    override class func defaultDirectoryURL() -> URL { folder }

    override func newBackgroundContext() -> ManagedObjectContext {
        let context = super.newBackgroundContext()
        context.name = "importer"
        return context
    }
}

/// `PersistentContainer` subclassed as `NSPersistentContainer` is: the class's default folder
/// decides where the store goes, and overridden methods are the ones called.
@Suite struct PersistentContainerSubclassTests {
    @Test func aSubclassDefaultFolderHoldsItsStore() throws {
        defer { try? FileManager.default.removeItem(at: SharedFolderContainer.folder) }
        let container = try SharedFolderContainer(name: "Photos", managedObjectModel: PhotoModel.make())
        let url = try #require(container.persistentStoreDescriptions.first?.url)
        #expect(url == SharedFolderContainer.folder.appendingPathComponent("Photos.sqlite"))
        #expect(PersistentContainer.defaultDirectoryURL() != SharedFolderContainer.folder)
        try container.loadPersistentStores()
        #expect(FileManager.default.fileExists(atPath: url.path))

        let context = container.newBackgroundContext()
        #expect(context.name == "importer")
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue("Grace", forKey: "firstName")
            try context.save()
        }
        #expect(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 1)
    }
}
