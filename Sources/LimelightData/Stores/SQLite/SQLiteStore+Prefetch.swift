import Foundation
import CSQLite

extension SQLiteStore {
    /// The rows across a to-many for many owners in one statement (per `keysPerStatement` owners):
    /// a join table or the inverse's foreign key, with each row's owner key as the last column.
    func sqliteRelatedRows(_ relationship: RelationshipDescription, owners: [ManagedObjectID]) throws
        -> (related: [ManagedObjectID: [ManagedObjectID]], rows: [StoreRow]) {
        guard let destination = relationship.destinationEntity, let table = schema.table(for: destination) else { return ([:], []) }
        var ownersByKey: [Int64: ManagedObjectID] = [:]
        for owner in owners { if let key = owner.primaryKey { ownersByKey[key] = owner } }
        var related: [ManagedObjectID: [ManagedObjectID]] = [:]
        for owner in ownersByKey.values { related[owner] = [] }
        var rows: [StoreRow] = []
        var seen: Set<ManagedObjectID> = []
        var layouts = RowLayouts()
        let ownerColumn = Int32(3 + table.columns.count)
        let keys = Array(ownersByKey.keys).sorted()
        let db = try db()
        for start in stride(from: 0, to: keys.count, by: Self.keysPerStatement) {
            let list = keys[start..<min(keys.count, start + Self.keysPerStatement)].map(String.init).joined(separator: ",")
            let sql: String
            if let join = schema.joinTable(for: relationship) {
                sql = "SELECT \(selectList(table)), j.\(join.sourceColumn) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn) "
                    + "WHERE j.\(join.sourceColumn) IN (\(list)) ORDER BY t0.Z_PK"
            } else if let inverse = relationship.inverseRelationship {
                let column = schema.column(for: inverse)
                sql = "SELECT \(selectList(table)), t0.\(column) FROM \(table.name) t0 WHERE t0.\(column) IN (\(list)) ORDER BY t0.Z_PK"
            } else {
                return ([:], [])
            }
            try db.query(sql, cached: false) { statement in
                guard let row = decode(statement, table: table, layouts: &layouts), row.id.entity.isKind(of: destination),
                      let owner = ownersByKey[sqlite3_column_int64(statement, ownerColumn)] else { return }
                related[owner, default: []].append(row.id)
                if seen.insert(row.id).inserted { rows.append(row) }
            }
        }
        return (related, rows)
    }

    /// One owner's to-many as whole rows, with the relationship's own query: the foreign-key
    /// index (or the join table) walked once, as a hand-written join would, instead of a key
    /// look-up per object.
    func sqliteRelatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, each body: (StoreRow) throws -> Void) throws {
        guard let pk = id.primaryKey, let destination = relationship.destinationEntity,
              let table = schema.table(for: destination) else { return }
        let sql: String
        if let join = schema.joinTable(for: relationship) {
            sql = "SELECT \(selectList(table)) FROM \(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn) "
                + "WHERE j.\(join.sourceColumn) = ?"
        } else if let inverse = relationship.inverseRelationship {
            sql = "SELECT \(selectList(table)) FROM \(table.name) t0 WHERE t0.\(schema.column(for: inverse)) = ?"
        } else {
            return
        }
        var layouts = RowLayouts()
        try db().query(sql, [.integer(pk)]) { statement in
            if let row = decode(statement, table: table, layouts: &layouts), row.id.entity.isKind(of: destination) { try body(row) }
        }
    }
}
