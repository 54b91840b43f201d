import Foundation

/// What `ManagedObjectContext.execute(_:)` returns, by the request's `resultType`.
public enum FetchResult {
    /// `.managedObject`: what `fetch(_:)` returns.
    case objects([ManagedObject])
    /// `.managedObjectID`: what `fetchObjectIDs(_:)` returns.
    case objectIDs([ManagedObjectID])
    /// `.dictionary`: what `fetchDictionaries(_:)` returns.
    case dictionaries([[String: Any]])
    /// `.count`: what `count(for:)` returns.
    case count(Int)
}

extension ManagedObjectContext {
    /// Runs `request` and returns what its `resultType` asks for, as Core Data's `fetch` does with
    /// a request whose result type is not managed objects.
    public func execute<ResultType>(_ request: FetchRequest<ResultType>) throws -> FetchResult {
        let specification = request.specification
        switch specification.resultType {
        case .managedObject: return .objects(try fetchObjects(specification))
        case .managedObjectID: return .objectIDs(try fetchObjectIDs(specification))
        case .dictionary: return .dictionaries(try fetchDictionaries(specification))
        case .count: return .count(try count(for: specification))
        }
    }

    /// The IDs of the matching objects, read from `Z_PK` and `Z_ENT` alone: no values are decoded
    /// and no objects registered. Unsaved changes that take part (or several stores) need the
    /// objects, so the IDs then come from a full fetch.
    public func fetchObjectIDs<ResultType>(_ request: FetchRequest<ResultType>) throws -> [ManagedObjectID] {
        try fetchObjectIDs(request.specification)
    }

    func fetchObjectIDs(_ request: FetchSpecification) throws -> [ManagedObjectID] {
        let (entity, coordinator) = try resolve(request)
        try request.checkSortKeys(in: entity)
        let stores = coordinator.stores(for: request)
        let ancestors = ancestorChanges(for: entity, request)
        let pending = request.includesPendingChanges && hasPendingChanges(for: entity, request: request) || ancestors?.isEmpty == false
        guard !pending, stores.count == 1, let store = stores.first, store.evaluatesPredicates else {
            return try fetchObjects(request, ancestors: ancestors).map(\.objectID)
        }
        return try readingStores(coordinator) { try store.fetchIDs(StoreFetch(request: request, entity: entity)) }
    }

    /// Dictionary results (Core Data's `NSDictionaryResultType`): one `[String: Any]` per row with
    /// the `propertiesToFetch` (attribute values in their Swift types, to-ones as
    /// `ManagedObjectID`s, `ExpressionDescription` results under their names; nil values are left
    /// out), grouped by `propertiesToGroupBy`, filtered by `havingPredicate`, distinct when
    /// `returnsDistinctResults`. The SQLite store computes all of it in one SQL statement.
    ///
    /// As in Core Data, the results reflect the stores only, never the context's unsaved changes.
    /// With several stores the rows of each store are computed separately and concatenated.
    public func fetchDictionaries<ResultType>(_ request: FetchRequest<ResultType>) throws -> [[String: Any]] {
        try fetchDictionaries(request.specification)
    }

    func fetchDictionaries(_ request: FetchSpecification) throws -> [[String: Any]] {
        let (entity, coordinator) = try resolve(request)
        let storeFetch = StoreFetch(request: request, entity: entity)
        var results: [[String: Any]] = []
        for store in coordinator.stores(for: request) {
            if store.evaluatesPredicates {
                results += try readingStores(coordinator) { try store.fetchDictionaries(storeFetch) }
            } else {
                let objects = try fetchObjects(request.objectsForDictionaries(in: store))
                results += try DictionaryEvaluation.results(of: objects, request: request, entity: entity)
            }
        }
        return results
    }

    /// The matching objects as a collection that reads only their IDs now and loads the objects
    /// `fetchBatchSize` at a time (one query per batch) as it is walked. Only the batch being
    /// walked is held; earlier ones go away unless the caller keeps them. A batch size of 0 loads
    /// everything on first access.
    public func fetchBatched<ResultType>(_ request: FetchRequest<ResultType>) throws -> FetchedResults {
        let specification = request.specification
        let ids = try fetchObjectIDs(specification)
        return FetchedResults(objectIDs: ids, batchSize: specification.fetchBatchSize, context: self,
                              prefetching: specification.relationshipKeyPathsForPrefetching,
                              entity: try resolve(specification).0)
    }
}
