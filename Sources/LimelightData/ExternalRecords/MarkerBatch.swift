import Foundation
import CSQLite

/// One batch of a marker pass: journal rows in key order and the current row of every object
/// they name, read in one read transaction so both come from the same snapshot.
struct MarkerBatch {
    struct Marker {
        let entity: EntityDescription
        let primaryKey: Int64
        /// The object's row now; `nil` when it no longer exists (its marker goes).
        let row: StoreRow?
        /// What a Core Spotlight delegate said of the object at its latest journaled save, if one
        /// did (an encoded `SpotlightEntry`).
        var spotlight: Data?
    }

    /// The journal keys read, ascending; all of them are carried out by writing `markers`.
    var keys: [Int64] = []
    /// One per object, however often the journal names it.
    var markers: [Marker] = []

    /// Reads up to `limit` journal rows with keys in `after+1...through`, then the rows of their
    /// objects with one query per table (a join of the journal with the table), never one per object.
    static func read(after: Int64, through: Int64, limit: Int, store: SQLiteStore, db: SQLiteConnection) throws -> MarkerBatch {
        var batch = MarkerBatch()
        try db.execute("BEGIN")
        do {
            var objects: [(entity: EntityDescription, pk: Int64)] = []
            var seen: Set<ObjectKey> = []
            var spotlight: [ObjectKey: Data] = [:]
            let journal = "SELECT Z_PK, Z_ENT, Z_OBJECT, Z_SPOTLIGHT FROM \(MarkerJournal.table) WHERE Z_PK > ? AND Z_PK <= ? ORDER BY Z_PK LIMIT ?"
            try db.query(journal, [.integer(after), .integer(through), .integer(Int64(limit))]) { row in
                batch.keys.append(sqlite3_column_int64(row, 0))
                let number = Int(sqlite3_column_int64(row, 1))
                let pk = sqlite3_column_int64(row, 2)
                // Rows of an entity the model no longer has are dropped with the batch.
                guard let entity = store.schema.entitiesByNumber[number] else { return }
                let key = ObjectKey(entity: number, pk: pk)
                if seen.insert(key).inserted { objects.append((entity, pk)) }
                // Rows come in key order: the latest save's entry (or its lack of one) stands.
                if sqlite3_column_type(row, 3) == SQLITE_BLOB, case .blob(let entry) = SQLiteValue(statement: row, column: 3) {
                    spotlight[key] = entry
                } else if !spotlight.isEmpty {
                    spotlight[key] = nil
                }
            }
            var rows: [ObjectKey: StoreRow] = [:]
            if let first = batch.keys.first, let last = batch.keys.last {
                rows = try currentRows(of: objects.map(\.entity), from: first, through: last, store: store, db: db)
            }
            try db.execute("COMMIT")
            batch.markers = objects.map { object in
                let key = ObjectKey(entity: store.schema.number(of: object.entity), pk: object.pk)
                return Marker(entity: object.entity, primaryKey: object.pk, row: rows[key], spotlight: spotlight[key])
            }
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        return batch
    }

    private struct ObjectKey: Hashable {
        let entity: Int
        let pk: Int64
    }

    /// The rows of every object journaled in `first...last`, one query per table.
    private static func currentRows(of entities: [EntityDescription], from first: Int64, through last: Int64,
                                    store: SQLiteStore, db: SQLiteConnection) throws -> [ObjectKey: StoreRow] {
        var tables: [ObjectIdentifier: (table: SQLiteSchema.Table, numbers: Set<Int>)] = [:]
        for entity in entities {
            guard let table = store.schema.table(for: entity) else { continue }
            tables[ObjectIdentifier(entity.rootEntity), default: (table, [])].numbers.insert(store.schema.number(of: entity))
        }
        var rows: [ObjectKey: StoreRow] = [:]
        var layouts = SQLiteStore.RowLayouts()
        for (table, numbers) in tables.values {
            let entityList = numbers.sorted().map(String.init).joined(separator: ",")
            let sql = """
                SELECT \(store.selectList(table)) FROM \(table.name) t0 WHERE t0.Z_PK IN \
                (SELECT Z_OBJECT FROM \(MarkerJournal.table) WHERE Z_PK BETWEEN ? AND ? AND Z_ENT IN (\(entityList)))
                """
            try db.query(sql, [.integer(first), .integer(last)]) { statement in
                let row = try store.decode(statement, table: table, layouts: &layouts)
                rows[ObjectKey(entity: store.schema.number(of: row.id.entity), pk: sqlite3_column_int64(statement, 0))] = row
            }
        }
        return rows
    }
}
