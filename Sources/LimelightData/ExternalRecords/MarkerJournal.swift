import Foundation
import CSQLite
import Logging

/// Keeps a store's marker files in step with its saves, crash-safely.
///
/// Inside each save's transaction the marker work is written to the table
/// `LIMELIGHT_MARKERJOURNAL`; after the commit the files are written or removed and the journal
/// rows cleared. Whatever a crash or a failing records folder left in the journal is carried out
/// the next time the store opens. Markers are rewritten on update only when an indexed or
/// stored-in-file property changed: other changes cannot alter what search shows, and skipping
/// them keeps the daemon from re-importing on every save.
final class MarkerJournal: SQLiteSaveParticipant {
    static let table = "LIMELIGHT_MARKERJOURNAL"
    let configuration: ExternalRecordsConfiguration
    let modelSource: URL?
    private let logger = Logger(label: "limelight.markers")
    private var pending: [Work] = []
    private var lastJournalKey: Int64 = 0

    enum Action: Int64 { case write = 1, remove = 2 }

    struct Work {
        let action: Action
        let id: ManagedObjectID
        let content: MarkerContent?
    }

    init(configuration: ExternalRecordsConfiguration, modelSource: URL?) {
        self.configuration = configuration
        self.modelSource = modelSource
    }

    func storeDidOpen(_ store: SQLiteStore) throws {
        guard !store.isReadOnly else { return }
        let db = try store.db()
        try db.execute("CREATE TABLE IF NOT EXISTS \(Self.table) (Z_PK INTEGER PRIMARY KEY, Z_ACTION INTEGER, Z_ENT INTEGER, Z_OBJECT INTEGER)")
        do {
            try SupportFolderWriter.prepare(store: store, configuration: configuration, modelSource: modelSource)
        } catch {
            logger.error("markers: cannot prepare the records folder; marker work stays journaled: \(error)")
            return
        }
        try replay(store)
    }

    static func isMarked(_ entity: EntityDescription) -> Bool { entity.hasSpotlightIndexedProperties }

    func willCommit(_ changes: SaveChanges, mapping: [ManagedObjectID: ManagedObjectID], store: SQLiteStore) throws {
        pending = []
        let resolve = { (id: ManagedObjectID) in mapping[id] ?? id }
        for snapshot in changes.inserted where Self.isMarked(snapshot.id.entity) {
            let id = resolve(snapshot.id)
            pending.append(Work(action: .write, id: id, content: MarkerContent(id: id, values: snapshot.values, resolve: resolve)))
        }
        for snapshot in changes.updated where Self.isMarked(snapshot.id.entity) {
            let properties = snapshot.id.entity.properties
            guard snapshot.changed.contains(where: { properties[$0].isIndexedBySpotlight || properties[$0].isStoredInExternalRecord }) else { continue }
            pending.append(Work(action: .write, id: snapshot.id, content: MarkerContent(id: snapshot.id, values: snapshot.values, resolve: resolve)))
        }
        for snapshot in changes.deleted where Self.isMarked(snapshot.id.entity) {
            pending.append(Work(action: .remove, id: snapshot.id, content: nil))
        }
        guard !pending.isEmpty else { return }
        let db = try store.db()
        for work in pending {
            guard let pk = work.id.primaryKey else { continue }
            try db.run("INSERT INTO \(Self.table) (Z_ACTION, Z_ENT, Z_OBJECT) VALUES (?, ?, ?)",
                       [.integer(work.action.rawValue), .integer(Int64(store.schema.number(of: work.id.entity))), .integer(pk)])
        }
        lastJournalKey = Int64(sqlite3_last_insert_rowid(db.handle))
    }

    func didCommit(store: SQLiteStore) {
        let work = pending
        pending = []
        guard !work.isEmpty else { return }
        do {
            try perform(work, store: store)
            try store.db().run("DELETE FROM \(Self.table) WHERE Z_PK <= ?", [.integer(lastJournalKey)])
        } catch {
            logger.error("markers: \(error); the work stays journaled and is finished when the store next opens")
        }
    }

    private func perform(_ work: [Work], store: SQLiteStore) throws {
        var createdFolders: Set<String> = []
        for item in work {
            guard let pk = item.id.primaryKey else { continue }
            let url = configuration.markerURL(storeIdentifier: store.identifier, entityName: item.id.entity.name, primaryKey: pk)
            switch item.action {
            case .write:
                guard let content = item.content else { continue }
                let folder = url.deletingLastPathComponent()
                if createdFolders.insert(folder.path).inserted {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                            attributes: [.posixPermissions: 0o700])
                }
                try AtomicFile.write(try content.encoded(format: configuration.fileFormat), to: url)
            case .remove:
                if unlink(url.path) != 0 && errno != ENOENT { throw AtomicFile.posixError("cannot remove", url.path) }
            }
        }
        // One flush for the whole batch, before the journal forgets the work.
        let root = configuration.recordsRoot(storeIdentifier: store.identifier).path
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = linuxSyncFS(fd); close(fd) }
    }

    /// Carries out journaled work left by a crash or an unavailable records folder.
    func replay(_ store: SQLiteStore) throws {
        let db = try store.db()
        var entries: [(key: Int64, action: Action, entity: Int, pk: Int64)] = []
        try db.query("SELECT Z_PK, Z_ACTION, Z_ENT, Z_OBJECT FROM \(Self.table) ORDER BY Z_PK") { row in
            if let action = Action(rawValue: sqlite3_column_int64(row, 1)) {
                entries.append((sqlite3_column_int64(row, 0), action, Int(sqlite3_column_int64(row, 2)), sqlite3_column_int64(row, 3)))
            }
        }
        guard let last = entries.last else { return }
        var work: [Work] = []
        for entry in entries {
            guard let entity = store.schema.entitiesByNumber[entry.entity] else { continue }
            let id = store.objectID(entity: entity, primaryKey: entry.pk)
            // The row as it is now decides: written if it exists, removed if it does not.
            if let row = try store.sqliteRows(for: [id]).first {
                work.append(Work(action: .write, id: row.id, content: MarkerContent(id: row.id, values: row.values)))
            } else {
                work.append(Work(action: .remove, id: id, content: nil))
            }
        }
        do {
            try perform(work, store: store)
            try db.run("DELETE FROM \(Self.table) WHERE Z_PK <= ?", [.integer(last.key)])
            logger.info("markers: finished \(work.count) journaled marker change(s) left from an earlier session")
        } catch {
            logger.error("markers: cannot finish journaled work yet: \(error)")
        }
    }
}

/// glibc's `syncfs`, which the Glibc module does not export (it sits behind _GNU_SOURCE).
@_silgen_name("syncfs")
private func linuxSyncFS(_ fd: Int32) -> Int32
