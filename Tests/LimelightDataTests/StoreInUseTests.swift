import Foundation
import Testing
@testable import LimelightData

/// An `sqlite3` process holding a store's write lock (`BEGIN EXCLUSIVE`) until released, as
/// another program using the store would.
final class StoreLockHolder {
    private let process = Process()
    private let input = Pipe()

    init(_ url: URL) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nUPDATE Z_METADATA SET Z_VERSION = Z_VERSION;\n".utf8))
        // Held once another writer is refused at once.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try !Self.canWrite(url) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw PersistenceError.store(path: url.path, reason: "the lock was not taken")
    }

    private static func canWrite(_ url: URL) throws -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        probe.arguments = [url.path, "BEGIN IMMEDIATE; ROLLBACK;"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    func release() {
        guard process.isRunning else { return }
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}

/// Stores in use or in odd places: locked by another process, opened read-only, with their
/// newest data still in `-wal`, or a path that holds no store.
@Suite struct StoreInUseTests {
    static func model() -> ManagedObjectModel { StoreLayoutTests.model() }

    static func store(at url: URL) throws {
        let context = try TestStack.context(model: model(), at: url)
        try context.insertNewObject(forEntityName: "Shelf").setValue("first", forKey: "label")
        try context.save()
    }

    /// A save waits for the lock as long as `StoreOption.timeout` says, then fails naming the
    /// store and the lock, keeping the context's changes; once the lock is gone it succeeds.
    @Test func aSaveMeetingAnotherProcesssLockFailsClearlyAndSucceedsOnRetry() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url)
        let context = try TestStack.context(model: Self.model(), at: url, options: [StoreOption.timeout: 0.5])
        let holder = try StoreLockHolder(url)
        // Reading goes on beside the other writer (WAL).
        #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).count == 1)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        shelf.setValue("second", forKey: "label")
        let start = Date()
        var message = ""
        do {
            try context.save()
            Issue.record("the save went through another process's lock")
        } catch let error as PersistenceError {
            message = "\(error)"
        }
        let waited = Date().timeIntervalSince(start)
        #expect(waited >= 0.4 && waited < 5, "waited \(waited) s")
        #expect(message.contains(url.path), "\(message)")
        #expect(message.contains("another connection or process holds a lock"), "\(message)")
        #expect(message.contains("0.5 s"), "\(message)")
        #expect(context.hasChanges)
        #expect(context.insertedObjects.contains(shelf))
        holder.release()
        try context.save()
        #expect(try sqliteQuery(url, "SELECT ZLABEL FROM ZSHELF ORDER BY Z_PK") == ["first", "second"])
    }

    @Test func theReadOnlyOptionReadsAndRefusesASaveLeavingTheFileAlone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try Self.store(at: url)
        _ = try sqliteQuery(url, "PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try Data(contentsOf: url)
        let context = try TestStack.context(model: Self.model(), at: url, options: [StoreOption.readOnly: true])
        let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        #expect(shelf.value(forKey: "label") as? String == "first")
        shelf.setValue("changed", forKey: "label")
        #expect { try context.save() } throws: { error in
            "\(error)".contains(url.path) && "\(error)".contains("read-only")
        }
        #expect(try Data(contentsOf: url) == before)
    }

    /// A store copied with its `-wal` and `-shm` beside it, as Core Data leaves them while the
    /// store is open: the newest saves, still in the WAL, are read.
    @Test(arguments: [false, true])
    func aStoreCopiedWithItsWALReadsItsNewestData(readOnly: Bool) throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        let copy = folder.file("copy/shelves.sqlite")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.insertNewObject(forEntityName: "Shelf").setValue("first", forKey: "label")
        try context.save()
        try context.insertNewObject(forEntityName: "Shelf").setValue("newest", forKey: "label")
        try context.save()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal")).count > 0)
        let reader = try TestStack.context(model: Self.model(), at: copy, options: [StoreOption.readOnly: readOnly])
        let labels = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).compactMap { $0.value(forKey: "label") as? String }
        #expect(labels.sorted() == ["first", "newest"])
    }

    @Test func aFolderAtTheStoresPathIsRefusedNamingIt() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for options in [[:], [StoreOption.readOnly: true]] as [[String: any Sendable]] {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            #expect { try coordinator.addPersistentStore(type: .sqlite, at: url, options: options) } throws: { error in
                error is PersistenceError && "\(error)".contains(url.path) && "\(error)".contains("folder")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty)
    }

    /// An empty file is a new store, as in Core Data; opened read-only it is refused.
    @Test func aZeroLengthFileBecomesANewStoreAndIsRefusedReadOnly() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect { try coordinator.addPersistentStore(type: .sqlite, at: url, options: [StoreOption.readOnly: true]) } throws: { error in
            "\(error)".contains(url.path) && "\(error)".contains("not a Core Data store")
        }
        #expect(try Data(contentsOf: url).isEmpty)
        try Self.store(at: url)
        #expect(try sqliteQuery(url, "SELECT ZLABEL FROM ZSHELF") == ["first"])
    }

    /// Another program's SQLite database is not made a store: refused, byte for byte as it was
    /// (its journal mode too), with no `-wal` left beside it.
    @Test func anotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        try sqliteEdit(url, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
        let before = try Data(contentsOf: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect { try coordinator.addPersistentStore(type: .sqlite, at: url) } throws: { error in
            "\(error)".contains(url.path) && "\(error)".contains("not a Core Data store") && "\(error)".contains("notes")
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(try sqliteQuery(url, "PRAGMA journal_mode") == ["delete"])
    }
}
