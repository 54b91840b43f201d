import Foundation

extension SQLiteStore {
    /// What a streaming batch insert wrote: how many rows, and their IDs when they were kept.
    struct BatchInsertOutcome {
        let count: Int
        let ids: [ManagedObjectID]
    }

    /// Writes new objects of `entity`, each as soon as `nextRow` makes its values, in one
    /// transaction: `nextRow(n)` gives object number `n`'s values (in the entity's slots, in the
    /// attributes' canonical types) or nil when there are no more, and a throw from it rolls the
    /// whole insert back. Memory stays that of one row, whatever the count: the rows go to
    /// SQLite's pages as they come, and only the IDs are kept, and only when asked for (`keepsIDs`)
    /// or when the store's save participants (marker files, history) must be told of each object.
    func batchInsert(into entity: EntityDescription, origin: SaveOrigin, keepsIDs: Bool,
                     nextRow: (Int) throws -> [StoredValue]?) throws -> BatchInsertOutcome {
        let keeps = keepsIDs || !saveParticipants.isEmpty
        return try inWriteTransaction(failing: "batch insert failed") { db in
            // Keys are handed out from the tree's counter as rows come, and the counter is
            // written once, at the end.
            let (entityNumber, first) = try lastKey(ofTreeOf: entity, db: db)
            var last = first
            var statements = InsertStatements()
            var ids: [ManagedObjectID] = []
            var count = 0
            // A batch insert sets attributes only: no related ID to resolve.
            let resolve: (ManagedObjectID) -> ManagedObjectID = { $0 }
            while let values = try nextRow(count) {
                last += 1
                try insert(values, entity: entity, primaryKey: last, resolve: resolve, db: db, statements: &statements)
                if keeps { ids.append(objectID(entity: entity, primaryKey: last)) }
                count += 1
            }
            if last != first {
                try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last), .integer(entityNumber)])
            }
            // Participants read only the IDs of new objects; their values are in the table.
            let changes = SaveChanges(inserted: ids.map { ObjectSnapshot(id: $0, values: [], version: 0, changed: []) }, origin: origin)
            return (BatchInsertOutcome(count: count, ids: keepsIDs ? ids : []), changes, ids)
        }
    }
}
