import Foundation
import CSQLite

extension SQLiteStore {
    func sqliteSave(_ changes: SaveChanges) throws -> [ManagedObjectID: ManagedObjectID] {
        let db = try db()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let mapping = try allocateKeys(for: changes.inserted.map(\.id).filter(\.isTemporaryID), db: db)
            let resolve = { (id: ManagedObjectID) -> ManagedObjectID in mapping[id] ?? id }
            var conflicts: [ManagedObjectID] = []
            for snapshot in changes.deleted {
                if try !delete(snapshot, db: db) { conflicts.append(snapshot.id) }
            }
            for snapshot in changes.inserted { try insert(snapshot, id: resolve(snapshot.id), resolve: resolve, db: db) }
            for snapshot in changes.updated {
                if try !update(snapshot, resolve: resolve, db: db) { conflicts.append(snapshot.id) }
            }
            if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
            for participant in saveParticipants { try participant.willCommit(changes, mapping: mapping, store: self) }
            try db.execute("COMMIT")
            for participant in saveParticipants { participant.didCommit(store: self) }
            return mapping
        } catch {
            try? db.execute("ROLLBACK")
            if let persistence = error as? PersistenceError { throw persistence }
            throw PersistenceError.store(path: path, reason: "save failed, nothing was written: \(error)")
        }
    }

    func sqliteObtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        let db = try db()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let mapping = try allocateKeys(for: ids.filter(\.isTemporaryID), db: db)
            try db.execute("COMMIT")
            return mapping
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Reserves primary keys from the root entity's `Z_MAX`, as Core Data does: keys are unique
    /// per table, shared by an inheritance tree.
    private func allocateKeys(for ids: [ManagedObjectID], db: SQLiteConnection) throws -> [ManagedObjectID: ManagedObjectID] {
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        let byRoot = Dictionary(grouping: ids) { ObjectIdentifier($0.entity.rootEntity) }
        for group in byRoot.values {
            guard let root = group.first?.entity.rootEntity else { continue }
            let number = Int64(schema.number(of: root))
            var next = (try db.scalarInt("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]) ?? 0)
            if let table = schema.table(for: root) {
                next = max(next, try db.scalarInt("SELECT max(Z_PK) FROM \(table.name)") ?? 0)
            }
            for id in group {
                next += 1
                mapping[id] = objectID(entity: id.entity, primaryKey: next)
            }
            try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(next), .integer(number)])
        }
        return mapping
    }

    private func rowValues(_ snapshot: ObjectSnapshot, indices: [Int], table: SQLiteSchema.Table,
                           resolve: (ManagedObjectID) -> ManagedObjectID) throws -> [(String, SQLiteValue)] {
        var result: [(String, SQLiteValue)] = []
        let entity = snapshot.id.entity
        for index in indices {
            let property = entity.properties[index]
            guard SQLiteSchema.isStoredInRow(property), table.columnIndex[schema.column(for: property)] != nil else { continue }
            if let attribute = property as? AttributeDescription {
                result.append((schema.column(for: attribute), try SQLiteValueMapping.sqlValue(snapshot.values[index], for: attribute)))
            } else if let relationship = property as? RelationshipDescription {
                let id = (snapshot.values[index] as? ManagedObjectID).map(resolve)
                result.append((schema.column(for: relationship), id?.primaryKey.map { .integer($0) } ?? .null))
                if let typeColumn = schema.typeColumn(for: relationship), table.columnIndex[typeColumn] != nil {
                    result.append((typeColumn, id.map { .integer(Int64(schema.number(of: $0.entity))) } ?? .null))
                }
            }
        }
        return result
    }

    private func insert(_ snapshot: ObjectSnapshot, id: ManagedObjectID, resolve: (ManagedObjectID) -> ManagedObjectID,
                        db: SQLiteConnection) throws {
        guard let table = schema.table(for: id.entity), let pk = id.primaryKey else { return }
        let columns = try rowValues(snapshot, indices: Array(snapshot.values.indices), table: table, resolve: resolve)
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.0)
        let sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        try db.run(sql, [.integer(pk), .integer(Int64(schema.number(of: id.entity))), .integer(1)] + columns.map(\.1))
        try writeJoinRows(snapshot, id: id, indices: Array(snapshot.values.indices), replacing: false, resolve: resolve, db: db)
    }

    /// Returns false when the row changed since it was read (optimistic locking).
    private func update(_ snapshot: ObjectSnapshot, resolve: (ManagedObjectID) -> ManagedObjectID, db: SQLiteConnection) throws -> Bool {
        guard let table = schema.table(for: snapshot.id.entity), let pk = snapshot.id.primaryKey else { return true }
        let columns = try rowValues(snapshot, indices: snapshot.changed, table: table, resolve: resolve)
        let assignments = (["Z_OPT = Z_OPT + 1"] + columns.map { "\($0.0) = ?" }).joined(separator: ", ")
        let changed = try db.run("UPDATE \(table.name) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?",
                                 columns.map(\.1) + [.integer(pk), .integer(snapshot.version)])
        guard changed == 1 else { return false }
        try writeJoinRows(snapshot, id: snapshot.id, indices: snapshot.changed, replacing: true, resolve: resolve, db: db)
        return true
    }

    private func delete(_ snapshot: ObjectSnapshot, db: SQLiteConnection) throws -> Bool {
        guard let table = schema.table(for: snapshot.id.entity), let pk = snapshot.id.primaryKey else { return true }
        let changed = try db.run("DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_OPT = ?", [.integer(pk), .integer(snapshot.version)])
        guard changed == 1 else { return false }
        for case let relationship as RelationshipDescription in snapshot.id.entity.properties {
            guard let join = schema.joinTable(for: relationship) else { continue }
            try db.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(pk)])
        }
        return true
    }

    private func writeJoinRows(_ snapshot: ObjectSnapshot, id: ManagedObjectID, indices: [Int], replacing: Bool,
                               resolve: (ManagedObjectID) -> ManagedObjectID, db: SQLiteConnection) throws {
        guard let pk = id.primaryKey else { return }
        for index in indices {
            guard let relationship = id.entity.properties[index] as? RelationshipDescription,
                  let join = schema.joinTable(for: relationship),
                  case .loaded(let related)? = snapshot.values[index] as? ToManySlot else { continue }
            if replacing { try db.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(pk)]) }
            for other in related {
                guard let otherKey = resolve(other).primaryKey else { continue }
                try db.run("INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)",
                           [.integer(pk), .integer(otherKey)])
            }
        }
    }
}
