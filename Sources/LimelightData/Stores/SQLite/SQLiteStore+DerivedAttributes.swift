import Foundation

extension SQLiteStore {
    /// Gives a store opened for writing the triggers that keep its derived attributes
    /// (`SQLiteSchema.derivedAttributeTriggers`): a store made by an earlier version of Limelight
    /// gains them, with its derived columns brought up to date once; one whose model's
    /// derivations changed has its triggers replaced. A store whose own triggers keep them
    /// (Core Data's, named `Z_DA_…`) is left to those. Nothing is written when all is in place.
    func prepareDerivedAttributeTriggers(_ db: SQLiteConnection) throws {
        let wanted = schema.derivedAttributeTriggers()
        var present: [String: String] = [:]
        var keptByCoreData = false
        try db.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'", cached: false) { row in
            guard case .text(let name) = SQLiteValue(statement: row, column: 0) else { return }
            if name.hasPrefix("Z_DA_") { keptByCoreData = true }
            if name.hasPrefix(SQLiteSchema.derivedTriggerPrefix), case .text(let sql) = SQLiteValue(statement: row, column: 1) {
                present[name] = sql
            }
        }
        guard !keptByCoreData else { return }
        let wantedNames = Set(wanted.map(\.name))
        let stale = present.keys.filter { name in !wantedNames.contains(name) || wanted.contains { $0.name == name && $0.sql != present[name] } }
        let missing = wanted.filter { present[$0.name] != $0.sql }
        guard !stale.isEmpty || !missing.isEmpty else { return }
        try db.execute("BEGIN IMMEDIATE")
        do {
            for name in stale.sorted() { try db.execute("DROP TRIGGER IF EXISTS \(name)") }
            try Self.installDerivedAttributeTriggers(missing, schema: schema, db: db)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw PersistenceError.store(path: path, reason: "cannot add the triggers that keep derived attributes, nothing was changed: \(error)")
        }
    }

    /// Creates `triggers` and then brings the derived columns of the rows already there to what
    /// their derivations give, inside the caller's transaction; `db` needs the functions the
    /// triggers call (`CoreDataTriggerFunctions`).
    static func installDerivedAttributeTriggers(_ triggers: [SQLiteSchema.DerivedTrigger], schema: SQLiteSchema,
                                                db: SQLiteConnection) throws {
        guard !triggers.isEmpty else { return }
        for trigger in triggers { try db.execute(trigger.sql) }
        for statement in schema.derivedAttributeRefreshSQL() { try db.execute(statement) }
    }
}
