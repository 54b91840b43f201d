import Foundation

extension ManagedObjectContext {
    /// Runs a batch insert into the store new objects of the entity go to.
    ///
    /// A handler is called while the insert's transaction is open, on the calling thread: it may
    /// read (a fetch sees the objects written so far) but not save.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        let (entity, coordinator) = try resolve(FetchSpecification(entityName: request.entityName))
        guard !entity.isAbstract else { throw PersistenceError.invalidRequest("batch insert: \(entity.name) is abstract") }
        let constraints = UniquenessConstraint.all(of: entity)
        var source = try BatchInsertSource(request, rows: BatchInsertRows(entity: entity))
        let wantsIDs = request.resultType == .objectIDs
        let (count, ids) = try coordinator.withStores { () throws -> (Int, [ManagedObjectID]) in
            let store = try Self.sqliteStore(coordinator.store(forNew: entity))
            guard constraints.isEmpty else {
                return try upsert(from: &source, entity: entity, constraints: constraints, store: store)
            }
            var none: [Int]?
            let outcome = try store.batchInsert(into: entity, origin: origin, keepsIDs: wantsIDs) { row in
                try source.next(row, given: &none)
            }
            return (outcome.count, outcome.ids)
        }
        return BatchResult(status: true, count: count, objectIDs: wantsIDs ? ids : nil, countRequested: request.resultType == .count)
    }

    /// An upsert takes every object before it writes: each is compared with the ones before it
    /// and with the store, and which slots each gave is kept for the merge.
    private func upsert(from source: inout BatchInsertSource, entity: EntityDescription, constraints: [UniquenessConstraint],
                        store: SQLiteStore) throws -> (Int, [ManagedObjectID]) {
        var snapshots: [ObjectSnapshot] = []
        var given: [[Int]] = []
        while true {
            var slots: [Int]? = []
            guard let values = try source.next(snapshots.count, given: &slots) else { break }
            given.append(slots ?? [])
            snapshots.append(ObjectSnapshot(id: ManagedObjectID(temporaryFor: entity), values: values, version: 0, changed: []))
        }
        guard !snapshots.isEmpty else { return (0, []) }
        let ids = try upsert(snapshots, given: given, entity: entity, constraints: constraints, store: store)
        return (ids.count, ids)
    }
}
