import Foundation
import Testing
@testable import LimelightData

/// Destroying and replacing stores as files: the database with its log, the support folder, the
/// marker files and the registry entry go or come together.
@Suite struct StoreFilesTests {
    static func model() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [title])])
    }

    static func options(_ folder: TemporaryFolder) -> [String: any Sendable] {
        [StoreOption.externalRecordExtension: "note", StoreOption.recordsRegistryDirectory: folder.file("registry").path,
         StoreOption.externalRecordsWrittenSynchronously: true]
    }

    /// A store at `url` holding notes with these titles, saved with markers; its coordinator.
    @discardableResult
    static func store(_ url: URL, _ folder: TemporaryFolder, titles: [String]) throws -> PersistentStoreCoordinator {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options(folder))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for title in titles { try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title") }
            try context.save()
        }
        try coordinator.flushExternalRecords()
        return coordinator
    }

    static func markers(under folder: URL) -> [String] {
        let found = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".note") }.sorted()
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    @Test func destroyingAStoreRemovesEverythingKeptForIt() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        let coordinator = try Self.store(url, folder, titles: ["Salsa"])
        let identifier = try #require(coordinator.persistentStores.first?.identifier)
        let support = folder.file(".Notes.sqlite_SUPPORT")
        #expect(Self.markers(under: support).count == 1)
        #expect(Self.exists(folder.file("registry/\(identifier)")))

        try coordinator.destroyPersistentStore(at: url, options: Self.options(folder))
        #expect(coordinator.persistentStores.isEmpty)
        for gone in [url, folder.file("Notes.sqlite-wal"), folder.file("Notes.sqlite-shm"), support, folder.file("registry/\(identifier)")] {
            #expect(!Self.exists(gone), "\(gone.lastPathComponent)")
        }
        // Nothing there: nothing to do. Something not a store: refused, and left alone.
        try coordinator.destroyPersistentStore(at: url)
        let text = folder.file("notes.txt")
        try Data("not a store".utf8).write(to: text)
        #expect(throws: PersistenceError.self) { try coordinator.destroyPersistentStore(at: text) }
        #expect(Self.exists(text))
    }

    @Test func replacingAStoreCopiesItAndRemakesItsMarkers() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("Backup.sqlite"), destination = folder.file("Notes.sqlite")
        // The source stays open and in use by its own coordinator while it is copied.
        let sourceCoordinator = try Self.store(source, folder, titles: ["Guacamole", "Salsa"])
        let sourceID = try #require(sourceCoordinator.persistentStores.first?.identifier)
        let destinationCoordinator = try Self.store(destination, folder, titles: ["Old note"])
        let oldID = try #require(destinationCoordinator.persistentStores.first?.identifier)

        try destinationCoordinator.replacePersistentStore(at: destination, destinationOptions: Self.options(folder),
                                                          withPersistentStoreFrom: source)
        #expect(destinationCoordinator.persistentStores.isEmpty)
        #expect(!Self.exists(folder.file("registry/\(oldID)")))
        try destinationCoordinator.addPersistentStore(type: .sqlite, at: destination, options: Self.options(folder))
        #expect(destinationCoordinator.persistentStores.first?.identifier == sourceID)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = destinationCoordinator
        let titles = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
        #expect(titles == ["Guacamole", "Salsa"])
        // The destination's markers are the copied objects', under the copied store's UUID.
        let markers = Self.markers(under: folder.file(".Notes.sqlite_SUPPORT"))
        #expect(markers.count == 2 && markers.allSatisfy { $0.hasPrefix("records/\(sourceID)/Note/") })
        #expect(Self.exists(folder.file("Backup.sqlite")))
    }
}
