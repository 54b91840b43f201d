import Foundation

/// Core Data's persistent history tables, as Core Data lays them out, so history written here is
/// read by Core Data and history Core Data wrote is read here.
///
/// - `ATRANSACTION`: one row per save; `Z_PK` is the transaction number a token carries; the
///   author, bundle, context and process names are interned in `ATRANSACTIONSTRING` (the `…TS`
///   columns), their `VARCHAR` twins left empty; `ZTIMESTAMP` in seconds since 2001.
/// - `ACHANGE`: one row per object a save inserted (0), updated (1) or deleted (2): `ZENTITY` is
///   the object's entity number, `ZENTITYPK` its key, `ZCOLUMNS` (updates only) a bitmap of the
///   properties written, and `ZTOMBSTONE<n>` the values of the attributes kept after deletion.
/// - The three tables count their keys in `Z_PRIMARYKEY` under entity numbers 16001–16003, which
///   no model entity takes.
///
/// Core Data builds these tables from a model of its own (entities `TRANSACTION`, `CHANGE`,
/// `TRANSACTIONSTRING`, tables prefixed `A`), so their indexes are named as any model's are: the
/// two fetch indexes that model declares on `TRANSACTION` (`TransactionAuthorIndex`,
/// `TransactionTimestampIndex`), one index per to-one key (`ACHANGE_ZTRANSACTIONID_INDEX`, the
/// four `…TS` keys), and the uniqueness constraint on a string's name.
///
/// Stores whose history predates the interned strings have neither `ATRANSACTIONSTRING` nor the
/// `…TS` columns; Core Data adds both when it opens such a store, and so does `upgradeSQL`.
enum SQLiteHistoryLayout {
    static let changeTable = "ACHANGE"
    static let transactionTable = "ATRANSACTION"
    static let stringTable = "ATRANSACTIONSTRING"
    static let changeNumber: Int64 = 16001
    static let transactionNumber: Int64 = 16002
    static let stringNumber: Int64 = 16003
    /// Entity numbers from here on are Core Data's own tables, never a model's entities.
    static let firstReservedNumber = 16000

    /// The interned-string keys of `ATRANSACTION`, one per name a transaction records.
    static let stringKeyColumns = ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"]

    static func creationSQL(tombstones: Int) -> [String] {
        let tombstoneColumns = (0..<tombstones).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
        return [
            "CREATE TABLE IF NOT EXISTS \(changeTable) ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstoneColumns) )",
            "CREATE TABLE IF NOT EXISTS \(transactionTable) ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
            "CREATE INDEX IF NOT EXISTS \(changeTable)_ZTRANSACTIONID_INDEX ON \(changeTable) (ZTRANSACTIONID)",
            "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON \(transactionTable) (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON \(transactionTable) (ZTIMESTAMP COLLATE BINARY ASC)",
            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(changeNumber), 'CHANGE', 0, 0)",
            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(transactionNumber), 'TRANSACTION', 0, 0)",
        ] + stringKeyColumns.map(stringKeyIndexSQL) + stringTableSQL
    }

    /// `ATRANSACTIONSTRING`, its unique index and its key counter.
    static let stringTableSQL = [
        "CREATE TABLE IF NOT EXISTS \(stringTable) ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON \(stringTable) (ZNAME COLLATE BINARY ASC)",
        "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(stringNumber), 'TRANSACTIONSTRING', 0, 0)",
    ]

    private static func stringKeyIndexSQL(_ column: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(transactionTable)_\(column)_INDEX ON \(transactionTable) (\(column))"
    }

    /// What brings history tables made before the interned strings (`transactionColumns` are
    /// `ATRANSACTION`'s columns) to the current layout; nothing when they have it. Every name
    /// such a transaction recorded stays in its `VARCHAR` column, where readers look when the
    /// key is empty.
    static func upgradeSQL(transactionColumns: Set<String>, hasStringTable: Bool) -> [String] {
        let missing = stringKeyColumns.filter { !transactionColumns.contains($0) }
        guard !missing.isEmpty || !hasStringTable else { return [] }
        return stringTableSQL + missing.flatMap { column in
            ["ALTER TABLE \(transactionTable) ADD COLUMN \(column) INTEGER", stringKeyIndexSQL(column)]
        }
    }

    /// An entity's stored properties in the order `ZCOLUMNS` numbers them: attributes and
    /// relationships together, by name. Bit n, from the most significant bit of the first byte,
    /// is the n-th.
    static func columnOrder(of entity: EntityDescription) -> [PropertyDescription] {
        entity.properties.filter { !$0.isTransient && !($0 is FetchedPropertyDescription) }.sorted { $0.name < $1.name }
    }

    /// The attributes whose values a deletion keeps, by name: `ZTOMBSTONE0`, `ZTOMBSTONE1`, …
    static func tombstoneAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        entity.properties.compactMap { $0 as? AttributeDescription }
            .filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// The bitmap of `properties` (positions in `order`) as `ZCOLUMNS` holds it.
    static func bitmap(_ positions: [Int], count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: max(1, (count + 7) / 8))
        for position in positions where position < count { bytes[position / 8] |= 0x80 >> UInt8(position % 8) }
        return Data(bytes)
    }

    /// The positions a `ZCOLUMNS` bitmap marks; `nil` when it marks a bit past `count` (a bitmap
    /// of another model version: unknown rather than wrong).
    static func positions(in bitmap: Data, count: Int) -> [Int]? {
        var result: [Int] = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let position = byteIndex * 8 + bit
                guard position < count else { return nil }
                result.append(position)
            }
        }
        return result
    }
}
