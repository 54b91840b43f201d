import Foundation

extension SQLiteStore {
    /// Gives a store opened for writing the R-tree fetch indexes its model declares, as Core Data
    /// keeps them (`SQLiteRTreeIndex`). One in place, with its columns and three triggers, is left
    /// alone, whoever made it. Otherwise (a store made before this framework knew R-tree indexes,
    /// which has an ordinary index of that name, or an R-tree of other columns) it is built again
    /// from the entity's table, which holds every value it indexes, so nothing is lost.
    func prepareRTreeIndexes(_ db: SQLiteConnection) throws {
        let wanted = schema.rTreeIndexes
        guard !wanted.isEmpty else { return }
        var kinds: [String: String] = [:]
        try db.query("SELECT name, type FROM sqlite_master", cached: false) { row in
            if case .text(let name) = SQLiteValue(statement: row, column: 0), case .text(let type) = SQLiteValue(statement: row, column: 1) {
                kinds[name] = type
            }
        }
        var rebuild: [SQLiteRTreeIndex] = []
        for index in wanted {
            var columns: [String] = []
            if kinds[index.name] == "table" {
                try db.query("SELECT name FROM pragma_table_info(?)", [.text(index.name)], cached: false) { row in
                    if case .text(let name) = SQLiteValue(statement: row, column: 0) { columns.append(name) }
                }
            }
            let complete = columns == index.indexColumns && index.triggerNames.allSatisfy { kinds[$0] == "trigger" }
            if !complete { rebuild.append(index) }
        }
        guard !rebuild.isEmpty else { return }
        try db.execute("BEGIN IMMEDIATE")
        do {
            for index in rebuild {
                if kinds[index.name] == "index" { try db.execute("DROP INDEX \(index.name)") }
                for statement in index.dropSQL + index.creationSQL + [index.fillSQL] { try db.execute(statement) }
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            let names = rebuild.map(\.name).joined(separator: ", ")
            throw PersistenceError.store(path: path, reason: "cannot build the R-tree fetch index \(names), nothing was changed: \(error)")
        }
    }
}
