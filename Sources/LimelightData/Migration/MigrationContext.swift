import Foundation

/// The SQL of one migration: copies rows, links and other tables from the attached old store
/// (`old.`) into the new one (`main.`), renumbering entities on the way.
struct MigrationContext {
    let db: SQLiteConnection
    let mapping: MappingModel
    /// Destination entity → source entity.
    let entityMap: [ObjectIdentifier: EntityDescription]
    let oldSchema: SQLiteSchema
    let newSchema: SQLiteSchema

    func source(of entity: EntityDescription) -> EntityDescription? { entityMap[ObjectIdentifier(entity)] }

    /// `Z_ENT` values of an entity and its sub-entities, for `IN (…)`.
    func numbers(_ entity: EntityDescription, in schema: SQLiteSchema) -> String {
        schema.numberList(of: entity)
    }

    /// Copies the rows of exactly `entity` (not its sub-entities) from its source entity's table:
    /// same keys and `Z_OPT`, the new entity number, each column from its source column or the
    /// attribute's default.
    func copyRows(of entity: EntityDescription) throws {
        guard let from = source(of: entity), let table = newSchema.table(for: entity), let oldTable = oldSchema.table(for: from) else { return }
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var expressions = ["Z_PK", String(newSchema.number(of: entity)), "Z_OPT"]
        var values: [SQLiteValue] = []
        for property in entity.properties where SQLiteSchema.isStoredInRow(property) {
            if let composite = property as? CompositeAttributeDescription {
                let old = MappingInference.sourceProperty(for: composite, in: from) as? CompositeAttributeDescription
                for leaf in SQLiteSchema.compositeColumns(composite) where table.columnIndex[leaf.column] != nil {
                    var expression: String?
                    if let old, SQLiteSchema.isStoredInRow(old),
                       let oldPath = MappingInference.sourceElementPath(leaf.path, in: composite, from: old) {
                        let oldColumn = SQLiteSchema.columnName(forPath: [old.name] + oldPath)
                        if oldTable.columnIndex[oldColumn] != nil { expression = oldColumn }
                    }
                    // A new element takes its default, as a new attribute does.
                    if let defaultValue = leaf.attribute.defaultValue, expression == nil || !leaf.attribute.isOptional {
                        values.append(try SQLiteValueMapping.sqlValue(defaultValue, for: leaf.attribute))
                        expression = expression.map { "COALESCE(\($0), ?)" } ?? "?"
                    }
                    guard let expression else { continue }
                    columns.append(leaf.column)
                    expressions.append(expression)
                }
                continue
            }
            let column = newSchema.column(for: property)
            guard table.columnIndex[column] != nil else { continue }
            let old = MappingInference.sourceProperty(for: property, in: from)
            var expression: String?
            if let old, SQLiteSchema.isStoredInRow(old), oldTable.columnIndex[oldSchema.column(for: old)] != nil {
                expression = oldSchema.column(for: old)
            }
            if let attribute = property as? AttributeDescription, let defaultValue = attribute.defaultValue,
               expression == nil || !attribute.isOptional {
                values.append(try SQLiteValueMapping.sqlValue(defaultValue, for: attribute))
                expression = expression.map { "COALESCE(\($0), ?)" } ?? "?"
            }
            guard let expression else { continue }
            columns.append(column)
            expressions.append(expression)
        }
        // Members of an ordered to-many keep their positions where the old model kept them too.
        let oldColumns = try SQLiteSchemaCheck.columns(of: oldTable.name, schema: "old", connection: db)
        for case let member as RelationshipDescription in entity.properties where !member.isToMany {
            guard let ordered = member.inverseRelationship, let order = newSchema.orderColumn(for: ordered),
                  let old = MappingInference.sourceProperty(for: member, in: from) as? RelationshipDescription,
                  let oldOrdered = old.inverseRelationship, let oldOrder = oldSchema.orderColumn(for: oldOrdered),
                  oldColumns.contains(oldOrder.column), !columns.contains(order.column) else { continue }
            columns.append(order.column)
            expressions.append(oldOrder.column)
        }
        try db.run("""
            INSERT INTO main.\(table.name) (\(columns.joined(separator: ", ")))
            SELECT \(expressions.joined(separator: ", ")) FROM old.\(oldTable.name) WHERE Z_ENT = \(oldSchema.number(of: from))
            """, values)
    }

    /// Fills every join table of the new model from the old join table, from a to-one column
    /// (a to-one that became to-many) or from the inverse's column (a one-to-many that became
    /// many-to-many).
    func copyJoinTables() throws {
        var done: Set<String> = []
        for entity in newSchema.model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                guard let join = newSchema.joinTable(for: relationship), !done.contains(join.name) else { continue }
                if let select = try linkSource(for: relationship) {
                    try db.run("INSERT OR IGNORE INTO main.\(join.name) (\(join.sourceColumn), \(join.destinationColumn)) \(select)")
                    try copyPositions(of: relationship, into: join)
                    if let inverse = relationship.inverseRelationship { try copyPositions(of: inverse, into: join) }
                    done.insert(join.name)
                } else if let inverse = relationship.inverseRelationship, let select = try linkSource(for: inverse) {
                    // Only the inverse existed before: its pairs, the other way round.
                    try db.run("INSERT OR IGNORE INTO main.\(join.name) (\(join.destinationColumn), \(join.sourceColumn)) \(select)")
                    done.insert(join.name)
                }
            }
        }
    }

    /// Copies the positions of an ordered to-many's members from the old join table, when the
    /// relationship was an ordered to-many kept in a join table before too.
    private func copyPositions(of relationship: RelationshipDescription, into join: SQLiteSchema.JoinTable) throws {
        guard let order = newSchema.orderColumn(for: relationship), order.table == join.name,
              let entity = relationship.entity, let from = source(of: entity),
              let old = MappingInference.sourceProperty(for: relationship, in: from) as? RelationshipDescription,
              let oldOrder = oldSchema.orderColumn(for: old), let oldJoin = oldSchema.joinTable(for: old), oldOrder.table == oldJoin.name,
              try SQLiteSchemaCheck.columns(of: oldJoin.name, schema: "old", connection: db).contains(oldOrder.column),
              let newJoin = newSchema.joinTable(for: relationship) else { return }
        try db.run("""
            UPDATE main.\(join.name) SET \(order.column) = (SELECT o.\(oldOrder.column) FROM old.\(oldJoin.name) o
                WHERE o.\(oldJoin.sourceColumn) = main.\(join.name).\(newJoin.sourceColumn)
                AND o.\(oldJoin.destinationColumn) = main.\(join.name).\(newJoin.destinationColumn))
            """)
    }

    /// A `SELECT owner, related` over the old store giving the links of `relationship`'s source.
    private func linkSource(for relationship: RelationshipDescription) throws -> String? {
        guard let entity = relationship.entity, let from = source(of: entity),
              let old = MappingInference.sourceProperty(for: relationship, in: from) as? RelationshipDescription,
              let oldOwner = old.entity else { return nil }
        switch MappingInference.storage(of: old) {
        case .joinTable:
            guard let join = oldSchema.joinTable(for: old) else { return nil }
            return "SELECT \(join.sourceColumn), \(join.destinationColumn) FROM old.\(join.name)"
        case .column:
            guard let table = oldSchema.table(for: oldOwner) else { return nil }
            let column = oldSchema.column(for: old)
            return "SELECT Z_PK, \(column) FROM old.\(table.name) WHERE \(column) IS NOT NULL AND Z_ENT IN (\(numbers(oldOwner, in: oldSchema)))"
        case .inverseColumn:
            guard let inverse = old.inverseRelationship, let inverseOwner = inverse.entity,
                  let table = oldSchema.table(for: inverseOwner) else { return nil }
            let column = oldSchema.column(for: inverse)
            return "SELECT \(column), Z_PK FROM old.\(table.name) WHERE \(column) IS NOT NULL AND Z_ENT IN (\(numbers(inverseOwner, in: oldSchema)))"
        }
    }

    /// Clears links to objects that were not carried over (their entity was removed or the
    /// destination narrowed), then fills each to-one's destination-entity column from the
    /// migrated rows, which also renumbers it.
    func repairReferences() throws {
        for entity in newSchema.model.entities {
            guard let table = newSchema.table(for: entity) else { continue }
            for case let relationship as RelationshipDescription in entity.ownProperties {
                guard let destination = relationship.destinationEntity, let target = newSchema.table(for: destination) else { continue }
                let targets = "SELECT Z_PK FROM main.\(target.name) WHERE Z_ENT IN (\(numbers(destination, in: newSchema)))"
                if let join = newSchema.joinTable(for: relationship) {
                    let owners = "SELECT Z_PK FROM main.\(table.name) WHERE Z_ENT IN (\(numbers(entity, in: newSchema)))"
                    try db.run("DELETE FROM main.\(join.name) WHERE \(join.sourceColumn) NOT IN (\(owners)) OR \(join.destinationColumn) NOT IN (\(targets))")
                    continue
                }
                guard SQLiteSchema.isStoredInRow(relationship) else { continue }
                let column = newSchema.column(for: relationship)
                try db.run("""
                    UPDATE main.\(table.name) SET \(column) = NULL
                    WHERE \(column) IS NOT NULL AND Z_ENT IN (\(numbers(entity, in: newSchema))) AND \(column) NOT IN (\(targets))
                    """)
                if let typeColumn = newSchema.typeColumn(for: relationship) {
                    try db.run("""
                        UPDATE main.\(table.name) SET \(typeColumn) =
                            (SELECT Z_ENT FROM main.\(target.name) AS t WHERE t.Z_PK = main.\(table.name).\(column))
                        WHERE Z_ENT IN (\(numbers(entity, in: newSchema)))
                        """)
                }
            }
        }
    }

    /// Tables the old store holds besides the model's: the marker journal and persistent history
    /// (their entity numbers renumbered, rows of removed entities dropped) and anything an
    /// application added (copied as they are). Core Data's model cache is not carried over: it described the old model.
    func copyOtherTables(old tables: [(name: String, sql: String)], indexes: [String: [String]], path: String) throws {
        var modelTables: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
        modelTables.formUnion(oldSchema.tables.values.map(\.name))
        modelTables.formUnion(oldSchema.joinTables.map(\.name))
        // R-tree fetch indexes are made anew with the new model's tables and filled by their
        // triggers as rows are copied; an old one the new model dropped goes with it. SQLite's
        // own tables behind a virtual table are filled through that table, never copied.
        modelTables.formUnion((oldSchema.rTreeIndexes + newSchema.rTreeIndexes).map { $0.name.uppercased() })
        try db.query("SELECT name FROM pragma_table_list() WHERE schema = 'old' AND type = 'shadow'", cached: false) { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0) { modelTables.insert(name.uppercased()) }
        }
        // A CloudKit mirroring table of a shape this cannot renumber is refused before anything is copied.
        _ = try CloudKitMirroring.inspect(db, schema: "old", path: path)
        // Indexes come after the rows are copied and renumbered: renumbering row by row could
        // meet a unique index (the mirroring delegate's on entity and key) half way.
        var copiedIndexes: [String] = []
        for table in tables where !modelTables.contains(table.name.uppercased()) && !table.name.hasPrefix("sqlite_") {
            try db.execute(table.sql)
            copiedIndexes += indexes[table.name] ?? []
            var cases = ""
            for entity in newSchema.model.entities {
                if let from = source(of: entity) { cases += " WHEN \(oldSchema.number(of: from)) THEN \(newSchema.number(of: entity))" }
            }
            if table.name == MarkerJournal.table {
                guard !cases.isEmpty else { continue }
                try db.run("""
                    INSERT INTO main.\(table.name) (Z_PK, Z_ACTION, Z_ENT, Z_OBJECT)
                    SELECT * FROM (SELECT Z_PK, Z_ACTION, CASE Z_ENT\(cases) END AS Z_ENT, Z_OBJECT FROM old.\(table.name)) WHERE Z_ENT IS NOT NULL
                    """)
            } else {
                try db.run("INSERT INTO main.\(table.name) SELECT * FROM old.\(table.name)")
                // Persistent history names entities by number: renumbered, changes to removed
                // entities dropped.
                if table.name.uppercased() == SQLiteHistoryLayout.changeTable {
                    try db.execute(cases.isEmpty ? "DELETE FROM main.\(table.name)"
                        : "UPDATE main.\(table.name) SET ZENTITY = CASE ZENTITY\(cases) END")
                    try db.execute("DELETE FROM main.\(table.name) WHERE ZENTITY IS NULL")
                }
                // So do the mirroring delegate's tables, as Core Data's migration renumbers them.
                if CloudKitMirroring.entityNumberedTables.contains(table.name.uppercased()) {
                    for statement in CloudKitMirroring.renumberSQL(table: table.name, cases: cases) { try db.execute(statement) }
                }
            }
        }
        for index in copiedIndexes { try db.execute(index) }
    }
}
