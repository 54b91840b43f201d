import Foundation
import CSQLite

extension SQLiteStore {
    func sqliteSave(_ changes: SaveChanges) throws -> [ManagedObjectID] {
        try inWriteTransaction(failing: "save failed") { db in
            let permanent = try allocateKeys(for: changes.inserted, db: db)
            var mapping = PermanentIDMapping(snapshots: changes.inserted, permanent: permanent)
            var conflicts: [ManagedObjectID] = []
            for snapshot in changes.deleted {
                if try !delete(snapshot, db: db) { conflicts.append(snapshot.id) }
            }
            var inserts = InsertStatements()
            // Only the values are taken from each snapshot: copying a whole snapshot per row costs
            // a reference count for each of its parts.
            for index in changes.inserted.indices {
                try insert(changes.inserted[index].values, id: permanent[index], resolve: { mapping.resolve($0) }, db: db, statements: &inserts)
            }
            for snapshot in changes.updated {
                if try !update(snapshot, resolve: { mapping.resolve($0) }, db: db) { conflicts.append(snapshot.id) }
            }
            for snapshot in changes.locked where try !hasVersion(snapshot, db: db) { conflicts.append(snapshot.id) }
            if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
            try writePositions(changes, permanent: permanent, resolve: { mapping.resolve($0) }, db: db)
            // Participants are told the IDs the new objects were stored under beside the changes,
            // rather than handed a copy of every new object's snapshot carrying its new ID.
            return (permanent, changes, permanent)
        }
    }

    /// Runs `body` in one write transaction. What it reports written (its changes, and the IDs its
    /// new objects were stored under) is journaled by the save participants (marker files) inside
    /// the transaction and carried out after the commit; on any failure nothing is written.
    func inWriteTransaction<Result>(failing what: String,
                                    _ body: (SQLiteConnection) throws -> (Result, SaveChanges, insertedIDs: [ManagedObjectID])) throws -> Result {
        let db = try db()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let (result, changes, insertedIDs) = try body(db)
            for participant in saveParticipants { try participant.willCommit(changes, insertedIDs: insertedIDs, store: self) }
            try db.execute("COMMIT")
            for participant in saveParticipants { participant.didCommit(store: self) }
            return result
        } catch {
            try? db.execute("ROLLBACK")
            if let persistence = error as? PersistenceError { throw persistence }
            throw PersistenceError.store(path: path, reason: "\(what), nothing was written: \(error)")
        }
    }

    func sqliteObtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        let db = try db()
        try db.execute("BEGIN IMMEDIATE")
        do {
            let permanent = try allocateKeys(for: ids.map { ObjectSnapshot(id: $0, values: [], version: 0, changed: []) }, db: db)
            try db.execute("COMMIT")
            return permanent
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Reserves primary keys from the root entity's `Z_MAX`, as Core Data does: keys are unique
    /// per table, shared by an inheritance tree. Returns each ID's permanent one, in order; the
    /// counter of each tree is read once and written once per call, not per object.
    private func allocateKeys(for snapshots: [ObjectSnapshot], db: SQLiteConnection) throws -> [ManagedObjectID] {
        // Per inheritance tree: its entity number and the last key handed out. A save has few
        // trees, so a short list searched from the last one used beats hashing every ID's.
        var counters: [(root: ObjectIdentifier, number: Int64, last: Int64)] = []
        var current = -1
        var result: [ManagedObjectID] = []
        result.reserveCapacity(snapshots.count)
        for index in snapshots.indices {
            let id = snapshots[index].id
            guard id.isTemporaryID else {
                result.append(id)
                continue
            }
            let root = id.entity.rootIdentity
            if current < 0 || counters[current].root != root {
                if let known = counters.firstIndex(where: { $0.root == root }) {
                    current = known
                } else {
                    let (number, last) = try lastKey(ofTreeOf: id.entity, db: db)
                    counters.append((root, number, last))
                    current = counters.count - 1
                }
            }
            counters[current].last += 1
            result.append(objectID(entity: id.entity, primaryKey: counters[current].last))
        }
        for counter in counters {
            try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(counter.last), .integer(counter.number)])
        }
        return result
    }

    /// The entity number of `entity`'s inheritance tree and the last primary key handed out in
    /// it: its `Z_MAX`, or the table's largest key when that is larger (a store written by
    /// another program that did not keep the counter). Whoever hands out keys writes `Z_MAX`.
    func lastKey(ofTreeOf entity: EntityDescription, db: SQLiteConnection) throws -> (entityNumber: Int64, last: Int64) {
        let rootEntity = entity.rootEntity
        let number = Int64(schema.number(of: rootEntity))
        var last = try db.scalarInt("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)]) ?? 0
        if let table = schema.table(for: rootEntity) {
            last = max(last, try db.scalarInt("SELECT max(Z_PK) FROM \(table.name)") ?? 0)
        }
        return (number, last)
    }

    func writePlan(for entity: EntityDescription, table: SQLiteSchema.Table) -> SQLiteWritePlan {
        if let plan = writePlans[ObjectIdentifier(entity)] { return plan }
        var slots: [SQLiteWritePlan.Slot?] = []
        for property in entity.properties {
            if let composite = property as? CompositeAttributeDescription {
                let columns = SQLiteCompositeColumns(composite)
                let stored = SQLiteSchema.isStoredInRow(composite) && columns.columns.allSatisfy { table.columnIndex[$0] != nil }
                slots.append(stored ? SQLiteWritePlan.Slot(column: columns.columns.first ?? "", attribute: composite, typeColumn: nil,
                                                           composite: columns) : nil)
                continue
            }
            guard SQLiteSchema.isStoredInRow(property), table.columnIndex[schema.column(for: property)] != nil else {
                slots.append(nil)
                continue
            }
            let typeColumn = (property as? RelationshipDescription).flatMap { schema.typeColumn(for: $0) }.flatMap { table.columnIndex[$0] != nil ? $0 : nil }
            slots.append(SQLiteWritePlan.Slot(column: schema.column(for: property), attribute: property as? AttributeDescription, typeColumn: typeColumn))
        }
        var names = ["Z_PK", "Z_ENT", "Z_OPT"]
        for slot in slots.compactMap({ $0 }) {
            if let composite = slot.composite {
                names += composite.columns
                continue
            }
            names.append(slot.column)
            if let typeColumn = slot.typeColumn { names.append(typeColumn) }
        }
        // A new row's entity number and version are the same for every row of the entity: they
        // are written into the statement, not bound for every row (two binds of the thirteen a
        // row of ten attributes took). The key and the values are parameters 1, 2, ….
        let entityNumber = Int64(schema.number(of: entity))
        let values = ["?", String(entityNumber), "1"] + names.dropFirst(3).map { _ in "?" }
        let sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let joined = entity.properties.indices.filter { index in
            (entity.properties[index] as? RelationshipDescription).map { schema.joinTable(for: $0) != nil } ?? false
        }
        var attributes = [AttributeDescription?](repeating: nil, count: slots.count)
        let insertColumns = slots.enumerated().compactMap { index, slot -> SQLiteWritePlan.InsertColumn? in
            guard let slot else { return nil }
            if slot.composite != nil { return .composite(index) }
            guard let attribute = slot.attribute else { return .toOne(index, hasTypeColumn: slot.typeColumn != nil) }
            attributes[index] = attribute
            return attribute.attributeType == .integer64 ? .integer64(index) : .attribute(index)
        }
        let plan = SQLiteWritePlan(slots: slots, insertSQL: sql, joinTableSlots: joined,
                                   insertColumns: insertColumns, attributes: attributes)
        writePlans[ObjectIdentifier(entity)] = plan
        return plan
    }

    private func rowValues(_ snapshot: ObjectSnapshot, indices: [Int], plan: SQLiteWritePlan,
                           resolve: (ManagedObjectID) -> ManagedObjectID) throws -> [(String, SQLiteValue)] {
        var result: [(String, SQLiteValue)] = []
        result.reserveCapacity(indices.count)
        for index in indices {
            guard let slot = plan.slots[index] else { continue }
            if let composite = slot.composite {
                result += zip(composite.columns, try composite.sqlValues(snapshot.values[index])).map { ($0, $1) }
            } else if let attribute = slot.attribute {
                result.append((slot.column, try SQLiteValueMapping.sqlValue(snapshot.values[index], for: attribute)))
            } else {
                let id = snapshot.values[index].objectID.map(resolve)
                result.append((slot.column, id?.primaryKey.map { .integer($0) } ?? .null))
                if let typeColumn = slot.typeColumn {
                    result.append((typeColumn, id.map { .integer(Int64(schema.number(of: $0.entity))) } ?? .null))
                }
            }
        }
        return result
    }

    /// A save's insert statements and plans by entity, looked up once per entity rather than by
    /// their SQL text for every row.
    struct InsertStatements {
        var byEntity: [ObjectIdentifier: (plan: SQLiteWritePlan, statement: OpaquePointer)] = [:]
        var last: (entity: ObjectIdentifier, plan: SQLiteWritePlan, statement: OpaquePointer)?
    }

    private func insert(_ values: [StoredValue], id: ManagedObjectID, resolve: (ManagedObjectID) -> ManagedObjectID,
                        db: SQLiteConnection, statements: inout InsertStatements) throws {
        guard let pk = id.primaryKey else { return }
        try insert(values, entity: id.entity, primaryKey: pk, resolve: resolve, db: db, statements: &statements)
    }

    /// Writes the row of a new object of `entity` stored under `pk`, with its join rows.
    func insert(_ values: [StoredValue], entity: EntityDescription, primaryKey pk: Int64, resolve: (ManagedObjectID) -> ManagedObjectID,
                db: SQLiteConnection, statements: inout InsertStatements) throws {
        let key = ObjectIdentifier(entity)
        let plan: SQLiteWritePlan, statement: OpaquePointer
        if let last = statements.last, last.entity == key {
            // A row of the entity before, as nearly every row is: `last` is not written again,
            // which retained the plan and released the one it replaced for every row.
            (plan, statement) = (last.plan, last.statement)
        } else {
            if let known = statements.byEntity[key] {
                (plan, statement) = known
            } else {
                guard let table = schema.table(for: entity) else { return }
                plan = writePlan(for: entity, table: table)
                statement = try db.prepare(plan.insertSQL)
                statements.byEntity[key] = (plan, statement)
            }
            statements.last = (key, plan, statement)
        }
        // Values are bound straight from the snapshot, integers without a `SQLiteValue` between:
        // no per-row arrays of columns. Return codes are gathered (SQLITE_OK is 0) and checked once.
        // `Z_ENT` and `Z_OPT` are in the statement's text (`writePlan`).
        var rc = sqlite3_bind_int64(statement, 1, pk)
        var position: Int32 = 1
        for column in plan.insertColumns {
            position += 1
            switch column {
            case .integer64(let index):
                // The common case without a conversion: the slot holds the canonical Int64.
                if case .int64(let value) = values[index] {
                    rc |= sqlite3_bind_int64(statement, position, value)
                } else {
                    try db.bind(try plan.sqlValue(values[index], slot: index), at: position, to: statement)
                }
            case .attribute(let index):
                try db.bind(try plan.sqlValue(values[index], slot: index), at: position, to: statement)
            case .composite(let index):
                // One parameter per element column; `position` ends on the last of them.
                let columns = try plan.slots[index]?.composite?.sqlValues(values[index]) ?? []
                for (offset, value) in columns.enumerated() {
                    try db.bind(value, at: position + Int32(offset), to: statement)
                }
                position += Int32(max(0, columns.count - 1))
            case .toOne(let index, let hasTypeColumn):
                let related = values[index].objectID.map(resolve)
                try db.bind(related?.primaryKey.map { .integer($0) } ?? .null, at: position, to: statement)
                if hasTypeColumn {
                    position += 1
                    try db.bind(related.map { .integer(Int64(schema.number(of: $0.entity))) } ?? .null, at: position, to: statement)
                }
            }
        }
        guard rc == SQLITE_OK else { throw db.error("binding the values of \(plan.insertSQL)") }
        try db.step(statement, sql: plan.insertSQL)
        if !plan.joinTableSlots.isEmpty {
            try writeJoinRows(values, id: objectID(entity: entity, primaryKey: pk), indices: plan.joinTableSlots, as: .new, resolve: resolve, db: db)
        }
    }

    /// Returns false when the row changed since it was read (optimistic locking).
    private func update(_ snapshot: ObjectSnapshot, resolve: (ManagedObjectID) -> ManagedObjectID, db: SQLiteConnection) throws -> Bool {
        guard let table = schema.table(for: snapshot.id.entity), let pk = snapshot.id.primaryKey else { return true }
        let columns = try rowValues(snapshot, indices: snapshot.changed, plan: writePlan(for: snapshot.id.entity, table: table), resolve: resolve)
        let assignments = (["Z_OPT = Z_OPT + 1"] + columns.map { "\($0.0) = ?" }).joined(separator: ", ")
        let changed = try db.run("UPDATE \(table.name) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?",
                                 columns.map(\.1) + [.integer(pk), .integer(snapshot.version)])
        guard changed == 1 else { return false }
        try writeJoinRows(snapshot.values, id: snapshot.id, indices: snapshot.changed, as: .update(saved: snapshot.committedValues),
                          resolve: resolve, db: db)
        return true
    }

    /// Whether the row of an object that is not written (`detectConflicts(for:)`) is still at
    /// the version it was read at.
    private func hasVersion(_ snapshot: ObjectSnapshot, db: SQLiteConnection) throws -> Bool {
        guard let table = schema.table(for: snapshot.id.entity), let pk = snapshot.id.primaryKey else { return true }
        return try db.scalarInt("SELECT Z_OPT FROM \(table.name) WHERE Z_PK = ?", [.integer(pk)]) == snapshot.version
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

    /// Whose join rows are written: a new object's, or an updated one's with its values as last
    /// saved (nil when unknown).
    private enum JoinRowWrite {
        case new
        case update(saved: [StoredValue]?)
    }

    /// Writes the join rows of many-to-many slots: a new object's all, an update's as the rows
    /// added and removed since the saved IDs, so adding one item to a tag with thousands does not
    /// rewrite them all. An update whose saved IDs are unknown (a to-many not loaded before the
    /// change) replaces the source's rows whole. Both sides of a relationship may write the same
    /// row: an insert ignores one already there, a removal finds none.
    private func writeJoinRows(_ values: [StoredValue], id: ManagedObjectID, indices: [Int], as write: JoinRowWrite,
                               resolve: (ManagedObjectID) -> ManagedObjectID, db: SQLiteConnection) throws {
        guard let pk = id.primaryKey else { return }
        for index in indices {
            guard let relationship = id.entity.properties[index] as? RelationshipDescription,
                  let join = schema.joinTable(for: relationship),
                  case .toMany(.loaded(let related)) = values[index] else { continue }
            let keys = related.compactMap { resolve($0).primaryKey }
            var added = keys
            if case .update(let saved) = write {
                if let saved, case .toMany(.loaded(let savedIDs)) = saved[index] {
                    let before = Set(savedIDs.compactMap(\.primaryKey))
                    let after = Set(keys)
                    added = keys.filter { !before.contains($0) }
                    let delete = "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?"
                    for removed in before where !after.contains(removed) { try db.run(delete, [.integer(pk), .integer(removed)]) }
                } else {
                    try db.run("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(pk)])
                }
            }
            try insertJoinRows(added, source: pk, join: join, db: db)
        }
    }

    /// Inserts the rows joining `source` to each of `keys`, through one prepared statement.
    private func insertJoinRows(_ keys: [Int64], source: Int64, join: SQLiteSchema.JoinTable, db: SQLiteConnection) throws {
        guard !keys.isEmpty else { return }
        let sql = "INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)"
        let insert = try db.prepare(sql)
        for key in keys {
            guard sqlite3_bind_int64(insert, 1, source) | sqlite3_bind_int64(insert, 2, key) == SQLITE_OK else {
                throw db.error("binding the keys of \(sql)")
            }
            try db.step(insert, sql: sql)
        }
    }
}

/// How one entity's rows are written: a slot per property (nil when not stored in the row).
/// A class: a save hands the same plan to every row of the entity, which then costs one
/// reference instead of copying its arrays' references.
final class SQLiteWritePlan {
    struct Slot {
        let column: String
        let attribute: AttributeDescription?
        let typeColumn: String?
        /// A composite attribute's element columns (`column` is then the first of them).
        var composite: SQLiteCompositeColumns?
    }
    let slots: [Slot?]
    let insertSQL: String
    /// Slots of to-many relationships kept in join tables.
    let joinTableSlots: [Int]

    /// One parameter (two for a to-one with a type column) of the insert statement, by slot: what
    /// an insert binds, in order, without copying the slots' names.
    enum InsertColumn {
        case integer64(Int)
        case attribute(Int)
        case toOne(Int, hasTypeColumn: Bool)
        /// A composite attribute: one parameter per element column.
        case composite(Int)
    }
    let insertColumns: [InsertColumn]
    /// The attributes of the attribute columns, by slot (`nil` for other slots).
    let attributes: [AttributeDescription?]

    init(slots: [Slot?], insertSQL: String, joinTableSlots: [Int], insertColumns: [InsertColumn],
         attributes: [AttributeDescription?]) {
        self.slots = slots
        self.insertSQL = insertSQL
        self.joinTableSlots = joinTableSlots
        self.insertColumns = insertColumns
        self.attributes = attributes
    }

    /// The column value of attribute slot `slot` (every attribute column has its attribute).
    func sqlValue(_ value: StoredValue, slot: Int) throws -> SQLiteValue {
        guard let attribute = attributes[slot] else { return .null }
        return try SQLiteValueMapping.sqlValue(value, for: attribute)
    }
}
