import Foundation
import Testing
@testable import LimelightData

/// Remote change notifications: a coordinator watching its SQLite store (real inotify) hears of
/// commits by another coordinator and by another process (the sqlite3 program), not of its own.
@Suite(.serialized) struct RemoteChangeTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [AttributeDescription(name: "title", type: .string)])])
    }

    /// Notifications a coordinator posted, gathered from any thread.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var infos: [[AnyHashable: Any]] = []
        private var observer: (any NSObjectProtocol)?

        init(_ coordinator: PersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] note in
                guard let self else { return }
                lock.withLock { infos.append(note.userInfo ?? [:]) }
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        var all: [[AnyHashable: Any]] { lock.withLock { infos } }

        func wait(for count: Int) throws {
            let deadline = Date().addingTimeInterval(10)
            while all.count < count {
                guard Date() < deadline else { throw PersistenceError.invalidRequest("heard \(all.count) of \(count) remote changes") }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    func coordinator(_ url: URL, history: Bool, watching: Bool) throws -> PersistentStoreCoordinator {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [
            StoreOption.persistentHistoryTracking: history, StoreOption.remoteChangeNotificationPost: watching,
        ])
        return coordinator
    }

    func save(_ title: String, through coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
            try context.save()
        }
    }

    @Test(arguments: [true, false])
    func anotherCoordinatorsSavesAreHeardAndOwnAreNot(history: Bool) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let watching = try coordinator(url, history: history, watching: true)
        let other = try coordinator(url, history: history, watching: false)
        let heard = Heard(watching)
        try save("own", through: watching)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(heard.all.isEmpty)
        try save("theirs", through: other)
        try heard.wait(for: 1)
        let info = try #require(heard.all.first)
        let store = try #require(watching.persistentStores.first)
        #expect(info[RemoteChangeKey.storeUUID] as? String == store.identifier)
        #expect((info[RemoteChangeKey.storeURL] as? URL)?.standardizedFileURL == url.standardizedFileURL)
        if history {
            // The token leads to what changed.
            let token = try #require(info[RemoteChangeKey.historyToken] as? PersistentHistoryToken)
            #expect((token.transactionNumbers[store.identifier] ?? 0) >= 2)
        } else {
            #expect(info[RemoteChangeKey.historyToken] == nil)
        }
        // Removed from the coordinator: no more notifications.
        watching.remove(store)
        try save("later", through: other)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(heard.all.count == 1)
    }

    @Test func anotherProgramsCommitsAreHeard() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let watching = try coordinator(url, history: false, watching: true)
        let heard = Heard(watching)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", url.path, "UPDATE Z_METADATA SET Z_VERSION = Z_VERSION"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        try heard.wait(for: 1)
    }

    @Test func onlySQLiteStoresCanBeWatched() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: PersistenceError.self) {
            try coordinator.addPersistentStore(type: .inMemory, options: [StoreOption.remoteChangeNotificationPost: true])
        }
        #expect(coordinator.persistentStores.isEmpty)
    }
}
