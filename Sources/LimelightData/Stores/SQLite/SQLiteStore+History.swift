import Foundation
import CSQLite

extension SQLiteStore {
    /// Whether the store has persistent history tables (made here or by Core Data).
    func hasHistory() throws -> Bool {
        try db().scalarInt("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(SQLiteHistoryLayout.transactionTable)]) ?? 0 > 0
    }

    /// The number of the last transaction recorded, 0 when none is.
    func lastHistoryTransaction() throws -> Int64 {
        try db().scalarInt("SELECT max(Z_PK) FROM \(SQLiteHistoryLayout.transactionTable)") ?? 0
    }

    /// The condition on `ATRANSACTION` (aliased `t`) a bound sets, and its value.
    private func condition(_ bound: PersistentHistoryChangeRequest.Bound) -> (sql: String, value: SQLiteValue) {
        switch bound {
        case .afterDate(let date): return ("t.ZTIMESTAMP > ?", .real(date.timeIntervalSinceReferenceDate))
        case .beforeDate(let date): return ("t.ZTIMESTAMP < ?", .real(date.timeIntervalSinceReferenceDate))
        case .afterToken(let token): return ("t.Z_PK > ?", .integer(token?.transactionNumbers[identifier] ?? 0))
        case .beforeToken(let token): return ("t.Z_PK < ?", .integer(token?.transactionNumbers[identifier] ?? 0))
        }
    }

    /// The transactions a bound selects, oldest first, with their changes when asked.
    func historyTransactions(_ bound: PersistentHistoryChangeRequest.Bound, includingChanges: Bool) throws -> [PersistentHistoryTransaction] {
        let db = try db()
        let (condition, value) = condition(bound)
        var rows: [(number: Int64, timestamp: Double, names: [String?])] = []
        // Each name is read from the interned strings, else from its plain column. History made
        // before the strings were interned has neither the keys nor their table (a read-only
        // store keeps that layout; a writable one is brought up to date when it opens).
        let columns = try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.transactionTable, connection: db)
        let interned = !(try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.stringTable, connection: db)).isEmpty
        let fields = ["AUTHOR", "CONTEXTNAME", "BUNDLEID", "PROCESSID"].enumerated().map { index, name in
            let plain = columns.contains("Z\(name)") ? "t.Z\(name)" : "NULL"
            guard interned, columns.contains("Z\(name)TS") else { return (value: plain, join: "") }
            return (value: "coalesce(s\(index).ZNAME, \(plain))",
                    join: " LEFT JOIN \(SQLiteHistoryLayout.stringTable) s\(index) ON s\(index).Z_PK = t.Z\(name)TS")
        }
        let names = fields.map(\.value).joined(separator: ", ")
        let joins = fields.map(\.join).joined()
        try db.query("SELECT t.Z_PK, t.ZTIMESTAMP, \(names) FROM \(SQLiteHistoryLayout.transactionTable) t \(joins) WHERE \(condition) ORDER BY t.Z_PK",
                     [value], cached: false) { row in
            let texts = (2..<6).map { column in sqlite3_column_text(row, Int32(column)).map { String(cString: $0) } }
            rows.append((sqlite3_column_int64(row, 0), sqlite3_column_double(row, 1), texts))
        }
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        if includingChanges, !rows.isEmpty {
            try readChanges(db, condition: condition, value: value) { changes[$0.transactionNumber, default: []].append($0) }
        }
        return rows.map { row in
            PersistentHistoryTransaction(transactionNumber: row.number, timestamp: Date(timeIntervalSinceReferenceDate: row.timestamp),
                                         storeID: identifier, author: row.names[0], contextName: row.names[1], bundleID: row.names[2],
                                         processID: row.names[3], changes: includingChanges ? changes[row.number] ?? [] : nil)
        }
    }

    /// The changes of the transactions `condition` selects. A change to an entity this model
    /// does not have (removed since) is left out.
    private func readChanges(_ db: SQLiteConnection, condition: String, value: SQLiteValue,
                             _ body: (PersistentHistoryChange) -> Void) throws {
        let columns = try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.changeTable, connection: db)
        var tombstoneCount = 0
        while columns.contains("ZTOMBSTONE\(tombstoneCount)") { tombstoneCount += 1 }
        let tombstoneColumns = (0..<tombstoneCount).map { ", c.ZTOMBSTONE\($0)" }.joined()
        let sql = """
            SELECT c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZTRANSACTIONID, c.ZCOLUMNS\(tombstoneColumns)
            FROM \(SQLiteHistoryLayout.changeTable) c JOIN \(SQLiteHistoryLayout.transactionTable) t ON t.Z_PK = c.ZTRANSACTIONID
            WHERE \(condition) ORDER BY c.Z_PK
            """
        try db.query(sql, [value], cached: false) { row in
            guard let entity = schema.entitiesByNumber[Int(sqlite3_column_int64(row, 2))],
                  let type = PersistentHistoryChangeType(rawValue: Int(sqlite3_column_int64(row, 1))) else { return }
            var updated: [PropertyDescription]?
            if type == .update, case .blob(let bitmap) = SQLiteValue(statement: row, column: 5) {
                let order = SQLiteHistoryLayout.columnOrder(of: entity)
                updated = SQLiteHistoryLayout.positions(in: bitmap, count: order.count)?.map { order[$0] }
            }
            var tombstone: [String: Any]?
            if type == .delete {
                var kept: [String: Any] = [:]
                for (index, attribute) in SQLiteHistoryLayout.tombstoneAttributes(of: entity).enumerated() where index < tombstoneCount {
                    let value = SQLiteValue(statement: row, column: Int32(6 + index))
                    // A tombstone keeps what it can: a damaged value is left out rather than
                    // hiding the whole change.
                    if let swift = try? SQLiteValueMapping.swiftValue(value, for: attribute, external: externalBinaryData) { kept[attribute.name] = swift }
                }
                tombstone = kept
            }
            body(PersistentHistoryChange(changeID: sqlite3_column_int64(row, 0),
                                         changedObjectID: objectID(entity: entity, primaryKey: sqlite3_column_int64(row, 3)),
                                         changeType: type, updatedProperties: updated, tombstone: tombstone,
                                         transactionNumber: sqlite3_column_int64(row, 4)))
        }
    }

    /// Deletes the transactions a bound selects and their changes; how many transactions went.
    func deleteHistory(_ bound: PersistentHistoryChangeRequest.Bound) throws -> Int {
        guard !isReadOnly else { throw PersistenceError.store(path: path, reason: "the store is read-only") }
        let (condition, value) = condition(bound)
        let db = try db()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let selected = "SELECT t.Z_PK FROM \(SQLiteHistoryLayout.transactionTable) t WHERE \(condition)"
            _ = try db.run("DELETE FROM \(SQLiteHistoryLayout.changeTable) WHERE ZTRANSACTIONID IN (\(selected))", [value])
            let deleted = try db.run("DELETE FROM \(SQLiteHistoryLayout.transactionTable) WHERE Z_PK IN (\(selected))", [value])
            try db.execute("COMMIT")
            return deleted
        } catch {
            try? db.execute("ROLLBACK")
            throw PersistenceError.store(path: path, reason: "deleting history failed, nothing was deleted: \(error)")
        }
    }
}
