import Foundation
import CSQLite

extension SQLiteStore {
    func selectList(_ table: SQLiteSchema.Table, alias: String = "t0") -> String {
        (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    func entityFilter(_ entities: [EntityDescription], table: SQLiteSchema.Table) -> String? {
        let all = table.root.selfAndDescendants
        if entities.count == all.count { return nil }
        return "t0.Z_ENT IN (\(entities.map { String(schema.number(of: $0)) }.joined(separator: ", ")))"
    }

    /// ORDER BY for the sort descriptors: columns, and key paths through to-ones as scalar
    /// subqueries; `nil` when one of them needs in-memory sorting (a to-many or a transient).
    func orderBy(_ descriptors: [QuerySortDescriptor], entity: EntityDescription, translator: inout SQLPredicateTranslator) -> (sql: String, bindings: [SQLiteValue])?? {
        guard !descriptors.isEmpty else { return .some(nil) }
        var terms: [String] = []
        var bindings: [SQLiteValue] = []
        for descriptor in descriptors {
            guard let operand = try? translator.operand(.keyPath(descriptor.key), .init(alias: "t0", entity: entity)),
                  operand.toMany == nil else { return nil }
            bindings += operand.bindings
            terms.append(Self.orderTerm(operand.sql, descriptor))
        }
        return .some(("ORDER BY " + terms.joined(separator: ", "), bindings))
    }

    /// One ORDER BY term: the value, folded for case-insensitive comparison (the registered
    /// `LL_FOLD`) or collated for localized comparison (`LL_LOCALIZED`, which also orders digits
    /// by number), so SQL orders as `ValueOrdering` does in memory, and its direction.
    static func orderTerm(_ value: String, _ descriptor: QuerySortDescriptor) -> String {
        let term: String
        switch descriptor.comparison {
        case .standard: term = value
        case .caseInsensitive: term = "LL_FOLD(\(value), 1)"
        case .localized: term = "\(value) COLLATE \(SQLiteCollations.localized)"
        }
        return term + (descriptor.ascending ? "" : " DESC")
    }

    /// The SELECT of a fetch with `columns`, its WHERE (entity filter and predicate), ORDER BY and
    /// paging; `sortsInSQL` is false when the rows still need sorting and paging in memory.
    func selectStatement(_ fetch: StoreFetch, columns: String, table: SQLiteSchema.Table, ordered: Bool = true) throws
        -> (sql: String, bindings: [SQLiteValue], sortsInSQL: Bool) {
        var clauses: [String] = []
        var bindings: [SQLiteValue] = []
        var translator = SQLPredicateTranslator(schema: schema, entity: fetch.entity)
        translator.orderColumnsPresent = orderColumnsPresent
        if let filter = entityFilter(fetch.entities, table: table) { clauses.append(filter) }
        if let predicate = fetch.request.predicate {
            clauses.append(try translator.whereCondition(predicate, &bindings))
        }
        var sql = "SELECT \(columns) FROM \(table.name) t0"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        let order = orderBy(ordered ? fetch.request.sortDescriptors : [], entity: fetch.entity, translator: &translator)
        if case .some(.some(let clause)) = order {
            sql += " " + clause.sql
            bindings += clause.bindings
        }
        let sortsInSQL = order != nil
        if ordered, sortsInSQL, fetch.request.fetchLimit > 0 || fetch.request.fetchOffset > 0 {
            // Bound, not inlined: paging through a result reuses one prepared statement.
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(fetch.request.fetchLimit > 0 ? fetch.request.fetchLimit : -1)), .integer(Int64(fetch.request.fetchOffset))]
        }
        return (sql, bindings, sortsInSQL)
    }

    func sqliteFetchRows(_ fetch: StoreFetch) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try sqliteFetchRows(fetch) { rows.append($0) }
        return rows
    }

    /// The rows of a fetch one by one, as SQLite steps to them when it sorts and pages them;
    /// otherwise all of them first, then sorted and paged here.
    func sqliteFetchRows(_ fetch: StoreFetch, each body: (StoreRow) throws -> Void) throws {
        guard let table = schema.table(for: fetch.entity) else { return }
        let statement = try selectStatement(fetch, columns: selectList(table), table: table)
        var layouts = RowLayouts()
        if statement.sortsInSQL {
            try db().query(statement.sql, statement.bindings) { row in
                try body(try decode(row, table: table, layouts: &layouts))
            }
            return
        }
        var rows: [StoreRow] = []
        try db().query(statement.sql, statement.bindings) { row in
            rows.append(try decode(row, table: table, layouts: &layouts))
        }
        for row in try sortInMemory(rows, fetch: fetch) { try body(row) }
    }

    /// Only the IDs of the matching rows: `Z_PK` and `Z_ENT`, no values decoded.
    func sqliteFetchIDs(_ fetch: StoreFetch) throws -> [ManagedObjectID] {
        guard let table = schema.table(for: fetch.entity) else { return [] }
        let statement = try selectStatement(fetch, columns: "t0.Z_PK, t0.Z_ENT", table: table)
        guard statement.sortsInSQL else { return try sqliteFetchRows(fetch).map(\.id) }
        // The entities by number and the store's identifier are read once, not through the
        // store's properties for every row, and a row of the same entity as the one before (all
        // of them, without sub-entities) takes it without hashing its number again: together
        // about a third of what a row cost beyond SQLite's own work.
        let entities = schema.entitiesByNumber
        let reference = self.reference
        var lastNumber: Int64?
        var lastEntity: EntityDescription?
        var ids: [ManagedObjectID] = []
        try db().query(statement.sql, statement.bindings) { row in
            // Both columns checked to be integers with one read of each (`integerKeys`).
            guard let (primaryKey, number) = Self.integerKeys(row) else { throw keyDamage(row, table: table) }
            if number != lastNumber {
                lastEntity = entities[Int(number)].flatMap { $0.rootIdentity == table.root.rootIdentity ? $0 : nil }
                lastNumber = number
            }
            // A row of no entity of this table is read as a fetch of objects reads it, to be
            // refused with its place named.
            guard let entity = lastEntity else {
                var layouts = RowLayouts()
                _ = try rowEntity(row, table: table, layouts: &layouts)
                return
            }
            ids.append(ManagedObjectID(entity: entity, store: reference, primaryKey: primaryKey))
        }
        return ids
    }

    private func sortInMemory(_ rows: [StoreRow], fetch: StoreFetch) throws -> [StoreRow] {
        // Key paths through relationships: order by values read from rows, resolving to-ones here.
        let keyed = try rows.map { row in (row, try fetch.request.sortDescriptors.map { try sortValue(row, keyPath: $0.key) }) }
        let sorted = keyed.sorted { left, right in
            for (position, descriptor) in fetch.request.sortDescriptors.enumerated() {
                let result = ValueOrdering.compare(left.1[position], right.1[position], comparison: descriptor.comparison)
                if result == .orderedSame { continue }
                return descriptor.ascending ? result == .orderedAscending : result == .orderedDescending
            }
            return false
        }.map(\.0)
        let start = min(fetch.request.fetchOffset, sorted.count)
        let end = fetch.request.fetchLimit > 0 ? min(sorted.count, start + fetch.request.fetchLimit) : sorted.count
        return Array(sorted[start..<end])
    }

    private func sortValue(_ row: StoreRow, keyPath: String) throws -> Any? {
        var current: StoreRow? = row
        let components = keyPath.split(separator: ".").map(String.init)
        for (offset, component) in components.enumerated() {
            guard let row = current, let index = row.id.entity.index(of: component) else { return nil }
            let value = row.values[index]
            if offset == components.count - 1 {
                switch value {
                case .objectID, .toMany: return nil
                default: return value.value
                }
            }
            guard let id = value.objectID else { return nil }
            current = try rows(for: [id]).first
        }
        return nil
    }

    func sqliteFetchCount(_ fetch: StoreFetch) throws -> Int {
        guard let table = schema.table(for: fetch.entity) else { return 0 }
        let statement = try selectStatement(fetch, columns: "count(*)", table: table, ordered: false)
        var count = Int(try db().scalarInt(statement.sql, statement.bindings) ?? 0)
        count = max(0, count - fetch.request.fetchOffset)
        return fetch.request.fetchLimit > 0 ? min(count, fetch.request.fetchLimit) : count
    }

    /// How many primary keys one `IN (…)` statement takes when loading rows by ID.
    static let keysPerStatement = 10_000

    /// `keys` as the lists of `IN (…)` statements, `keysPerStatement` at a time. Keys are integers,
    /// written into the SQL as they are.
    static func keyLists(_ keys: [Int64]) -> [String] {
        stride(from: 0, to: keys.count, by: keysPerStatement).map {
            keys[$0..<min(keys.count, $0 + keysPerStatement)].map(String.init).joined(separator: ",")
        }
    }

    func sqliteRows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try sqliteRows(for: ids) { rows.append($0) }
        return rows
    }

    /// The rows of `ids`, handed over one by one as SQLite steps to them.
    func sqliteRows(for ids: [ManagedObjectID], each body: (StoreRow) throws -> Void) throws {
        let db = try db()
        var layouts = RowLayouts()
        // Nearly always all of one table (a batch of faults): then no grouping is needed.
        let pairs = ids.compactMap { id in id.primaryKey.map { (id, $0) } }
        let firstRoot = pairs.first?.0.entity.rootIdentity
        let byTable = pairs.allSatisfy { $0.0.entity.rootIdentity == firstRoot }
            ? [pairs] : Array(Dictionary(grouping: pairs) { $0.0.entity.rootIdentity }.values)
        for group in byTable {
            guard let first = group.first, let table = schema.table(for: first.0.entity) else { continue }
            // Keys are bound, not inlined: parsing a list of hundreds of numbers cost more than
            // reading their rows. Placeholders come in powers of two (the last key repeats to fill
            // them), so a few prepared statements serve every batch.
            for chunk in stride(from: 0, to: group.count, by: Self.keysPerStatement) {
                let keys = group[chunk..<min(group.count, chunk + Self.keysPerStatement)].map(\.1)
                guard let last = keys.last else { continue }
                var placeholders = 1
                while placeholders < keys.count { placeholders *= 2 }
                let sql = rowsByKeySQL(table, placeholders: placeholders)
                let bindings = keys.map { SQLiteValue.integer($0) } + Array(repeating: .integer(last), count: placeholders - keys.count)
                try db.query(sql, bindings) { statement in
                    try body(try decode(statement, table: table, layouts: &layouts))
                }
            }
        }
    }

    private func rowsByKeySQL(_ table: SQLiteSchema.Table, placeholders: Int) -> String {
        if let known = rowsByKeySQL[table.name]?[placeholders] { return known }
        let sql = placeholders == 1
            ? "SELECT \(selectList(table)) FROM \(table.name) t0 WHERE t0.Z_PK = ?"
            : "SELECT \(selectList(table)) FROM \(table.name) t0 WHERE t0.Z_PK IN (\(Array(repeating: "?", count: placeholders).joined(separator: ",")))"
        rowsByKeySQL[table.name, default: [:]][placeholders] = sql
        return sql
    }

    func sqliteRelatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        guard let pk = id.primaryKey, let destination = relationship.destinationEntity,
              let destinationTable = schema.table(for: destination) else { return [] }
        let db = try db()
        var result: [ManagedObjectID] = []
        if let join = schema.joinTable(for: relationship) {
            let sql = "SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ? ORDER BY \(memberOrder(relationship, alias: "j", key: "d.Z_PK"))"
            try db.query(sql, [.integer(pk)]) { statement in
                if let entity = schema.entitiesByNumber[Int(sqlite3_column_int64(statement, 1))] {
                    result.append(objectID(entity: entity, primaryKey: sqlite3_column_int64(statement, 0)))
                }
            }
        } else if let inverse = relationship.inverseRelationship {
            // A table of one entity needs Z_PK alone, which the foreign key's index holds in
            // order, so the rows themselves are not read; otherwise Z_ENT says which entity.
            let single = destinationTable.root.subentities.isEmpty ? destinationTable.root : nil
            let order = memberOrder(relationship, alias: destinationTable.name, key: "Z_PK")
            let sql = "SELECT Z_PK\(single == nil ? ", Z_ENT" : "") FROM \(destinationTable.name) WHERE \(schema.column(for: inverse)) = ? ORDER BY \(order)"
            try db.query(sql, [.integer(pk)]) { statement in
                if let entity = single ?? schema.entitiesByNumber[Int(sqlite3_column_int64(statement, 1))], entity.isKind(of: destination) {
                    result.append(objectID(entity: entity, primaryKey: sqlite3_column_int64(statement, 0)))
                }
            }
        }
        return result
    }

    /// The row a uniqueness constraint's values name, in `entity`'s table (its whole tree: a
    /// constraint holds across subentities). A new object's to-one holds no key yet: no match.
    func sqliteRow(of entity: EntityDescription, matching properties: [PropertyDescription], values: [StoredValue]) throws -> StoreRow? {
        guard let table = schema.table(for: entity) else { return nil }
        var conditions: [String] = []
        var bound: [SQLiteValue] = []
        for (property, value) in zip(properties, values) {
            conditions.append("\(schema.column(for: property)) = ?")
            if let attribute = property as? AttributeDescription {
                bound.append(try SQLiteValueMapping.sqlValue(value, for: attribute))
            } else if let key = value.objectID?.primaryKey {
                bound.append(.integer(key))
            } else {
                return nil
            }
        }
        let numbers = schema.numberList(of: entity)
        var found: ManagedObjectID?
        try db().query("SELECT Z_PK, Z_ENT FROM \(table.name) WHERE Z_ENT IN (\(numbers)) AND \(conditions.joined(separator: " AND ")) LIMIT 1",
                       bound, cached: false) { row in
            guard let rowEntity = schema.entitiesByNumber[Int(sqlite3_column_int64(row, 1))] else { return }
            found = objectID(entity: rowEntity, primaryKey: sqlite3_column_int64(row, 0))
        }
        return try found.flatMap { try sqliteRows(for: [$0]).first }
    }

    /// `heldPositions`: one query per few hundred values, so a large save of new objects that
    /// conflict with nothing costs a handful of queries, not one per object.
    func sqliteHeldPositions(of entity: EntityDescription, attribute: AttributeDescription, among values: [StoredValue]) throws -> Set<Int>? {
        guard let table = schema.table(for: entity) else { return nil }
        // Values are matched as the column holds them.
        var positions: [String: [Int]] = [:]
        let bound = try values.enumerated().map { position, value -> SQLiteValue in
            let column = try SQLiteValueMapping.sqlValue(value, for: attribute)
            positions[column.description, default: []].append(position)
            return column
        }
        let column = schema.column(for: attribute)
        var held: Set<Int> = []
        for start in stride(from: 0, to: bound.count, by: 500) {
            let chunk = Array(bound[start..<min(bound.count, start + 500)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try db().query("SELECT \(column) FROM \(table.name) WHERE Z_ENT IN (\(schema.numberList(of: entity))) AND \(column) IN (\(marks))",
                           chunk, cached: false) { row in
                held.formUnion(positions[SQLiteValue(statement: row, column: 0).description] ?? [])
            }
        }
        return held
    }
}
