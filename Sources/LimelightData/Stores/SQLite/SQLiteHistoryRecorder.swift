import Foundation
import CSQLite

/// Writes Core Data's persistent history for every save and batch request of a store, inside the
/// same transaction: one `ATRANSACTION` row and one `ACHANGE` row per object. History is kept when
/// the store is opened with `StoreOption.persistentHistoryTracking`, and always for a store that
/// already has history tables (a Core Data store whose app reads its history must not miss the
/// changes made here).
final class SQLiteHistoryRecorder: SQLiteSaveParticipant {
    /// Per entity: where each property slot falls in `ZCOLUMNS`, and which slots a deletion keeps.
    private struct Plan {
        let positions: [Int?]
        let count: Int
        let tombstones: [(slot: Int, attribute: AttributeDescription)]
    }

    private var plans: [ObjectIdentifier: Plan] = [:]
    private var insertSQLByTombstones: [Int: String] = [:]
    /// The names a transaction records besides its author and context: the program and process.
    private let bundleID = ProcessInfo.processInfo.processName
    private let processID = String(ProcessInfo.processInfo.processIdentifier)

    func storeDidOpen(_ store: SQLiteStore) throws {
        let db = try store.db()
        let tombstones = store.model.entities.map { SQLiteHistoryLayout.tombstoneAttributes(of: $0).count }.max() ?? 0
        let exists = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(SQLiteHistoryLayout.changeTable)]) ?? 0
        try db.execute("BEGIN IMMEDIATE")
        do {
            if exists == 0 {
                for statement in SQLiteHistoryLayout.creationSQL(tombstones: tombstones) { try db.execute(statement) }
            } else {
                // A model that keeps more attributes after deletion than the table has room for.
                let columns = try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.changeTable, connection: db)
                for index in 0..<tombstones where !columns.contains("ZTOMBSTONE\(index)") {
                    try db.execute("ALTER TABLE \(SQLiteHistoryLayout.changeTable) ADD COLUMN ZTOMBSTONE\(index) BLOB")
                }
                // History made before the interned strings: every transaction written now needs them.
                let upgrade = SQLiteHistoryLayout.upgradeSQL(
                    transactionColumns: try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.transactionTable, connection: db),
                    hasStringTable: !(try SQLiteSchemaCheck.columns(of: SQLiteHistoryLayout.stringTable, connection: db)).isEmpty)
                for statement in upgrade { try db.execute(statement) }
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw PersistenceError.store(path: store.path, reason: "cannot set up persistent history: \(error)")
        }
    }

    func willCommit(_ changes: SaveChanges, insertedIDs: [ManagedObjectID], store: SQLiteStore) throws {
        guard !changes.isEmpty else { return }
        do {
            try record(changes, insertedIDs: insertedIDs, store: store)
        } catch {
            // The save's transaction is rolled back: no change goes in without its history.
            throw PersistenceError.store(path: store.path, reason: "cannot record persistent history, nothing was written: \(error)")
        }
    }

    private func record(_ changes: SaveChanges, insertedIDs: [ManagedObjectID], store: SQLiteStore) throws {
        let db = try store.db()
        let transaction = try reserveKeys(1, SQLiteHistoryLayout.transactionNumber, db: db, table: SQLiteHistoryLayout.transactionTable)
        // Watching for remote changes tells this store's transactions from everyone else's.
        store.ownTransactions.insert(transaction)
        let names = try [changes.origin.author, bundleID, changes.origin.contextName, processID].map { try $0.map { try intern($0, db: db) } ?? .null }
        _ = try db.run("""
            INSERT INTO \(SQLiteHistoryLayout.transactionTable) (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, \(SQLiteHistoryLayout.transactionNumber), ?, ?, ?, ?, ?)
            """, [.integer(transaction)] + names + [.real(Date().timeIntervalSinceReferenceDate)])
        // Keys for at most one change per object; one left unused (an update that wrote nothing
        // recorded) is a gap, as Core Data's keys may have.
        let count = insertedIDs.count + changes.updated.count + changes.deleted.count
        var key = try reserveKeys(count, SQLiteHistoryLayout.changeNumber, db: db, table: SQLiteHistoryLayout.changeTable) - 1
        func record(_ type: Int64, _ id: ManagedObjectID, columns: SQLiteValue = .null, tombstones: [SQLiteValue] = []) throws {
            guard let primaryKey = id.primaryKey else { return }
            key += 1
            _ = try db.run(insertSQL(tombstones: tombstones.count), [
                .integer(key), .integer(type), .integer(Int64(store.schema.number(of: id.entity))), .integer(primaryKey),
                .integer(transaction), columns,
            ] + tombstones)
        }
        for id in insertedIDs { try record(0, id) }
        for snapshot in changes.updated {
            let plan = self.plan(for: snapshot.id.entity)
            let positions = snapshot.changed.compactMap { plan.positions.indices.contains($0) ? plan.positions[$0] : nil }
            guard !positions.isEmpty else { continue }
            try record(1, snapshot.id, columns: .blob(SQLiteHistoryLayout.bitmap(positions, count: plan.count)))
        }
        for snapshot in changes.deleted {
            let plan = self.plan(for: snapshot.id.entity)
            let kept = try plan.tombstones.map { slot, attribute -> SQLiteValue in
                guard snapshot.values.indices.contains(slot) else { return .null }
                return try SQLiteValueMapping.sqlValue(snapshot.values[slot], for: attribute)
            }
            try record(2, snapshot.id, tombstones: kept)
        }
    }

    /// The text of the change row's INSERT with `tombstones` kept values, made once per count: a
    /// save writes one row per object.
    private func insertSQL(tombstones: Int) -> String {
        if let known = insertSQLByTombstones[tombstones] { return known }
        let columns = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        let sql = "INSERT INTO \(SQLiteHistoryLayout.changeTable) (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(columns)) "
            + "VALUES (?, \(SQLiteHistoryLayout.changeNumber), ?, ?, ?, ?, ?\(String(repeating: ", ?", count: tombstones)))"
        insertSQLByTombstones[tombstones] = sql
        return sql
    }

    func didCommit(store: SQLiteStore) {}
    func flush(store: SQLiteStore) throws {}
    func storeWillClose(_ store: SQLiteStore) {}

    /// The key of `name` in `ATRANSACTIONSTRING`, added if new.
    private func intern(_ name: String, db: SQLiteConnection) throws -> SQLiteValue {
        if let key = try db.scalarInt("SELECT Z_PK FROM \(SQLiteHistoryLayout.stringTable) WHERE ZNAME = ?", [.text(name)]) {
            return .integer(key)
        }
        let key = try reserveKeys(1, SQLiteHistoryLayout.stringNumber, db: db, table: SQLiteHistoryLayout.stringTable)
        _ = try db.run("INSERT INTO \(SQLiteHistoryLayout.stringTable) (Z_PK, Z_ENT, ZNAME) VALUES (?, \(SQLiteHistoryLayout.stringNumber), ?)",
                       [.integer(key), .text(name)])
        return .integer(key)
    }

    /// Reserves `count` keys of a history table and returns the first, counted in `Z_PRIMARYKEY`
    /// so numbers keep rising after history is deleted (tokens compare them).
    private func reserveKeys(_ count: Int, _ number: Int64, db: SQLiteConnection, table: String) throws -> Int64 {
        let last = max(try db.scalarInt("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]) ?? 0,
                       try db.scalarInt("SELECT max(Z_PK) FROM \(table)") ?? 0)
        _ = try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last + Int64(count)), .integer(number)])
        return last + 1
    }

    private func plan(for entity: EntityDescription) -> Plan {
        if let plan = plans[ObjectIdentifier(entity)] { return plan }
        let order = SQLiteHistoryLayout.columnOrder(of: entity)
        let position = Dictionary(order.enumerated().map { ($1.name, $0) }) { first, _ in first }
        let tombstones = SQLiteHistoryLayout.tombstoneAttributes(of: entity).compactMap { attribute in
            entity.index(of: attribute.name).map { (slot: $0, attribute: attribute) }
        }
        let plan = Plan(positions: entity.properties.map { position[$0.name] }, count: order.count, tombstones: tombstones)
        plans[ObjectIdentifier(entity)] = plan
        return plan
    }
}
