import Foundation
import CSQLite

/// A store in an SQLite file, in Core Data's layout: stores written by Core Data open here, and
/// stores written here look familiar to Core Data tools.
final class SQLiteStore: PersistentStore, @unchecked Sendable {
    var connection: SQLiteConnection? { didSet { connection?.statementObserver = statementObserver } }
    /// Called with the text of every SQL statement the store runs, as `LIMELIGHT_SQL_DEBUG` logs
    /// them; lets a caller (a test) see which queries a fetch issued without the environment.
    var statementObserver: ((String) -> Void)? { didSet { connection?.statementObserver = statementObserver } }
    var schema: SQLiteSchema { didSet { rowsByKeySQL = [:] } }
    /// Called inside each save's transaction and after its commit (marker files use these).
    var saveParticipants: [SQLiteSaveParticipant] = []

    /// Where values that Core Data stored outside their rows are found.
    let externalBinaryData: ExternalBinaryData
    /// Whether bytes a transformer cannot decode are refused as damage rather than read as nil
    /// (`acceptUndecodable`): set for a migration's reading, which would copy the nil for good.
    var refusesUndecodableValues = false
    /// Called with each warning the store logs about a value it reads as nil; lets a caller (a
    /// test) see them without the process's logging.
    var warningObserver: ((String) -> Void)?

    init(url: URL, configurationName: String?, options: [String: any Sendable], model: ManagedObjectModel) {
        schema = SQLiteSchema(model: model)
        externalBinaryData = ExternalBinaryData(storeURL: url)
        super.init(type: .sqlite, url: url, configurationName: configurationName, options: options, model: model)
    }

    /// Per entity, where each stored property goes and the INSERT statement for a full row, built
    /// once instead of per row.
    var writePlans: [ObjectIdentifier: SQLiteWritePlan] = [:]
    /// The text of the SELECTs that load rows by primary key, by table name and number of keys:
    /// batch faulting runs them again and again.
    var rowsByKeySQL: [String: [Int: String]] = [:]

    /// Marker settings from the options; `nil` when markers are off.
    private(set) var externalRecords: ExternalRecordsConfiguration?
    /// What the store keeps for CloudKit's mirroring delegate, when opened for writing and it keeps anything.
    private(set) var mirroring: CloudKitMirroring?

    var path: String { url?.path ?? "" }
    /// What the remote-change check last saw: the connection's `data_version`, the last history
    /// transaction, and the transactions this store wrote since.
    var remoteChangeMark: (dataVersion: Int64, transaction: Int64)?
    var ownTransactions: Set<Int64> = []
    /// The ordered to-manys' position columns the store has (`prepareOrderColumns`).
    var orderColumnsPresent: Set<SQLiteSchema.OrderColumn> = []
    /// While a context pinned to a query generation reads (under the coordinator's lock): the
    /// generation's connection, which reads go through instead of the store's own.
    var generationConnection: SQLiteConnection?

    func db() throws -> SQLiteConnection {
        guard let connection else { throw PersistenceError.store(path: path, reason: "the store is closed") }
        return generationConnection ?? connection
    }

    /// The functions and collations the SQL this store writes calls (folding, regular expressions,
    /// numeric-aware ordering, aggregates),
    /// on any connection that runs it. Core Data's trigger functions are only for writers.
    static func registerFunctions(on connection: SQLiteConnection) throws {
        try SQLiteFunctions.register(on: connection)
        try SQLiteCollations.register(on: connection)
        try SQLiteAggregateFunctions.register(on: connection)
    }

    /// Opens a connection for reading as the store is now, with the functions SQL the store
    /// writes needs: a query generation's.
    func openReadConnection() throws -> SQLiteConnection {
        let reader = try SQLiteConnection(path: path, readOnly: true)
        do {
            try SQLiteConnectionOptions.applyTimeout(options, to: reader, path: path)
            try Self.registerFunctions(on: reader)
        } catch {
            reader.close()
            throw error
        }
        return reader
    }

    override func loadStore() throws {
        let exists = FileManager.default.fileExists(atPath: path)
        if let url, let configuration = try ExternalRecordsConfiguration(options: options, storeURL: url) {
            externalRecords = configuration
            let source = (options[StoreOption.modelSourcePath] as? String).map { URL(fileURLWithPath: $0) }
            let synchronous = options[StoreOption.externalRecordsWrittenSynchronously] as? Bool ?? false
            saveParticipants = [MarkerJournal(configuration: configuration, modelSource: source, writesSynchronously: synchronous)]
        }
        if !exists && isReadOnly { throw PersistenceError.store(path: path, reason: "no such store (opened read-only)") }
        if exists { try Self.checkHeader(path) }
        if !exists {
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let connection = try SQLiteConnection(path: path, readOnly: isReadOnly)
        self.connection = connection
        do {
            try SQLiteConnectionOptions.applyTimeout(options, to: connection, path: path)
            // The file is known to be a store (or empty) before anything is written to it: the
            // journal mode is kept in the file's header, so switching it changes the file.
            let hasTables = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'Z_PRIMARYKEY'") ?? 0
            if hasTables == 0 {
                guard !isReadOnly else { throw PersistenceError.store(path: path, reason: "not a Core Data store (no Z_PRIMARYKEY table)") }
                try refuseForeignTables(connection)
                try setUpJournal(connection)
                try create(connection)
            } else {
                try open(connection)
                if !isReadOnly {
                    // The mirroring delegate's tables are read (and refused when misshapen) before
                    // anything is written; reading needs nothing of them.
                    mirroring = try CloudKitMirroring.inspect(connection, path: path)
                    try setUpJournal(connection)
                }
            }
            if !isReadOnly, try keepsHistory() { saveParticipants.append(SQLiteHistoryRecorder()) }
            if !isReadOnly { try SQLiteConnectionOptions.runMaintenance(options, on: connection) }
            try Self.registerFunctions(on: connection)
            try CoreDataTriggerFunctions.register(on: connection)
            if !isReadOnly, hasTables != 0 {
                try prepareDerivedAttributeTriggers(connection)
                try prepareRTreeIndexes(connection)
            }
            for participant in saveParticipants { try participant.storeDidOpen(self) }
        } catch {
            for participant in saveParticipants { participant.storeWillClose(self) }
            connection.close()
            self.connection = nil
            throw error
        }
    }

    /// WAL, as Core Data keeps its stores, then the application's pragmas, which have the last word.
    private func setUpJournal(_ connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA journal_mode=WAL")
        try SQLiteConnectionOptions.applyPragmas(options, to: connection, path: path)
    }

    /// A database with tables but none of Core Data's is another program's: its tables are
    /// not joined by a store's (Core Data refuses such a file too).
    private func refuseForeignTables(_ connection: SQLiteConnection) throws {
        var names: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { names.append(name) }
        }
        guard !names.isEmpty else { return }
        let listed = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
        throw PersistenceError.store(path: path, reason: "an SQLite database but not a Core Data store: it has tables (\(listed)) and no Z_PRIMARYKEY; it was left unchanged")
    }

    /// Whether saves record persistent history: when asked to, when the store already has it, or
    /// when CloudKit mirrors it, whose delegate finds what to export in that history.
    private func keepsHistory() throws -> Bool {
        try options[StoreOption.persistentHistoryTracking] as? Bool == true || hasHistory() || mirroring != nil
    }

    /// The participant writing persistent history, when the store keeps it.
    var historyRecorder: SQLiteHistoryRecorder? { saveParticipants.lazy.compactMap { $0 as? SQLiteHistoryRecorder }.first }

    override func fetchRows(_ fetch: StoreFetch) throws -> [StoreRow] { try sqliteFetchRows(fetch) }
    override func fetchRows(_ fetch: StoreFetch, each body: (StoreRow) throws -> Void) throws { try sqliteFetchRows(fetch, each: body) }
    override func fetchCount(_ fetch: StoreFetch) throws -> Int { try sqliteFetchCount(fetch) }
    override func fetchIDs(_ fetch: StoreFetch) throws -> [ManagedObjectID] { try sqliteFetchIDs(fetch) }
    override func fetchDictionaries(_ fetch: StoreFetch) throws -> [[String: Any]] { try sqliteFetchDictionaries(fetch) }
    override func relatedRows(_ relationship: RelationshipDescription, owners: [ManagedObjectID]) throws
        -> (related: [ManagedObjectID: [ManagedObjectID]], rows: [StoreRow]) {
        try sqliteRelatedRows(relationship, owners: owners)
    }
    override func relatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, each body: (StoreRow) throws -> Void) throws {
        try sqliteRelatedRows(of: id, relationship: relationship, each: body)
    }
    override func relatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, members: [ManagedObjectID],
                              each body: (_ position: Int, _ version: Int64, _ values: [StoredValue]) throws -> Void) throws {
        try sqliteRelatedRows(of: id, relationship: relationship, members: members, each: body)
    }
    override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] { try sqliteRows(for: ids) }
    override func row(of entity: EntityDescription, matching properties: [PropertyDescription], values: [StoredValue]) throws -> StoreRow? {
        try sqliteRow(of: entity, matching: properties, values: values)
    }
    override func heldPositions(of entity: EntityDescription, attribute: AttributeDescription, among values: [StoredValue]) throws -> Set<Int>? {
        try sqliteHeldPositions(of: entity, attribute: attribute, among: values)
    }
    override func rows(for ids: [ManagedObjectID], each body: (StoreRow) throws -> Void) throws { try sqliteRows(for: ids, each: body) }
    override func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try sqliteRelatedIDs(of: id, relationship: relationship)
    }
    override func save(_ changes: SaveChanges) throws -> [ManagedObjectID] { try sqliteSave(changes) }
    override var checksLockedVersionsInSave: Bool { true }
    override func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        try sqliteObtainPermanentIDs(for: ids)
    }

    override func flushExternalRecords() throws {
        for participant in saveParticipants { try participant.flush(store: self) }
    }

    override func close() {
        for participant in saveParticipants { participant.storeWillClose(self) }
        connection?.close()
        connection = nil
    }

    private func create(_ db: SQLiteConnection) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            for statement in schema.creationSQL() { try db.execute(statement) }
            for trigger in schema.derivedAttributeTriggers() { try db.execute(trigger.sql) }
            orderColumnsPresent = Set(schema.orderColumns)
            try Self.writeModelCache(model, to: db)
            for entity in model.entities {
                try db.run("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)", [
                    .integer(Int64(schema.number(of: entity))), .text(entity.name),
                    .integer(Int64(entity.superentity.map { schema.number(of: $0) } ?? 0)),
                ])
            }
            metadata = [
                "NSStoreType": "SQLite",
                "NSStoreUUID": identifier,
                "NSStoreModelVersionHashes": model.entityVersionHashesByName,
                "NSStoreModelVersionHashesDigest": ManagedObjectModel.versionHashesDigest(model.entityVersionHashesByName),
                "NSStoreModelVersionIdentifiers": Array(model.versionIdentifiers).sorted(),
                "NSStoreModelVersionHashesVersion": 3,
                "NSPersistenceFrameworkVersion": 1,
                "LimelightVersion": FrameworkVersion.current,
                "_NSAutoVacuumLevel": "2",
            ]
            try writeMetadata(db)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    private func open(_ db: SQLiteConnection) throws {
        var plistData: Data?
        var uuid: String?
        do {
            try db.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") { row in
                if case .text(let text) = SQLiteValue(statement: row, column: 0) { uuid = text }
                if case .blob(let data) = SQLiteValue(statement: row, column: 1) { plistData = data }
            }
        } catch {
            throw PersistenceError.store(path: path, reason: "the store is corrupt or not a Core Data store: \(error)")
        }
        guard let uuid else { throw PersistenceError.store(path: path, reason: "Z_METADATA has no store UUID") }
        identifier = uuid
        if let plistData {
            guard let plist = try? PropertyListReader.read(plistData) as? [String: Any] else {
                throw PersistenceError.store(path: path, reason: "Z_METADATA.Z_PLIST is not a property list")
            }
            metadata = plist
        }
        metadata["NSStoreUUID"] = uuid
        // A store written here carries this framework's hashes: they, not names, say whether it fits.
        if metadata["LimelightVersion"] != nil, let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Data] {
            try SQLiteSchemaCheck.verifyHashes(model: model, storeHashes: hashes, path: path)
            // A store an earlier version wrote gets Core Data's hashes the first time it is opened
            // for writing; until then both are accepted.
            // It also gets the model cache those versions left empty.
            if hashes != model.entityVersionHashesByName, !isReadOnly {
                metadata["NSStoreModelVersionHashes"] = model.entityVersionHashesByName
                metadata["NSStoreModelVersionHashesDigest"] = ManagedObjectModel.versionHashesDigest(model.entityVersionHashesByName)
                try db.execute("BEGIN IMMEDIATE")
                do {
                    try writeMetadata(db)
                    if try db.scalarInt("SELECT count(*) FROM Z_MODELCACHE") == 0 { try Self.writeModelCache(model, to: db) }
                    try db.execute("COMMIT")
                } catch {
                    try? db.execute("ROLLBACK")
                    throw error
                }
            }
        }
        var numbers: [String: Int] = [:]
        var storeEntities: [(number: Int, name: String, parent: Int)] = []
        try db.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < \(SQLiteHistoryLayout.firstReservedNumber)") { row in
            let number = Int(sqlite3_column_int64(row, 0))
            let name = sqlite3_column_text(row, 1).map { String(cString: $0) } ?? ""
            storeEntities.append((number, name, Int(sqlite3_column_int64(row, 2))))
        }
        numbers = try SQLiteSchemaCheck.matchEntities(model: model, storeEntities: storeEntities, path: path)
        schema = SQLiteSchema(model: model, entityNumbers: numbers,
                              existingColumns: try SQLiteSchemaCheck.existingColumns(of: model, connection: db))
        try SQLiteSchemaCheck.verifyColumns(schema: schema, connection: db, path: path)
        try prepareOrderColumns(db)
    }

    func writeMetadata(_ db: SQLiteConnection) throws {
        try Self.writeMetadata(metadata, uuid: identifier, to: db, path: path)
    }

    /// `Z_METADATA`'s row: the UUID in its column, the rest as a binary property list.
    private static func writeMetadata(_ metadata: [String: Any], uuid: String, to db: SQLiteConnection, path: String) throws {
        var plist = metadata
        plist["NSStoreUUID"] = nil
        let data: Data
        do {
            data = try PropertyListWriter.data(plist, format: .binary)
        } catch {
            throw PersistenceError.store(path: path, reason: "cannot encode metadata: \(error)")
        }
        try db.run("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", [.text(uuid), .blob(data)])
    }

    override func setMetadata(_ metadata: [String: Any]) throws {
        guard !isReadOnly else { throw PersistenceError.store(path: path, reason: "the store is read-only") }
        var merged = metadata
        merged["NSStoreUUID"] = identifier
        let previous = self.metadata
        self.metadata = merged
        do {
            try writeMetadata(try db())
        } catch {
            self.metadata = previous
            throw error
        }
    }

    /// Replaces the metadata of the store at `url` without opening it as a store (its UUID and
    /// type stay), in one transaction.
    static func writeMetadata(_ metadata: [String: Any], at url: URL) throws {
        try checkHeader(url.path)
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        defer { db.close() }
        var uuid: String?
        do {
            try db.query("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1") { row in
                if case .text(let text) = SQLiteValue(statement: row, column: 0) { uuid = text }
            }
        } catch {
            throw PersistenceError.store(path: url.path, reason: "the store is corrupt or not a Core Data store: \(error)")
        }
        guard let uuid else { throw PersistenceError.store(path: url.path, reason: "Z_METADATA has no store UUID") }
        var plist = metadata
        plist["NSStoreType"] = StoreType.sqlite.rawValue
        try db.execute("BEGIN IMMEDIATE")
        do {
            try writeMetadata(plist, uuid: uuid, to: db, path: url.path)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Reads a store's metadata without opening it as a store.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        try checkHeader(url.path)
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        var result: [String: Any] = [:]
        try db.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") { row in
            if case .blob(let data) = SQLiteValue(statement: row, column: 1),
               let plist = try? PropertyListReader.read(data) as? [String: Any] {
                result = plist
            }
            if case .text(let uuid) = SQLiteValue(statement: row, column: 0) { result["NSStoreUUID"] = uuid }
        }
        return result
    }
}
