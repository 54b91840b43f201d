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
        for list in Self.keyLists(keys) {
            guard let source = relationshipSource(relationship, table: table) else { return ([:], []) }
            let order = memberOrder(relationship, alias: schema.joinTable(for: relationship) == nil ? "t0" : "j", key: "t0.Z_PK")
            let sql = "SELECT \(selectList(table)), \(source.owner) FROM \(source.from) WHERE \(source.owner) IN (\(list)) ORDER BY \(order)"
            try db.query(sql, cached: false) { statement in
                let row = try decode(statement, table: table, layouts: &layouts)
                guard row.id.entity.isKind(of: destination),
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
              let table = schema.table(for: destination), let source = relationshipSource(relationship, table: table) else { return }
        let sql = "SELECT \(selectList(table)) FROM \(source.from) WHERE \(source.owner) = ?"
        var layouts = RowLayouts()
        try db().query(sql, [.integer(pk)]) { statement in
            let row = try decode(statement, table: table, layouts: &layouts)
            if row.id.entity.isKind(of: destination) { try body(row) }
        }
    }

    /// `sqliteRelatedRows(of:relationship:each:)` for batch faulting, whose caller holds the
    /// members' IDs from the relationship's ID query: each row is handed over with its member's
    /// position, found by key, and no object ID is made for it.
    func sqliteRelatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, members: [ManagedObjectID],
                           each body: (_ position: Int, _ version: Int64, _ values: [StoredValue]) throws -> Void) throws {
        guard let pk = id.primaryKey, let destination = relationship.destinationEntity,
              let table = schema.table(for: destination), let source = relationshipSource(relationship, table: table) else { return }
        let sql = "SELECT \(selectList(table)) FROM \(source.from) WHERE \(source.owner) = ?"
        var layouts = RowLayouts()
        var positions = MemberPositions(members, store: reference)
        try db().query(sql, [.integer(pk)]) { statement in
            let row = try decodeKeyed(statement, table: table, layouts: &layouts)
            guard row.entity.isKind(of: destination),
                  let position = positions.position(of: row.primaryKey, rootIdentity: row.entity.rootIdentity) else { return }
            try body(position, row.version, row.values)
        }
    }

    /// Where a to-many's destination rows (as `t0`) come from, and the column that holds their
    /// owner's key: the join table joined to the destination's table, or the inverse's foreign
    /// key; `nil` for a to-many with neither.
    private func relationshipSource(_ relationship: RelationshipDescription, table: SQLiteSchema.Table) -> (from: String, owner: String)? {
        if let join = schema.joinTable(for: relationship) {
            return ("\(join.name) j JOIN \(table.name) t0 ON t0.Z_PK = j.\(join.destinationColumn)", "j.\(join.sourceColumn)")
        }
        guard let inverse = relationship.inverseRelationship else { return nil }
        return ("\(table.name) t0", "t0.\(schema.column(for: inverse))")
    }
}
