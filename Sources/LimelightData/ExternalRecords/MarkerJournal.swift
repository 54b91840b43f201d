import Foundation
import CSQLite
import Logging

/// Keeps a store's marker files in step with its saves, crash-safely.
///
/// Inside each save's transaction the marker work is written to the table
/// `LIMELIGHT_MARKERJOURNAL` (which object of which entity; cheap, and it commits or rolls back
/// with the data). After the commit the store's `MarkerWriter` carries the journal out in the
/// background, or before `save()` returns with `StoreOption.externalRecordsWrittenSynchronously`.
/// Whatever a crash or a failing records folder left in the journal is carried out by the next
/// pass, at the latest when the store next opens. Markers are rewritten on update only when an
/// indexed or stored-in-file property changed: other changes cannot alter what search shows, and
/// skipping them keeps the daemon from re-importing on every save.
final class MarkerJournal: SQLiteSaveParticipant {
    static let table = "LIMELIGHT_MARKERJOURNAL"
    let configuration: ExternalRecordsConfiguration
    let modelSource: URL?
    let writesSynchronously: Bool
    private(set) var writer: MarkerWriter?
    private let logger = Logger(label: "limelight.markers")
    /// The save being committed journaled something: the writer has work after the commit.
    private var journaled = false

    /// Kept in the journal for stores written by earlier versions, which replayed the action; a
    /// pass now goes by whether the row exists.
    enum Action: Int64 { case write = 1, remove = 2 }

    init(configuration: ExternalRecordsConfiguration, modelSource: URL?, writesSynchronously: Bool) {
        self.configuration = configuration
        self.modelSource = modelSource
        self.writesSynchronously = writesSynchronously
    }

    func storeDidOpen(_ store: SQLiteStore) throws {
        guard !store.isReadOnly else { return }
        let db = try store.db()
        try db.execute("CREATE TABLE IF NOT EXISTS \(Self.table) (Z_PK INTEGER PRIMARY KEY, Z_ACTION INTEGER, Z_ENT INTEGER, Z_OBJECT INTEGER)")
        let writer = MarkerWriter(configuration: configuration, storeIdentifier: store.identifier)
        self.writer = writer
        do {
            try SupportFolderWriter.prepare(store: store, configuration: configuration, modelSource: modelSource)
        } catch {
            logger.error("markers: cannot prepare the records folder; marker work stays journaled: \(error)")
            return
        }
        // Leftover work (a crash, an unusable folder, another process killed mid-pass) is done
        // before open returns: whoever opens a store expects its records folder in step with it.
        if try db.scalarInt("SELECT Z_PK FROM \(Self.table) LIMIT 1") != nil {
            // Work left over: a writer killed mid-write may also have left its temporary file.
            writer.removeTemporaryFiles(store)
        }
        writer.drain(store)
    }

    static func isMarked(_ entity: EntityDescription) -> Bool { entity.hasSpotlightIndexedProperties }

    func willCommit(_ changes: SaveChanges, mapping: [ManagedObjectID: ManagedObjectID], store: SQLiteStore) throws {
        journaled = false
        let db = try store.db()
        func journal(_ action: Action, _ id: ManagedObjectID) throws {
            guard let pk = (mapping[id] ?? id).primaryKey else { return }
            try db.run("INSERT INTO \(Self.table) (Z_ACTION, Z_ENT, Z_OBJECT) VALUES (?, ?, ?)",
                       [.integer(action.rawValue), .integer(Int64(store.schema.number(of: id.entity))), .integer(pk)])
            journaled = true
        }
        for snapshot in changes.inserted where Self.isMarked(snapshot.id.entity) { try journal(.write, snapshot.id) }
        for snapshot in changes.updated where Self.isMarked(snapshot.id.entity) {
            let properties = snapshot.id.entity.properties
            guard snapshot.changed.contains(where: { properties[$0].isIndexedBySpotlight || properties[$0].isStoredInExternalRecord }) else { continue }
            try journal(.write, snapshot.id)
        }
        for snapshot in changes.deleted where Self.isMarked(snapshot.id.entity) { try journal(.remove, snapshot.id) }
    }

    func didCommit(store: SQLiteStore) {
        guard journaled, let writer else { return }
        journaled = false
        if writesSynchronously { writer.drain(store) } else { writer.schedule(store) }
    }

    func flush(store: SQLiteStore) throws {
        try writer?.flush(store)
    }

    func storeWillClose(_ store: SQLiteStore) {
        writer?.stop(store)
        writer = nil
    }
}
