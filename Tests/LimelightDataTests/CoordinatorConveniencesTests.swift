import Foundation
import CSQLite
import Testing
@testable import LimelightData

/// The coordinator's and store description's Core Data conveniences: where a store is, moving an
/// atomic store's file, the coordinator's queue, adding from a description (asynchronously too),
/// the stores-did-change notifications, and the SQLite options descriptions set.
struct CoordinatorConveniencesTests {
    @Test func urlsNamesAndMovingAnAtomicStore() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        coordinator.name = "photos"
        #expect(coordinator.name == "photos")
        let sqlite = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let xml = try coordinator.addPersistentStore(type: .xml, at: folder.file("first.xml"))
        #expect(coordinator.url(for: sqlite) == folder.file("photos.sqlite"))
        #expect(coordinator.setURL(folder.file("moved.sqlite"), for: sqlite) == false)
        #expect(coordinator.url(for: sqlite) == folder.file("photos.sqlite"))

        // The XML store's next save writes the file at its new place.
        #expect(coordinator.setURL(folder.file("second.xml"), for: xml))
        #expect(coordinator.url(for: xml) == folder.file("second.xml"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue("Ada", forKey: "firstName")
            try context.assign(person, to: xml)
            try context.save()
        }
        let reopened = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try reopened.addPersistentStore(type: .xml, at: folder.file("second.xml"))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = reopened
        let names = try reader.performAndWait { try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map { $0.value(forKey: "firstName") as? String } }
        #expect(names == ["Ada"])
    }

    @Test func storesComingAndGoingAreAnnounced() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let changes = Box<[String]>()
        changes.value = []
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(forName: PersistentStoreCoordinator.storesDidChangeNotification, object: coordinator, queue: nil) { note in
                let added = note.userInfo?[PersistentStoreCoordinator.addedPersistentStoresKey] as? [PersistentStore] ?? []
                let removed = note.userInfo?[PersistentStoreCoordinator.removedPersistentStoresKey] as? [PersistentStore] ?? []
                changes.value?.append("added \(added.count) removed \(removed.count)")
            },
            center.addObserver(forName: PersistentStoreCoordinator.willRemoveStoreNotification, object: nil, queue: nil) { note in
                if (note.object as? PersistentStore)?.persistentStoreCoordinator === coordinator { changes.value?.append("will remove") }
            },
        ]
        defer { tokens.forEach(center.removeObserver) }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        coordinator.remove(store)
        #expect(changes.value == ["added 1 removed 0", "will remove", "added 0 removed 1"])
    }

    @Test func theCoordinatorsQueueHoldsItsStores() async throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"))
        let uuid = coordinator.performAndWait { coordinator.metadata(for: store)["NSStoreUUID"] as? String }
        #expect(uuid == store.identifier)
        let seen: String? = await withCheckedContinuation { continuation in
            coordinator.perform { continuation.resume(returning: coordinator.metadata(for: store)["NSStoreUUID"] as? String) }
        }
        #expect(seen == store.identifier)
    }

    @Test func aDescriptionAddsItsStoreAsynchronouslyWhenAsked() async throws {
        let folder = try TemporaryFolder()
        let container = try PersistentContainer(name: "Photos", managedObjectModel: PhotoModel.make())
        let description = PersistentStoreDescription(url: folder.file("later/Photos.sqlite"))
        description.shouldAddStoreAsynchronously = true
        container.persistentStoreDescriptions = [description]
        let failure: String? = await withCheckedContinuation { continuation in
            container.loadPersistentStores { _, error in continuation.resume(returning: error.map { "\($0)" }) }
        }
        #expect(failure == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }

    /// The value of `pragma` on the store's own connection.
    func pragma(_ pragma: String, of store: PersistentStore) throws -> String? {
        let connection = try #require((store as? SQLiteStore)?.connection)
        var value: String?
        try connection.query("PRAGMA \(pragma)") { row in value = sqlite3_column_text(row, 0).map { String(cString: $0) } }
        return value
    }

    @Test func timeoutAndPragmasAreSetOnTheStoresConnection() throws {
        let folder = try TemporaryFolder()
        let description = PersistentStoreDescription(url: folder.file("photos.sqlite"))
        #expect(description.timeout == 5)
        description.timeout = 12.5
        description.setValue("NORMAL", forPragmaNamed: "synchronous")
        description.setValue(-4000, forPragmaNamed: "cache_size")
        description.setValue("off", forPragmaNamed: "journal_mode")
        description.setValue(nil, forPragmaNamed: "journal_mode")
        #expect(description.sqlitePragmas.keys.sorted() == ["cache_size", "synchronous"])
        description.setOption(true, forKey: StoreOption.sqliteAnalyze)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        var failure: (any Error)?
        coordinator.addPersistentStore(with: description) { _, error in failure = error }
        #expect(failure == nil)
        let store = try #require(coordinator.persistentStores.first)
        #expect(try pragma("busy_timeout", of: store) == "12500")
        #expect(try pragma("synchronous", of: store) == "1")
        #expect(try pragma("cache_size", of: store) == "-4000")
        #expect(try pragma("journal_mode", of: store) == "wal")
        let statistics = try #require((store as? SQLiteStore)?.connection).scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
        #expect(statistics == 1)

        // A name that is not a pragma's is refused, naming it.
        let other = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        #expect {
            try other.addPersistentStore(type: .sqlite, at: folder.file("other.sqlite"),
                                         options: [StoreOption.sqlitePragmas: ["cache_size; DROP TABLE ZPHOTO": 1]])
        } throws: { "\($0)".contains("cache_size; DROP TABLE ZPHOTO") }
    }

    @Test func aJournalModeFromTheDescriptionWins() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"),
                                                       options: [StoreOption.sqlitePragmas: ["journal_mode": "DELETE"]])
        #expect(try pragma("journal_mode", of: store) == "delete")
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: folder.file("photos.sqlite"), options: [:])
        #expect(metadata["NSStoreUUID"] as? String == store.identifier)
    }
}
