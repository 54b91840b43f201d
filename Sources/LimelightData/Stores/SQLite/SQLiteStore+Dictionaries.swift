import Foundation
import CSQLite

extension SQLiteStore {
    /// One selected value of a dictionary fetch and how to read it back.
    struct SelectedColumn {
        let key: String
        /// One SQL expression, or two for an object ID: its primary key and its entity number.
        let sql: [String]
        let bindings: [SQLiteValue]
        let type: DictionaryValueType
        /// For attribute-typed values: the attribute whose Swift type the value is read as.
        let readAs: AttributeDescription?
    }

    /// LEFT JOINs for key paths through to-ones, one per distinct relationship path.
    struct JoinList {
        var clauses: [String] = []
        var aliases: [String: String] = [:]

        mutating func alias(for path: [RelationshipDescription], schema: SQLiteSchema) throws -> String {
            var alias = "t0"
            for (depth, relationship) in path.enumerated() {
                let key = path[...depth].map(\.name).joined(separator: ".")
                if let known = aliases[key] { alias = known; continue }
                guard let destination = relationship.destinationEntity, let table = schema.table(for: destination) else {
                    throw PersistenceError.invalidRequest("relationship \(relationship.name) has no destination table")
                }
                let next = "j\(aliases.count + 1)"
                clauses.append("LEFT JOIN \(table.name) \(next) ON \(next).Z_PK = \(alias).\(schema.column(for: relationship))")
                aliases[key] = next
                alias = next
            }
            return alias
        }
    }

    /// A dictionary fetch as one SELECT: columns, JOINs through to-ones, WHERE, GROUP BY, HAVING,
    /// ORDER BY, LIMIT and OFFSET, all computed by SQLite.
    func sqliteFetchDictionaries(_ fetch: StoreFetch) throws -> [[String: Any]] {
        guard let table = schema.table(for: fetch.entity) else { return [] }
        let request = fetch.request
        let plan = try DictionaryPlan(request: request, entity: fetch.entity)
        var translator = SQLPredicateTranslator(schema: schema, entity: fetch.entity)
        translator.orderColumnsPresent = orderColumnsPresent
        translator.allowsAggregates = true
        var joins = JoinList()
        let selected = try plan.columns.map { try sqlColumn($0, plan: plan, translator: &translator, joins: &joins) }
        var bindings = selected.flatMap(\.bindings)
        let list = selected.enumerated().flatMap { index, column in
            column.sql.enumerated().map { part, sql in "\(sql) AS c\(index)_\(part)" }
        }
        var sql = "SELECT \(request.returnsDistinctResults ? "DISTINCT " : "")\(list.joined(separator: ", ")) FROM \(table.name) t0"
        for join in joins.clauses { sql += " " + join }

        translator.allowsAggregates = false
        var conditions: [String] = []
        if let filter = entityFilter(fetch.entities, table: table) { conditions.append(filter) }
        if let predicate = request.predicate {
            var whereBindings: [SQLiteValue] = []
            conditions.append(try translator.whereCondition(predicate, &whereBindings))
            bindings += whereBindings
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }

        translator.allowsAggregates = true
        if !plan.groupBy.isEmpty {
            var terms: [String] = []
            for group in plan.groupBy {
                let column = try selected.first { $0.key == group.key } ?? sqlColumn(group, plan: plan, translator: &translator, joins: &joins)
                // A constant entity number (a to-one without sub-entities) is no grouping term; SQLite
                // would read an integer literal as a column position.
                terms += column.sql.filter { Int($0) == nil }
                bindings += column.bindings
            }
            sql += " GROUP BY " + terms.joined(separator: ", ")
        }
        for column in selected {
            var operand = SQLPredicateTranslator.Operand(sql: column.sql[0], bindings: column.bindings)
            if case .objectID = column.type { operand.isObjectKey = true }
            translator.resultColumns[column.key] = operand
        }
        if let having = request.havingPredicate {
            var havingBindings: [SQLiteValue] = []
            sql += " HAVING " + (try translator.whereCondition(having, &havingBindings))
            bindings += havingBindings
        }
        if !request.sortDescriptors.isEmpty {
            var terms: [String] = []
            for descriptor in request.sortDescriptors {
                let term: String
                if let index = selected.firstIndex(where: { $0.key == descriptor.key }) {
                    if case .composite = readers(selected)[index] {
                        throw PersistenceError.invalidRequest("cannot sort by the composite '\(descriptor.key)' (entity \(fetch.entity.name)); sort by one of its elements")
                    }
                    term = "c\(index)_0"
                } else {
                    let operand = try translator.operand(.keyPath(descriptor.key), .init(alias: "t0", entity: fetch.entity))
                    guard operand.kind != .composite else {
                        throw PersistenceError.invalidRequest("cannot sort by the composite '\(descriptor.key)' (entity \(fetch.entity.name)); sort by one of its elements")
                    }
                    guard operand.toMany == nil else {
                        throw PersistenceError.invalidRequest("cannot sort by the to-many '\(descriptor.key)' (entity \(fetch.entity.name))")
                    }
                    term = operand.sql
                    bindings += operand.bindings
                }
                terms.append(Self.orderTerm(term, descriptor))
            }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(request.fetchLimit > 0 ? request.fetchLimit : -1)), .integer(Int64(request.fetchOffset))]
        }

        // What each column reads, worked out once: a row then costs SQLite's reads and the
        // dictionary's values, not a copy of each column's description.
        let readers = readers(selected)
        let composites = selected.enumerated().map { index, column -> SQLiteCompositeColumns? in
            guard case .composite(let position, _) = readers[index], let composite = column.readAs as? CompositeAttributeDescription else {
                return nil
            }
            return SQLiteCompositeColumns(composite, positions: column.sql.indices.map { position + Int32($0) })
        }
        let schema = self.schema
        let attributes = selected.map(\.readAs)
        var results: [[String: Any]] = []
        // The plan refuses a key given twice, the one thing a template cannot hold.
        guard let template = DictionaryRowTemplate(keys: selected.map(\.key)) else {
            throw PersistenceError.invalidRequest("a dictionary fetch of \(fetch.entity.name) names a result key twice")
        }
        try db().query(sql, bindings) { statement in
            results.append(try template.row { column throws(PersistenceError) in
                try value(column, readers: readers, attributes: attributes, composites: composites, statement: statement, schema: schema)
            })
        }
        return results
    }

    /// How a dictionary fetch reads one selected value from its row.
    enum ColumnReader {
        /// An object ID from a primary key and the entity number in the next column.
        case objectID(Int32)
        /// A value read as its attribute's Swift type. (The attribute itself is kept beside the
        /// readers: a reference in the case would be retained and released for every value.)
        case attribute(Int32, AttributeType)
        /// A value in SQLite's own type (an expression of no known type).
        case plain(Int32)
        /// A composite's dictionary from its element columns, the first at the position, `count`
        /// in all.
        case composite(Int32, count: Int)
    }

    /// The readers of `selected`'s columns, which follow each other in the SELECT list.
    private func readers(_ selected: [SelectedColumn]) -> [ColumnReader] {
        var readers: [ColumnReader] = []
        var position: Int32 = 0
        for column in selected {
            if case .objectID = column.type {
                readers.append(.objectID(position))
            } else if column.readAs is CompositeAttributeDescription {
                readers.append(.composite(position, count: column.sql.count))
            } else if let attribute = column.readAs {
                readers.append(.attribute(position, attribute.attributeType))
            } else {
                readers.append(.plain(position))
            }
            position += Int32(column.sql.count)
        }
        return readers
    }

    /// Selected value number `column` of the current row. The column's attribute is looked up only
    /// when it is needed, since reading it from the array retains and releases it.
    @inline(__always)
    private func value(_ column: Int, readers: [ColumnReader], attributes: [AttributeDescription?],
                       composites: [SQLiteCompositeColumns?], statement: OpaquePointer, schema: SQLiteSchema) throws(PersistenceError) -> Any? {
        switch readers[column] {
        case .objectID(let position):
            guard let key = sqlite3_column_value(statement, position), sqlite3_value_type(key) != SQLITE_NULL,
                  let number = sqlite3_column_value(statement, position + 1),
                  let entity = schema.entitiesByNumber[Int(sqlite3_value_int64(number))] else { return nil }
            return objectID(entity: entity, primaryKey: sqlite3_value_int64(key))
        case .attribute(let position, let type):
            // The common pairs of column and attribute type straight from SQLite, as a fetch of
            // objects reads them; the others through `SQLiteValue`.
            if let common = SQLiteValueMapping.commonValue(statement, column: position, type: type) { return common.value }
            guard let attribute = attributes[column] else { return nil }
            let stored = SQLiteValue(statement: statement, column: position)
            do {
                return try SQLiteValueMapping.swiftValue(stored, for: attribute, external: externalBinaryData)
            } catch {
                // An expression's result (an average asked for as an integer) is SQLite's own
                // value; only a model attribute's column can be damaged.
                guard let entity = attribute.entity, let table = schema.table(for: entity) else { return Self.plainValue(stored) }
                var named = error
                let column = schema.column(for: attribute)
                named.column = column
                // A dictionary has no object to name: the warning names the row's entity.
                if named.isUndecodable, (try? acceptUndecodable(named, attribute: attribute, entity: entity, primaryKey: nil)) != nil { return nil }
                throw damage(table, entity: entity, column: column, reason: error.reason)
            }
        case .plain(let position):
            return Self.plainValue(SQLiteValue(statement: statement, column: position))
        case .composite:
            guard let composite = composites[column] else { return nil }
            do {
                return try composite.value(statement, external: externalBinaryData).value
            } catch {
                let entity = composite.composite.entity
                guard let entity, let table = schema.table(for: entity) else { return nil }
                throw damage(table, entity: entity, column: error.column, reason: error.reason)
            }
        }
    }

    private static func plainValue(_ value: SQLiteValue) -> Any? {
        switch value {
        case .null: return nil
        case .integer(let integer): return integer
        case .real(let real): return real
        case .text(let text): return text
        case .blob(let data): return data
        }
    }

    private func sqlColumn(_ column: DictionaryColumn, plan: DictionaryPlan, translator: inout SQLPredicateTranslator,
                           joins: inout JoinList) throws -> SelectedColumn {
        switch column {
        case .attribute(let key, let path, let attribute):
            let alias = try joins.alias(for: path, schema: schema)
            // The attribute and, into a composite, the elements the key names after the to-ones.
            let names = key.split(separator: ".").dropFirst(path.count).map(String.init)
            if let composite = attribute as? CompositeAttributeDescription {
                let columns = composite.leafElements.map { "\(alias).\(SQLiteSchema.columnName(forPath: names + $0.path))" }
                return SelectedColumn(key: key, sql: columns, bindings: [], type: .attribute(.composite), readAs: composite)
            }
            return SelectedColumn(key: key, sql: ["\(alias).\(SQLiteSchema.columnName(forPath: names))"], bindings: [],
                                  type: .attribute(attribute.attributeType), readAs: attribute)
        case .toOne(let key, let path, let relationship):
            let alias = try joins.alias(for: path, schema: schema)
            return SelectedColumn(key: key, sql: ["\(alias).\(schema.column(for: relationship))", try entityNumberSQL(relationship, alias: alias)],
                                  bindings: [], type: .objectID, readAs: nil)
        case .expression(let description):
            let type = DictionaryValueType.of(description, entity: plan.entity)
            if description.expression == .evaluatedObject {
                return SelectedColumn(key: description.name, sql: ["t0.Z_PK", "t0.Z_ENT"], bindings: [], type: .objectID, readAs: nil)
            }
            let operand = try translator.operand(description.expression, .init(alias: "t0", entity: plan.entity))
            if operand.toMany != nil {
                throw PersistenceError.invalidRequest(
                    "expression '\(description.name)' of entity \(plan.entity.name) is a to-many key path; use an aggregate such as @count")
            }
            if case .objectID = type {
                guard case .keyPath(let path) = description.expression,
                      case .toOne(_, let through, let relationship) = try DictionaryPlan.resolve(keyPath: path, in: plan.entity, list: "expression") else {
                    throw PersistenceError.invalidRequest("expression '\(description.name)' of entity \(plan.entity.name) does not give an object")
                }
                let alias = try joins.alias(for: through, schema: schema)
                return SelectedColumn(key: description.name, sql: ["\(alias).\(schema.column(for: relationship))", try entityNumberSQL(relationship, alias: alias)],
                                      bindings: [], type: .objectID, readAs: nil)
            }
            var readAs: AttributeDescription?
            if case .attribute(let attributeType) = type { readAs = AttributeDescription(name: description.name, type: attributeType) }
            return SelectedColumn(key: description.name, sql: [operand.sql], bindings: operand.bindings, type: type, readAs: readAs)
        }
    }

    /// The entity number of a to-one's destination: its type column when the destination has
    /// sub-entities, else the destination's own number.
    private func entityNumberSQL(_ relationship: RelationshipDescription, alias: String) throws -> String {
        if let typeColumn = schema.typeColumn(for: relationship) { return "\(alias).\(typeColumn)" }
        guard let destination = relationship.destinationEntity else {
            throw PersistenceError.invalidRequest("relationship \(relationship.name) has no destination entity")
        }
        return String(schema.number(of: destination))
    }
}
