import Foundation
import CSQLite
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Carries out a store's marker journal off the saving thread: one serial queue per store.
///
/// Why: writing a marker costs an open, a write, a close and a rename, which on common file
/// systems takes longer than saving the object. `save()` therefore only journals the work inside
/// its transaction and asks the writer for a pass; several saves in a row coalesce into one pass.
///
/// A pass works from the journal, not from what the save had in memory: holding an exclusive
/// `flock` on a lock file in the records root (so two processes saving the same store never
/// interleave marker work), it reads the pending journal rows in key order through its own
/// connection, reads the objects' *current* rows (one query per table per batch), writes or
/// removes each marker, makes that durable, then deletes exactly the journal rows it carried out. Since the row as it is when the pass runs decides, a marker cannot end up stale
/// when another process changes the object in between: that change journaled a row of its own,
/// which a later pass carries out. Passes take their snapshots in lock order, so the last write
/// of a marker always comes from the newest state.
///
/// How a pass makes its markers durable depends on how many it carried out. A small pass (the
/// common case: one save of a few objects) flushes just its files and the folders whose entries
/// it changed; a large one flushes the file system once with `syncfs`, which costs less than
/// thousands of `fsync`s but also waits for every other dirty file on that file system, e.g. an
/// indexer's own writes or a build running beside the app. Either way the journal rows go only
/// after the flush, so a crash before it leaves the work journaled.
final class MarkerWriter: @unchecked Sendable {
    /// Journal rows read per batch: bounds memory, and the `IN` list of each delete.
    static let batchSize = 5_000
    static let lockFileName = "marker-writer.lock"
    /// Markers written at the same time within a batch.
    static let concurrentWrites = 4
    /// Passes of at most this many markers flush their files and folders one by one rather than
    /// the whole file system. On a clean file system one `syncfs` costs about two `fsync`s of a
    /// marker (traced on the benchmark machine: 0.6–1.7 ms against 0.2–0.9 ms), but it also waits
    /// for every other dirty file there, however much that is; the files of a save or two are
    /// cheaper to flush one by one, a bulk save's thousands are not.
    static let fileSyncLimit = 32

    let configuration: ExternalRecordsConfiguration
    private let queue: DispatchQueue
    private let logger = Logger(label: "limelight.markers")
    private let state = NSLock()
    /// A pass is queued and has not started yet: further saves need not queue another.
    private var isScheduled = false
    /// The writer's own connection, used only on `queue`.
    private var connection: SQLiteConnection?

    init(configuration: ExternalRecordsConfiguration, storeIdentifier: String) {
        self.configuration = configuration
        queue = DispatchQueue(label: "limelight.markers.\(storeIdentifier)")
    }

    /// Queues a pass unless one is already waiting to start (that one will see this save's rows).
    func schedule(_ store: SQLiteStore) {
        let queued = state.withLock {
            if isScheduled { return false }
            isScheduled = true
            return true
        }
        guard queued else { return }
        queue.async { [self] in
            state.withLock { isScheduled = false }
            do {
                try pass(store)
            } catch {
                logger.error("markers: \(error); the work stays journaled for the next pass or open")
            }
        }
    }

    /// Waits for queued passes, then runs one more, so every journaled change (also one an earlier
    /// failing pass left) is on disk when it returns; throws why not otherwise.
    func flush(_ store: SQLiteStore) throws {
        try queue.sync { try pass(store) }
    }

    /// `flush` that logs instead of throwing: for open, close and teardown, which must not fail
    /// because of the records folder.
    func drain(_ store: SQLiteStore) {
        do {
            try flush(store)
        } catch {
            logger.error("markers: \(error); the work stays journaled for the next pass or open")
        }
    }

    /// Drains, then closes the writer's connection (the store is closing).
    func stop(_ store: SQLiteStore) {
        drain(store)
        queue.sync {
            connection?.close()
            connection = nil
        }
    }

    /// Runs `body` on the writer's queue holding the cross-process lock: for a rebuild, which
    /// writes markers outside the journal and must not interleave with a pass.
    func exclusively<T>(_ store: SQLiteStore, _ body: () throws -> T) throws -> T {
        try queue.sync {
            let lock = try acquireLock(store)
            defer { close(lock) }
            return try body()
        }
    }

    /// Removes the temporary files (`.<marker>.<n>.tmp`) that a writer killed between creating
    /// and renaming one left in the entity folders. Under the lock, so no live pass is writing one.
    func removeTemporaryFiles(_ store: SQLiteStore) {
        do {
            try exclusively(store) {
                for path in configuration.entityFolderPaths(storeIdentifier: store.identifier) {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                        unlink(path + "/" + name)
                    }
                }
            }
        } catch {
            logger.error("markers: cannot clear temporary files in \(configuration.recordsRoot(storeIdentifier: store.identifier).path): \(error)")
        }
    }

    // MARK: The pass

    private func pass(_ store: SQLiteStore) throws {
        // A store whose file is gone (deleted with its folder while open, as a temporary folder
        // is at the end of a program's run) has nothing left to mirror. Taking the lock would
        // make the records folder again, and with it every folder above it up to the deleted
        // one; the journal went with the file.
        guard access(store.path, F_OK) == 0 || errno != ENOENT else { return }
        let lock = try acquireLock(store)
        defer { close(lock) }   // closing the descriptor releases the flock
        let db = try ownConnection(store)
        // Rows committed after this point are left for the pass their save queues: a steady stream
        // of saves cannot keep one pass (and its flush) from finishing.
        guard let last = try db.scalarInt("SELECT max(Z_PK) FROM \(MarkerJournal.table)") else { return }
        var carriedOut: [Int64] = []
        var after: Int64 = 0
        var changes = MarkerChanges()
        while after < last {
            let batch = try MarkerBatch.read(after: after, through: last, limit: Self.batchSize, store: store, db: db)
            guard let lastKey = batch.keys.last else { break }
            try carryOut(batch.markers, store: store, changes: &changes)
            carriedOut += batch.keys
            after = lastKey
        }
        guard !carriedOut.isEmpty else { return }
        if changes.fileCount <= Self.fileSyncLimit && !changes.madeFolders {
            try changes.sync()
        } else {
            try syncRecordsRoot(store)
        }
        try forget(carriedOut, db: db)
    }

    /// Writes or removes the batch's markers, several at a time: most of a marker's cost is
    /// waiting on the file system (measured here: 226 µs a file one at a time, 124 µs with two
    /// writers, 97 µs with four), and each object appears once per batch, so order does not matter.
    private func carryOut(_ markers: [MarkerBatch.Marker], store: SQLiteStore, changes: inout MarkerChanges) throws {
        let urls = markers.map {
            configuration.markerURL(storeIdentifier: store.identifier, entityName: $0.entity.name, primaryKey: $0.primaryKey)
        }
        for (marker, url) in zip(markers, urls) {
            let folder = url.deletingLastPathComponent()
            if marker.row != nil, changes.readyFolders.insert(folder.path).inserted, !Self.isFolder(folder.path) {
                try Self.makeFolder(folder)
                // A new folder's own entry (and maybe its parents') would need flushing too.
                changes.madeFolders = true
            }
            changes.record(url.path, in: folder.path, written: marker.row != nil)
        }
        let work = ConcurrentMarkerWork(markers: markers, urls: urls)
        let workers = min(Self.concurrentWrites, max(1, markers.count))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: work.markers.count, by: workers) {
                do {
                    try carryOut(work.markers[index], to: work.urls[index])
                } catch {
                    work.record(error)
                    return
                }
            }
        }
        if let error = work.firstError { throw error }
    }

    private func carryOut(_ marker: MarkerBatch.Marker, to url: URL) throws {
        guard let row = marker.row else {
            if unlink(url.path) != 0 && errno != ENOENT { throw AtomicFile.posixError("cannot remove", url.path) }
            return
        }
        var content = MarkerContent(id: row.id, values: row.values)
        // An entry that cannot be read (a damaged journal row) leaves the object to be indexed from
        // its properties rather than holding up every marker after it.
        content.spotlight = marker.spotlight.flatMap { try? SpotlightEntry.decode($0) }
        try AtomicFile.write(try content.encoded(format: configuration.fileFormat), to: url)
    }

    /// One flush for everything the pass wrote, before the journal forgets the work.
    private func syncRecordsRoot(_ store: SQLiteStore) throws {
        let root = configuration.recordsRoot(storeIdentifier: store.identifier).path
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicFile.posixError("cannot open", root) }
        defer { close(fd) }
        guard linuxSyncFS(fd) == 0 else { throw AtomicFile.posixError("cannot flush", root) }
    }

    /// Deletes exactly `keys`, never a range: a key is reused once the table has emptied.
    private func forget(_ keys: [Int64], db: SQLiteConnection) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            for start in stride(from: 0, to: keys.count, by: Self.batchSize) {
                let list = keys[start..<min(keys.count, start + Self.batchSize)].map { String($0) }.joined(separator: ",")
                try db.query("DELETE FROM \(MarkerJournal.table) WHERE Z_PK IN (\(list))", cached: false) { _ in }
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: Resources

    /// Creates `folder` (0700) and its parents; a typed error naming the folder otherwise.
    static func makeFolder(_ folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PersistenceError.store(path: folder.path, reason: "cannot create the marker folder: \((error as NSError).localizedDescription)")
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private func ownConnection(_ store: SQLiteStore) throws -> SQLiteConnection {
        if let connection { return connection }
        let opened = try SQLiteConnection(path: store.path, readOnly: false)
        connection = opened
        return opened
    }

    /// Opens (creating when needed) the lock file in the records root's support folder and takes
    /// the exclusive lock, waiting for another process's pass to end. Opened read-only, so taking
    /// the lock does not look like a write to watchers.
    private func acquireLock(_ store: SQLiteStore) throws -> Int32 {
        let support = configuration.recordsRoot(storeIdentifier: store.identifier)
            .appendingPathComponent(SupportFolder.name, isDirectory: true)
        let path = support.appendingPathComponent(Self.lockFileName).path
        var fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            // A records folder deleted while the store is open comes back here; the next open
            // writes its support files again.
            try Self.makeFolder(support)
            fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, mode_t(0o600))
        }
        guard fd >= 0 else { throw AtomicFile.posixError("cannot open the lock file", path) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let error = AtomicFile.posixError("cannot lock", path)
            close(fd)
            throw error
        }
        return fd
    }
}

/// What a pass changed in the records folder, kept while few enough to flush file by file.
private struct MarkerChanges {
    /// Markers written or removed so far.
    private(set) var fileCount = 0
    /// Markers written, while `fileCount` is within the writer's file-sync limit.
    private(set) var written: [String] = []
    /// Folders whose entries changed (renames into them, removals from them).
    private(set) var folders: Set<String> = []
    /// Folders markers are written to that are known to exist (or were made) in this pass.
    var readyFolders: Set<String> = []
    /// The pass created a folder: flushing it needs its parents too, so the pass uses `syncfs`.
    var madeFolders = false

    mutating func record(_ path: String, in folder: String, written isWritten: Bool) {
        fileCount += 1
        folders.insert(folder)
        guard fileCount <= MarkerWriter.fileSyncLimit else { return }
        if isWritten { written.append(path) }
    }

    /// Flushes each written marker, then each changed folder: the data first, then the names
    /// that lead to it. Only valid while `fileCount` is within the limit.
    func sync() throws {
        for path in written { try Self.sync(path, flags: O_RDONLY) }
        // A folder that is gone held only removed markers: there is nothing left in it to flush.
        for folder in folders.sorted() { try Self.sync(folder, flags: O_RDONLY | O_DIRECTORY, missingIsFine: true) }
    }

    private static func sync(_ path: String, flags: Int32, missingIsFine: Bool = false) throws {
        let fd = open(path, flags | O_CLOEXEC)
        if fd < 0 && errno == ENOENT && missingIsFine { return }
        guard fd >= 0 else { throw AtomicFile.posixError("cannot open to flush", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw AtomicFile.posixError("cannot flush", path) }
    }
}

/// What the writers of one batch share. Unchecked: `markers` and `urls` are only read while the
/// writers run (each its own indices), and the error is kept under a lock.
private final class ConcurrentMarkerWork: @unchecked Sendable {
    let markers: [MarkerBatch.Marker]
    let urls: [URL]
    private let lock = NSLock()
    private var error: (any Error)?

    init(markers: [MarkerBatch.Marker], urls: [URL]) {
        self.markers = markers
        self.urls = urls
    }

    var firstError: (any Error)? { lock.withLock { error } }

    func record(_ failure: any Error) {
        lock.withLock { if error == nil { error = failure } }
    }
}

/// glibc's `syncfs`, which the Glibc module does not export (it sits behind _GNU_SOURCE).
@_silgen_name("syncfs")
private func linuxSyncFS(_ fd: Int32) -> Int32
