import Foundation
import CSQLite

/// The files an SQLite store is made of, and copying or removing them as one: the database, its
/// write-ahead log and shared memory, the support folder beside it (Core Data's external data,
/// Limelight's default records folder) and the store's records root and registry entry.
enum SQLiteStoreFiles {
    /// The database and the files SQLite keeps beside it while it is open.
    static func databaseFiles(_ url: URL) -> [URL] {
        [url] + ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
    }

    /// The support folders next to the store (`.<name>_SUPPORT`, by name with and without its
    /// extension, as Core Data names them).
    static func supportFolders(_ url: URL) -> [URL] {
        let directory = url.deletingLastPathComponent()
        let names = [url.lastPathComponent, url.deletingPathExtension().lastPathComponent]
        return Array(Set(names)).sorted().map { directory.appendingPathComponent(".\($0)_SUPPORT", isDirectory: true) }
    }

    /// The store's UUID, or `nil` when there is no store at `url`; an error when the file is not
    /// an SQLite store.
    static func identifier(of url: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try SQLiteStore.readMetadata(at: url)["NSStoreUUID"] as? String
    }

    /// Removes the store and everything kept for it. Marker files outside the support folder go
    /// when `options` say where they are; the records root leaves the registry, so the daemon
    /// stops watching it.
    static func destroy(at url: URL, options: [String: any Sendable]) throws {
        let identifier = try identifier(of: url)
        var removals = databaseFiles(url) + supportFolders(url)
        if let identifier {
            if let records = try ExternalRecordsConfiguration(options: options, storeURL: url) {
                removals.append(records.recordsRoot(storeIdentifier: identifier))
            }
            let registry = StoreOption.url(options[StoreOption.recordsRegistryDirectory]) ?? ExternalRecordsRegistry.rootsDirectory
            removals.append(registry.appendingPathComponent(identifier))
        }
        for item in removals where FileManager.default.fileExists(atPath: item.path) {
            do {
                try FileManager.default.removeItem(at: item)
            } catch {
                throw PersistenceError.store(path: url.path, reason: "cannot remove \(item.path): \(error.localizedDescription)")
            }
        }
    }

    /// Makes the store at `destination` an exact copy of the one at `source` (its UUID too, so
    /// object URIs stay valid), read through SQLite's backup interface so a source in use by
    /// another program copies consistently. Core Data's external data is copied beside it.
    static func replace(at destination: URL, from source: URL) throws {
        guard try identifier(of: source) != nil else {
            throw PersistenceError.store(path: source.path, reason: "no store to copy from")
        }
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let from = try SQLiteConnection(path: source.path, readOnly: true)
        defer { from.close() }
        let to = try SQLiteConnection(path: destination.path, readOnly: false)
        defer { to.close() }
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw PersistenceError.store(path: destination.path, reason: "cannot copy \(source.path): \(to.lastError)")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw PersistenceError.store(path: destination.path, reason: "copying \(source.path) failed, the copy is unusable: \(to.lastError)")
        }
        try to.execute("PRAGMA journal_mode=WAL")
        for (fromFolder, toFolder) in zip(supportFolders(source), supportFolders(destination)) {
            let external = fromFolder.appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
            guard FileManager.default.fileExists(atPath: external.path) else { continue }
            let target = toFolder.appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.createDirectory(at: toFolder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: external, to: target)
        }
    }
}
