import Foundation
@testable import LimelightData

/// SQLite store files as seeds: one file each, whatever a `-wal` beside it held.
public enum StoreSeeds {
    /// Removes a store file and the files SQLite keeps beside it.
    public static func removeStore(at url: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(url.path + suffix) }
    }

    /// The store at `url` with its `-wal` checkpointed into it, as one file's bytes.
    public static func singleFile(_ url: URL) throws -> Data {
        let connection = try SQLiteConnection(path: url.path, readOnly: false)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        return try Data(contentsOf: url)
    }

    /// A new store at `url` of `model`, filled by `FuzzModel.populate`, as one file's bytes.
    public static func populatedStore(at url: URL, model: ManagedObjectModel) throws -> Data {
        try removeStore(at: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try FuzzModel.populate(context)
            try context.save()
        }
        coordinator.remove(store)
        return try singleFile(url)
    }

    /// A copy in `folder` of the store at `url` (and its `-wal`), checkpointed into one file.
    public static func checkpointedCopy(of url: URL, in folder: URL) throws -> URL {
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        try removeStore(at: copy)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        _ = try singleFile(copy)
        return copy
    }
}
