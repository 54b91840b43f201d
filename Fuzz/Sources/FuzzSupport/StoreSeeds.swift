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
