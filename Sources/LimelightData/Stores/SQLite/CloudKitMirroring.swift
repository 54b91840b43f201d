import CSQLite
import Foundation

/// What a store keeps for `NSPersistentCloudKitContainer`'s mirroring delegate, which this
/// framework leaves to it.
///
/// Such a store holds the delegate's own tables, named `ANSCK…` (`ANSCKRECORDMETADATA`, one row
/// per mirrored object: `ZENTITYID` its entity number, `ZENTITYPK` its key, `ZCKRECORDNAME`,
/// `ZNEEDSUPLOAD`, `ZNEEDSCLOUDDELETE`, …; `ANSCKRECORDZONEMETADATA`, `ANSCKDATABASEMETADATA`,
/// `ANSCKMETADATAENTRY`, `ANSCKMIRROREDRELATIONSHIP`, `ANSCKHISTORYANALYZERSTATE`, `ANSCKEVENT`,
/// the export and import operations), their key counters in `Z_PRIMARYKEY` under numbers from
/// 17000 on, and persistent history, which the delegate reads to find what to export.
///
/// Nothing here syncs. Saves leave every mirroring table, row and counter as they are and write
/// persistent history as Core Data writes it, so the delegate of the application on a Mac or
/// iPhone exports the changes the next time it runs there. The delegate migrates its own tables
/// by column name, so only the entity numbers in them are this framework's concern: when a
/// migration renumbers entities, they are renumbered too, as Core Data's migration does.
public struct CloudKitMirroring: Sendable, Equatable {
    /// The mirroring tables present, by name.
    public var tables: [String]
    /// Objects the delegate tracks (`ANSCKRECORDMETADATA` rows).
    public var trackedObjects: Int
    /// Objects whose changes the delegate has yet to send (`ZNEEDSUPLOAD`).
    public var pendingUploads: Int
    /// Objects whose deletion the delegate has yet to send (`ZNEEDSCLOUDDELETE`).
    public var pendingDeletes: Int

    static let tablePrefix = "ANSCK"
    static let recordTable = "ANSCKRECORDMETADATA"
    /// The mirroring tables that name objects by entity number and key, with the columns
    /// that do.
    static let entityNumberedTables = ["ANSCKRECORDMETADATA", "ANSCKHISTORYANALYZERSTATE"]
    static let entityColumns = ["ZENTITYID", "ZENTITYPK"]

    /// The mirroring state of the store at `url`, read without changing it; nil for a store not
    /// mirrored.
    public static func inspect(storeAt url: URL) throws -> CloudKitMirroring? {
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        return try inspect(db, path: url.path)
    }

    /// Reads the mirroring tables of `db` (`schema` names the attached database), refusing one
    /// whose shape this framework would misread: a table naming objects without the
    /// columns that name them.
    static func inspect(_ db: SQLiteConnection, schema: String = "main", path: String) throws -> CloudKitMirroring? {
        var tables: [String] = []
        try db.query("SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND upper(name) LIKE 'ANSCK%' ORDER BY name", cached: false) { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { tables.append(name) }
        }
        guard !tables.isEmpty else { return nil }
        for table in tables where entityNumberedTables.contains(table.uppercased()) {
            let columns = try columnNames(of: table, in: db, schema: schema)
            let missing = entityColumns.filter { !columns.contains($0) }
            guard missing.isEmpty else {
                throw PersistenceError.store(path: path, reason: "the CloudKit mirroring table \(table) has no \(missing.joined(separator: " or ")) column, "
                    + "so the objects it tracks cannot be told apart; the store was left unchanged")
            }
        }
        var mirroring = CloudKitMirroring(tables: tables, trackedObjects: 0, pendingUploads: 0, pendingDeletes: 0)
        guard let records = tables.first(where: { $0.uppercased() == recordTable }) else { return mirroring }
        let columns = try columnNames(of: records, in: db, schema: schema)
        func sum(_ column: String) -> String { columns.contains(column) ? "total(\(column) = 1)" : "0" }
        try db.query("SELECT count(*), \(sum("ZNEEDSUPLOAD")), \(sum("ZNEEDSCLOUDDELETE")) FROM \(schema).\(records)", cached: false) { row in
            mirroring.trackedObjects = Int(sqlite3_column_int64(row, 0))
            mirroring.pendingUploads = Int(sqlite3_column_int64(row, 1))
            mirroring.pendingDeletes = Int(sqlite3_column_int64(row, 2))
        }
        return mirroring
    }

    /// The upper-cased names of `table`'s columns.
    private static func columnNames(of table: String, in db: SQLiteConnection, schema: String) throws -> Set<String> {
        var columns: Set<String> = []
        try db.query("SELECT upper(name) FROM pragma_table_info(?, ?)", [.text(table), .text(schema)], cached: false) { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { columns.insert(name) }
        }
        return columns
    }

    /// After a migration copied `table` as it was: its objects' entity numbers made the new
    /// model's (`cases` maps old numbers to new, `WHEN 3 THEN 5 …`), and its rows for objects
    /// of entities the new model no longer has removed, as those objects were.
    static func renumberSQL(table: String, cases: String) -> [String] {
        guard !cases.isEmpty else { return ["DELETE FROM main.\(table)"] }
        return ["UPDATE main.\(table) SET ZENTITYID = CASE ZENTITYID\(cases) END",
                "DELETE FROM main.\(table) WHERE ZENTITYID IS NULL"]
    }
}
