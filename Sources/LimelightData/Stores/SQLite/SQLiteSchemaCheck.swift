import Foundation
import CSQLite

/// Decides whether an existing store fits a model, without trusting version hashes: stores whose
/// hashes came from another implementation (Core Data's) open when their tables and columns fit.
enum SQLiteSchemaCheck {
    /// Maps the store's entity numbers onto the model's entities.
    ///
    /// `Z_PRIMARYKEY.Z_NAME` keeps an entity's old name after a rename, so a name that is not in the
    /// model is matched through the entities' renaming identifiers, and then through the position
    /// in the inheritance tree (same parent, one unmatched candidate).
    static func matchEntities(model: ManagedObjectModel, storeEntities: [(number: Int, name: String, parent: Int)],
                              path: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        var unmatched: [(number: Int, name: String, parent: Int)] = []
        for row in storeEntities {
            if let entity = model.entity(named: row.name) {
                result[entity.name] = row.number
            } else if let renamed = model.entities.first(where: { $0.renamingIdentifier == row.name && result[$0.name] == nil }) {
                result[renamed.name] = row.number
            } else {
                unmatched.append(row)
            }
        }
        let numberToName = Dictionary(uniqueKeysWithValues: result.map { ($1, $0) })
        for row in unmatched {
            let parentName = row.parent == 0 ? nil : numberToName[row.parent]
            let candidates = model.entities.filter { result[$0.name] == nil && $0.superentity?.name == parentName }
            if candidates.count == 1, let entity = candidates.first { result[entity.name] = row.number }
        }
        let missing = model.entities.filter { result[$0.name] == nil }.map(\.name)
        if !missing.isEmpty {
            var differences = missing.map { "entity \($0) is not in the store" }
            differences += unmatched.filter { row in !result.values.contains(row.number) }.map { "the store has entity \($0.name), not in the model" }
            throw PersistenceError.incompatibleModel(path: path, differences: differences)
        }
        return result
    }

    /// Compares the model's entity version hashes with those a store written by this framework
    /// recorded; every entity that differs is listed.
    static func verifyHashes(model: ManagedObjectModel, storeHashes: [String: Data], path: String) throws {
        if model.isRecorded(in: storeHashes) { return }
        var differences: [String] = []
        for (name, hash) in model.entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
            if let stored = storeHashes[name] {
                if stored != hash, stored != model.entity(named: name)?.earlierLimelightVersionHash {
                    differences.append("entity \(name) differs from the version the store was made with")
                }
            } else {
                differences.append("entity \(name) is not in the store")
            }
        }
        for name in storeHashes.keys.sorted() where model.entity(named: name) == nil {
            differences.append("the store has entity \(name), not in the model")
        }
        guard differences.isEmpty else {
            differences.append("the store needs migrating (StoreOption.migratePersistentStoresAutomatically, or limelight migrate)")
            throw PersistenceError.incompatibleModel(path: path, differences: differences)
        }
    }

    /// Checks that every table and column the model needs exists.
    static func verifyColumns(schema: SQLiteSchema, connection: SQLiteConnection, path: String) throws {
        var differences: [String] = []
        for table in schema.tables.values.sorted(by: { $0.name < $1.name }) {
            let existing = try columns(of: table.name, connection: connection)
            if existing.isEmpty {
                differences.append("table \(table.name) (entity \(table.root.name)) is missing")
                continue
            }
            for column in table.columns where !existing.contains(column) {
                // A destination-entity column is made only for a to-one whose destination has
                // subentities, and Core Data always makes it then: it is the one place that says
                // which entity the object pointed at is, and every fetch of the table reads it.
                if column.range(of: #"^Z\d+_"#, options: .regularExpression) != nil {
                    differences.append("table \(table.name) has no column \(column), the entity of the object a to-one into an entity with subentities points at")
                    continue
                }
                differences.append("table \(table.name) has no column \(column)")
            }
            if try !hasIntegerKey(table.name, connection: connection) {
                differences.append("table \(table.name): Z_PK is not its INTEGER PRIMARY KEY, so rows could share a key or have none")
            }
        }
        for join in schema.joinTables {
            let existing = try columns(of: join.name, connection: connection)
            if existing.isEmpty { differences.append("join table \(join.name) is missing") }
        }
        if !differences.isEmpty { throw PersistenceError.incompatibleModel(path: path, differences: differences) }
    }

    /// Whether the store at `url` has exactly `model`'s entities, tables and columns: how a
    /// store written by Core Data (whose version hashes this framework does not compute) is
    /// matched to one of several model versions.
    static func fitsExactly(model: ManagedObjectModel, storeAt url: URL) throws -> Bool {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        defer { connection.close() }
        var rows: [(number: Int, name: String, parent: Int)] = []
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < \(SQLiteHistoryLayout.firstReservedNumber)") { row in
            rows.append((Int(sqlite3_column_int64(row, 0)), sqlite3_column_text(row, 1).map { String(cString: $0) } ?? "", Int(sqlite3_column_int64(row, 2))))
        }
        // Core Data keeps an entity's old name in Z_NAME after a rename: match as opening does.
        guard let numbers = try? matchEntities(model: model, storeEntities: rows, path: url.path),
              rows.count == model.entities.count, Set(numbers.values).count == rows.count else { return false }
        let schema = SQLiteSchema(model: model, entityNumbers: numbers,
                                  existingColumns: try existingColumns(of: model, connection: connection))
        let typeColumn = #"^Z\d+_"#
        for table in schema.tables.values {
            // Positions of ordered to-manys are optional too: earlier versions of this framework
            // did not keep them.
            let existing = try columns(of: table.name, connection: connection)
                .subtracting(["Z_PK", "Z_ENT", "Z_OPT"])
                .filter { $0.range(of: typeColumn, options: .regularExpression) == nil && !$0.hasPrefix(SQLiteSchema.orderColumnPrefix) }
            let expected = Set(table.columns.filter { $0.range(of: typeColumn, options: .regularExpression) == nil })
            if existing != expected { return false }
        }
        return true
    }

    /// The columns of each inheritance tree's table of `model` that the database has, by table
    /// name: what `SQLiteSchema` needs to follow the layout a store was made with.
    static func existingColumns(of model: ManagedObjectModel, schema: String = "main", connection: SQLiteConnection) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for root in model.entities where root.superentity == nil {
            let name = "Z" + root.name.uppercased()
            result[name] = try columns(of: name, schema: schema, connection: connection)
        }
        return result
    }

    /// The columns of `table`, in the database `schema` names (`main`, or an attached one).
    /// Whether `Z_PK` is the table's one INTEGER PRIMARY KEY (its rowid), as in every table Core
    /// Data makes: only then is every row's key present and its own.
    private static func hasIntegerKey(_ table: String, connection: SQLiteConnection) throws -> Bool {
        var keys: [(name: String, type: String)] = []
        try connection.query("SELECT name, upper(type) FROM pragma_table_info(?, 'main') WHERE pk > 0", [.text(table)]) { row in
            keys.append((sqlite3_column_text(row, 0).map { String(cString: $0) } ?? "", sqlite3_column_text(row, 1).map { String(cString: $0) } ?? ""))
        }
        return keys.count == 1 && keys[0].name == "Z_PK" && keys[0].type == "INTEGER"
    }

    static func columns(of table: String, schema: String = "main", connection: SQLiteConnection) throws -> Set<String> {
        var result: Set<String> = []
        try connection.query("SELECT name FROM pragma_table_info(?, ?)", [.text(table), .text(schema)]) { row in
            if let text = sqlite3_column_text(row, 0) { result.insert(String(cString: text)) }
        }
        return result
    }
}
