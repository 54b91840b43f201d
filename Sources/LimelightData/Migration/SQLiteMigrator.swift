import Foundation
import CSQLite

/// Carries out a lightweight migration of one SQLite store.
///
/// The migrated store is built in a new file next to the old one (the old store attached
/// read-only as `old`), in one transaction, and renamed over the old file only when it is
/// complete: a failure or a crash at any point before the rename leaves the old store as it was,
/// and the rename itself is atomic. Primary keys, `Z_OPT` and the store UUID are kept, so object
/// URIs (and the marker files that carry them) stay valid; entity numbers follow the new model,
/// and every `Z_ENT`, `Z<n>_<REL>` and journal row is renumbered.
struct SQLiteMigrator {
    let storeURL: URL
    let source: ManagedObjectModel
    let destination: ManagedObjectModel
    let mapping: MappingModel
    /// Called before each step with its name; throwing cancels the migration.
    var progress: ((String) throws -> Void)?

    var path: String { storeURL.path }

    func migrate() throws {
        guard mapping.unmappableChanges.isEmpty else { throw MigrationError.unmappable(path: path, changes: mapping.unmappableChanges) }
        let folder = storeURL.deletingLastPathComponent()
        let prefix = ".\(storeURL.lastPathComponent).migrating-"
        // What a migration that crashed left behind is of no use: the store was never replaced.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        let temporary = folder.appendingPathComponent(prefix + UUID().uuidString)
        do {
            try build(at: temporary)
            try progress?("replace the store")
            try Self.replace(storeAt: storeURL, with: temporary)
        } catch {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary.path + suffix) }
            if let error = error as? MigrationError { throw error }
            throw MigrationError.failed(path: path, reason: "\(error)")
        }
    }

    /// Writes the migrated store into `url`.
    private func build(at url: URL) throws {
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        defer { db.close() }
        try CoreDataTriggerFunctions.register(on: db)
        try db.run("ATTACH DATABASE ? AS old", [.text(path)])
        let old = try readOldStore(db)
        let context = MigrationContext(
            db: db, mapping: mapping, entityMap: MappingInference.entityMap(source: source, destination: destination),
            oldSchema: SQLiteSchema(model: source, entityNumbers: old.numbers,
                                    existingColumns: try SQLiteSchemaCheck.existingColumns(of: source, schema: "old", connection: db)),
            newSchema: SQLiteSchema(model: destination))
        try db.execute("BEGIN IMMEDIATE")
        do {
            try progress?("create tables")
            for statement in context.newSchema.creationSQL() { try db.execute(statement) }
            for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
                try progress?("copy \(entity.name)")
                try context.copyRows(of: entity)
            }
            try progress?("copy relationships")
            try context.copyJoinTables()
            try context.repairReferences()
            let missing = try context.missingRequiredValues()
            guard missing.isEmpty else {
                throw MigrationError.failed(path: path, reason: "objects lack values the new model requires:\n"
                                            + missing.map { "  - " + $0 }.joined(separator: "\n"))
            }
            try progress?("copy other tables")
            try context.copyOtherTables(old: old.tables, indexes: old.indexes, path: path)
            // Derived attributes are kept by triggers from here on, and brought up to date now:
            // a derivation new in this version has no values yet.
            try SQLiteStore.installDerivedAttributeTriggers(context.newSchema.derivedAttributeTriggers(), schema: context.newSchema, db: db)
            try writePrimaryKeys(db, context: context, oldMax: old.maxima)
            for row in old.reserved {
                try db.run("INSERT INTO main.Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                           [.integer(Int64(row.number)), .text(row.name), .integer(row.max)])
            }
            try writeMetadata(db, uuid: old.uuid, plist: old.plist)
            try SQLiteStore.writeModelCache(destination, to: db)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        try db.execute("PRAGMA journal_mode=WAL")
    }

    private struct OldStore {
        var numbers: [String: Int] = [:]
        var maxima: [Int: Int64] = [:]
        /// `Z_PRIMARYKEY` rows of Core Data's own tables (persistent history), carried over as they are.
        var reserved: [(number: Int, name: String, max: Int64)] = []
        var tables: [(name: String, sql: String)] = []
        /// Indexes by table name, for the tables carried over as they are.
        var indexes: [String: [String]] = [:]
        var uuid = ""
        var plist: [String: Any] = [:]
    }

    private func readOldStore(_ db: SQLiteConnection) throws -> OldStore {
        var old = OldStore()
        var rows: [(number: Int, name: String, parent: Int)] = []
        try db.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM old.Z_PRIMARYKEY") { row in
            let number = Int(sqlite3_column_int64(row, 0))
            // Core Data's own tables (persistent history) count their keys here too.
            if number >= SQLiteHistoryLayout.firstReservedNumber {
                old.reserved.append((number, sqlite3_column_text(row, 1).map { String(cString: $0) } ?? "", sqlite3_column_int64(row, 3)))
                return
            }
            rows.append((number, sqlite3_column_text(row, 1).map { String(cString: $0) } ?? "", Int(sqlite3_column_int64(row, 2))))
            old.maxima[number] = sqlite3_column_int64(row, 3)
        }
        old.numbers = try SQLiteSchemaCheck.matchEntities(model: source, storeEntities: rows, path: path)
        try db.query("SELECT name, sql FROM old.sqlite_master WHERE type = 'table' AND sql IS NOT NULL") { row in
            old.tables.append((sqlite3_column_text(row, 0).map { String(cString: $0) } ?? "", sqlite3_column_text(row, 1).map { String(cString: $0) } ?? ""))
        }
        try db.query("SELECT tbl_name, sql FROM old.sqlite_master WHERE type = 'index' AND sql IS NOT NULL") { row in
            let table = sqlite3_column_text(row, 0).map { String(cString: $0) } ?? ""
            old.indexes[table, default: []].append(sqlite3_column_text(row, 1).map { String(cString: $0) } ?? "")
        }
        try db.query("SELECT Z_UUID, Z_PLIST FROM old.Z_METADATA WHERE Z_VERSION = 1") { row in
            if case .text(let text) = SQLiteValue(statement: row, column: 0) { old.uuid = text }
            if case .blob(let data) = SQLiteValue(statement: row, column: 1),
               let plist = try? PropertyListReader.read(data) as? [String: Any] {
                old.plist = plist
            }
        }
        guard !old.uuid.isEmpty else { throw MigrationError.failed(path: path, reason: "Z_METADATA has no store UUID") }
        return old
    }

    /// One row per destination entity; each tree's root carries the highest key handed out, never
    /// lower than the old tree's, so keys of deleted objects are not reused.
    private func writePrimaryKeys(_ db: SQLiteConnection, context: MigrationContext, oldMax: [Int: Int64]) throws {
        for entity in destination.entities {
            var highest: Int64 = 0
            if entity.superentity == nil, let table = context.newSchema.table(for: entity) {
                highest = try db.scalarInt("SELECT max(Z_PK) FROM main.\(table.name)") ?? 0
                for member in entity.selfAndDescendants {
                    if let from = context.entityMap[ObjectIdentifier(member)] {
                        highest = max(highest, oldMax[context.oldSchema.number(of: from.rootEntity)] ?? 0)
                    }
                }
            }
            try db.run("INSERT INTO main.Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)", [
                .integer(Int64(context.newSchema.number(of: entity))), .text(entity.name),
                .integer(Int64(entity.superentity.map { context.newSchema.number(of: $0) } ?? 0)), .integer(highest),
            ])
        }
    }

    /// The old metadata with the new model's hashes and identifiers; the UUID is kept.
    private func writeMetadata(_ db: SQLiteConnection, uuid: String, plist old: [String: Any]) throws {
        var plist = old
        plist["NSStoreUUID"] = nil
        plist["NSStoreType"] = "SQLite"
        plist["NSStoreModelVersionHashes"] = destination.entityVersionHashesByName
        plist["NSStoreModelVersionHashesDigest"] = ManagedObjectModel.versionHashesDigest(destination.entityVersionHashesByName)
        plist["NSStoreModelVersionIdentifiers"] = Array(destination.versionIdentifiers).sorted()
        plist["NSStoreModelVersionHashesVersion"] = 3
        plist["LimelightVersion"] = FrameworkVersion.current
        let data = try PropertyListWriter.data(plist, format: .binary)
        try db.run("INSERT INTO main.Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", [.text(uuid), .blob(data)])
    }

    /// Moves the old store's write-ahead log into its file (so no stale log is left to be applied
    /// to the new file), then renames the new file over it.
    static func replace(storeAt storeURL: URL, with temporary: URL) throws {
        let path = storeURL.path
        let old = try SQLiteConnection(path: path, readOnly: false)
        do {
            try old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            old.close()
            throw MigrationError.failed(path: path, reason: "cannot checkpoint the store (is it open elsewhere?): \(error)")
        }
        old.close()
        let manager = FileManager.default
        let wal = path + "-wal"
        if let size = (try? manager.attributesOfItem(atPath: wal))?[.size] as? NSNumber, size.intValue > 0 {
            throw MigrationError.failed(path: path, reason: "the store's write-ahead log is still in use (is it open elsewhere?)")
        }
        // The new file takes the old one's permissions: a store kept private stays private.
        if let permissions = (try? manager.attributesOfItem(atPath: path))?[.posixPermissions] {
            try manager.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary.path)
        }
        try? manager.removeItem(atPath: wal)
        try? manager.removeItem(atPath: path + "-shm")
        guard rename(temporary.path, path) == 0 else {
            throw MigrationError.failed(path: path, reason: "cannot replace the store file: \(String(cString: strerror(errno)))")
        }
        // Make the rename itself durable.
        let directory = open(storeURL.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
