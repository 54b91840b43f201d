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
        try db.execute("CREATE TABLE IF NOT EXISTS \(Self.table) (Z_PK INTEGER PRIMARY KEY, Z_ACTION INTEGER, Z_ENT INTEGER, Z_OBJECT INTEGER, Z_SPOTLIGHT BLOB)")
        // Journals made before Core Spotlight delegates have no column for their entries.
        if try !SQLiteSchemaCheck.columns(of: Self.table, connection: db).contains("Z_SPOTLIGHT") {
            try db.execute("ALTER TABLE \(Self.table) ADD COLUMN Z_SPOTLIGHT BLOB")
        }
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

    static let insertSQL = "INSERT INTO \(table) (Z_ACTION, Z_ENT, Z_OBJECT, Z_SPOTLIGHT) VALUES (?, ?, ?, ?)"

    /// Runs once per save, inside its transaction, over every object the save writes: it reads
    /// only each object's ID (and an update's changed slots), works out once per entity whether
    /// and how it is marked, and writes every row through one prepared statement.
    func willCommit(_ changes: SaveChanges, insertedIDs: [ManagedObjectID], store: SQLiteStore) throws {
        journaled = false
        let db = try store.db()
        var entities = MarkedEntities(schema: store.schema)
        var statement: OpaquePointer?
        func journal(_ action: Action, _ id: ManagedObjectID, entityNumber: Int64, spotlight: Data? = nil) throws {
            guard let pk = id.primaryKey else { return }
            let prepared: OpaquePointer
            if let statement { prepared = statement } else {
                prepared = try db.prepare(Self.insertSQL)
                statement = prepared
            }
            let rc = sqlite3_bind_int64(prepared, 1, action.rawValue) | sqlite3_bind_int64(prepared, 2, entityNumber)
                | sqlite3_bind_int64(prepared, 3, pk)
            guard rc == SQLITE_OK else { throw db.error("binding the values of \(Self.insertSQL)") }
            try db.bind(spotlight.map { .blob($0) } ?? .null, at: 4, to: prepared)
            try db.step(prepared, sql: Self.insertSQL)
            journaled = true
        }
        var entries = changes.spotlightEntries
        // A context's save brings its delegate's entries (`describeForSpotlight`); a batch request
        // brings none, and its objects are described here, as they are in this transaction.
        if entries.isEmpty, let delegate = SpotlightEntry.describes(store), let coordinator = delegate.coordinator {
            let marked = (insertedIDs + changes.updated.map(\.id)).filter { entities.marking(of: $0.entity) != nil }
            if !marked.isEmpty { entries = delegate.entries(describing: marked, coordinator: coordinator) }
        }
        for (index, id) in insertedIDs.enumerated() {
            guard let marking = entities.marking(of: id.entity) else { continue }
            // A save's entries name its new objects by their temporary IDs, a batch's by their own.
            try journal(.write, id, entityNumber: marking.entityNumber,
                        spotlight: entries.isEmpty ? nil : entries[changes.inserted[index].id] ?? entries[id])
        }
        // Indices, not `for snapshot in`: a snapshot copied out of the array costs a reference
        // count for each of its parts, and only the ID and the changed slots are read.
        for index in changes.updated.indices {
            let id = changes.updated[index].id
            guard let marking = entities.marking(of: id.entity) else { continue }
            // A delegate's description may read any property, so with one every change counts.
            let entry = entries.isEmpty ? nil : entries[id]
            guard entry != nil || changes.updated[index].changed.contains(where: { marking.affectsMarker[$0] }) else { continue }
            try journal(.write, id, entityNumber: marking.entityNumber, spotlight: entry)
        }
        for index in changes.deleted.indices {
            let id = changes.deleted[index].id
            guard let marking = entities.marking(of: id.entity) else { continue }
            try journal(.remove, id, entityNumber: marking.entityNumber)
        }
    }

    /// Journals markers to write with a delegate's entries, outside any save: a delegate describing
    /// a store's saved objects anew. Its own transaction; the writer takes it as a save's.
    func journalEntries(_ entries: [(id: ManagedObjectID, entry: Data)], store: SQLiteStore) throws {
        guard !entries.isEmpty else { return }
        let db = try store.db()
        var entities = MarkedEntities(schema: store.schema)
        try db.execute("BEGIN IMMEDIATE")
        do {
            for (id, entry) in entries {
                guard let pk = id.primaryKey, let marking = entities.marking(of: id.entity) else { continue }
                _ = try db.run(Self.insertSQL, [.integer(Action.write.rawValue), .integer(marking.entityNumber), .integer(pk), .blob(entry)])
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw PersistenceError.store(path: store.path, reason: "cannot journal the Spotlight delegate's descriptions: \(error)")
        }
        journaled = true
        didCommit(store: store)
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

/// Whether and how one save's entities are marked, worked out once per entity rather than once
/// per object (which walked the entity's properties for each).
private struct MarkedEntities {
    /// A marked entity as the journal writes it.
    struct Marking {
        let entityNumber: Int64
        /// By property slot: whether a change to it can change the marker (an indexed or
        /// stored-in-file property); other changes leave the marker as it is.
        let affectsMarker: [Bool]
    }

    let schema: SQLiteSchema
    /// `nil` for an entity known to be unmarked.
    private var known: [ObjectIdentifier: Marking?] = [:]
    /// The entity asked about last: a save's objects usually come entity by entity.
    private var last: (entity: ObjectIdentifier, marking: Marking?)?

    init(schema: SQLiteSchema) { self.schema = schema }

    /// The entity's marking, or `nil` when its objects have no markers.
    mutating func marking(of entity: EntityDescription) -> Marking? {
        let key = ObjectIdentifier(entity)
        if let last, last.entity == key { return last.marking }
        let marking: Marking?
        if let found = known[key] {
            marking = found
        } else {
            marking = MarkerJournal.isMarked(entity)
                ? Marking(entityNumber: Int64(schema.number(of: entity)),
                          affectsMarker: entity.properties.map { $0.isIndexedBySpotlight || $0.isStoredInExternalRecord })
                : nil
            known[key] = marking
        }
        last = (key, marking)
        return marking
    }
}
