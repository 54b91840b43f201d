import Foundation

/// An R-tree fetch index as Core Data keeps it in its stores (`NSSQLRTreeIndex`):
///
/// - an SQLite R-tree virtual table `Z_<Entity>_<index>` with `Z_PK` and, per element, a
///   `<column>_MIN`, `<column>_MAX` pair (`Z_Region_byLocation (Z_PK INTEGER PRIMARY KEY,
///   ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX)`); each object is a point,
///   its value in both columns of the pair;
/// - triggers `…_INSERT`, `…_UPDATE` (delete, then insert) and `…_DELETE` on the entity's
///   table, so every write, whoever makes it, keeps the R-tree in step;
/// - rows already in the table enter it by one `INSERT … SELECT` over those with no element NULL.
///
/// The statements are Core Data's, so a store made here is what Core Data makes and one Core
/// Data made is kept the same way. SQLite's R-tree stores 32-bit floats, rounded outwards, so it
/// narrows a search and the row's own columns decide it.
struct SQLiteRTreeIndex: Equatable {
    /// The virtual table's name, `Z_<Entity>_<index>`.
    let name: String
    /// The entity's table, which the triggers watch.
    let table: String
    /// The element columns of the entity's table, in the index's order.
    let columns: [String]

    /// The virtual table's columns: `Z_PK`, then a pair per element.
    var indexColumns: [String] { ["Z_PK"] + columns.flatMap { ["\($0)_MIN", "\($0)_MAX"] } }

    var triggerNames: [String] { ["INSERT", "UPDATE", "DELETE"].map { "\(name)_\($0)" } }

    /// The virtual table and its triggers.
    var creationSQL: [String] {
        let pairs = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
        let values = columns.map { "NEW.\($0), NEW.\($0)" }.joined(separator: ", ")
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(name) USING RTREE (Z_PK INTEGER PRIMARY KEY, \(pairs))",
            "CREATE TRIGGER IF NOT EXISTS \(name)_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN INSERT OR REPLACE INTO \(name) (Z_PK, \(pairs)) VALUES (NEW.Z_PK, \(values)) ; END",
            "CREATE TRIGGER IF NOT EXISTS \(name)_UPDATE AFTER UPDATE ON \(table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = NEW.Z_PK ; INSERT INTO \(name) (Z_PK, \(pairs)) VALUES (NEW.Z_PK, \(values)) ; END",
            "CREATE TRIGGER IF NOT EXISTS \(name)_DELETE AFTER DELETE ON \(table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK ; END",
        ]
    }

    /// Enters the rows already in the entity's table.
    var fillSQL: String {
        let pairs = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
        let sources = columns.map { "\($0), \($0)" }.joined(separator: ", ")
        let present = columns.map { "\($0) NOT NULL" }.joined(separator: " AND ")
        return "INSERT OR REPLACE INTO \(name) (Z_PK, \(pairs)) SELECT Z_PK, \(sources) from \(table) where \(present)"
    }

    /// What removes the index and its triggers, for a store whose R-tree is rebuilt.
    var dropSQL: [String] { triggerNames.map { "DROP TRIGGER IF EXISTS \($0)" } + ["DROP TABLE IF EXISTS \(name)"] }

    /// The names SQLite gives an R-tree's own tables, which hold its nodes.
    static func shadowTableNames(of name: String) -> [String] { ["node", "rowid", "parent"].map { "\(name)_\($0)" } }
}

extension SQLiteSchema {
    /// The model's R-tree fetch indexes, entity by entity.
    var rTreeIndexes: [SQLiteRTreeIndex] {
        tables.values.sorted { $0.name < $1.name }.flatMap(rTreeIndexes(for:))
    }

    func rTreeIndexes(for table: Table) -> [SQLiteRTreeIndex] {
        table.root.selfAndDescendants.flatMap { entity in
            entity.fetchIndexes.filter { $0.kind == .rTree && !$0.elements.isEmpty }.map { index in
                SQLiteRTreeIndex(name: "Z_\(entity.name)_\(index.name)", table: table.name,
                                 columns: index.elements.map { column(forKeyPath: $0.property, of: entity) })
            }
        }
    }
}
