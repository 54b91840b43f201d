import Foundation

/// A fetch that runs on its context's queue while the caller goes on, Core Data's
/// `NSAsynchronousFetchRequest`: `context.execute(_:)` returns an `AsynchronousFetchResult` at
/// once, and `completionBlock` receives it, on the context's queue, when the fetch is done.
///
/// It exists for fetches long enough to be worth watching or stopping: the objects are loaded a
/// batch at a time (`fetchRequest.fetchBatchSize`, else `defaultBatchSize`), the result's
/// `progress` counts them, and cancelling the progress (or `cancel()` on the result) stops the
/// fetch before the next batch.
///
/// ```swift
/// let request = AsynchronousFetchRequest(fetchRequest: Recipe.fetchRequest()) { result in
///     if let recipes = result.finalResult { show(recipes) } else { report(result.operationError) }
/// }
/// let running = try context.execute(request)   // running.progress, running.cancel()
/// ```
public final class AsynchronousFetchRequest<ResultType>: @unchecked Sendable {
    /// Receives the result on the context's queue: `finalResult` when the fetch succeeded,
    /// `operationError` when it failed or was cancelled.
    public typealias CompletionBlock = (AsynchronousFetchResult<ResultType>) -> Void

    /// The batch size used when the fetch request has none: how often progress is reported and
    /// cancellation is noticed.
    public static var defaultBatchSize: Int { 500 }

    /// What to fetch; its `resultType` must be `.managedObject`.
    public let fetchRequest: FetchRequest<ResultType>
    public let completionBlock: CompletionBlock?
    /// How many objects the caller expects, the progress's `totalUnitCount` until the fetch knows
    /// how many match (0: unknown).
    public var estimatedResultCount = 0

    public init(fetchRequest: FetchRequest<ResultType>, completionBlock: CompletionBlock? = nil) {
        self.fetchRequest = fetchRequest
        self.completionBlock = completionBlock
    }
}

extension ManagedObjectContext {
    /// Starts `request` on the context's queue and returns its result at once; the result is
    /// filled in, and the request's completion block called with it on the same queue, when the
    /// fetch ends. Throws only for a request that cannot start (a result type other than objects);
    /// what goes wrong while fetching (a predicate the store cannot run, a missing store, a
    /// cancellation) is the result's `operationError`.
    ///
    /// The matching objects' IDs are read first (the progress's `totalUnitCount` is then their
    /// number), then their values a batch at a time with the request's prefetching; the progress
    /// is checked for cancellation before each batch. The objects are registered in this context,
    /// as `fetch(_:)` registers them.
    @discardableResult
    public func execute<ResultType>(_ request: AsynchronousFetchRequest<ResultType>) throws -> AsynchronousFetchResult<ResultType> {
        let fetch = request.fetchRequest.specification
        guard fetch.resultType == .managedObject else {
            throw PersistenceError.invalidRequest("an asynchronous fetch returns objects; the request for \(fetch.subject) has resultType .\(fetch.resultType)")
        }
        let result = AsynchronousFetchResult(request: request, context: self)
        queue.async {
            HeldContexts.holding(self) {
                result.finish(Result { try FetchResultConversion.objects(self.fetchInBatches(fetch, progress: result.progress), for: fetch) })
                request.completionBlock?(result)
            }
        }
        return result
    }

    private func fetchInBatches(_ request: FetchSpecification, progress: Progress) throws -> [ManagedObject] {
        func checkCancelled() throws {
            if progress.isCancelled { throw CocoaError(.userCancelled) }
        }
        try checkCancelled()
        let ids = try fetchObjectIDs(request)
        let entity = try resolve(request).0
        progress.totalUnitCount = Int64(ids.count)
        let size = request.fetchBatchSize > 0 ? request.fetchBatchSize : AsynchronousFetchRequest<ManagedObject>.defaultBatchSize
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for start in stride(from: 0, to: ids.count, by: size) {
            try checkCancelled()
            let batch = ids[start..<min(ids.count, start + size)]
            objects += request.includesPropertyValues
                ? try loadBatch(batch, prefetching: request.relationshipKeyPathsForPrefetching, entity: entity)
                : batch.map { object(with: $0) }
            progress.completedUnitCount = Int64(objects.count)
        }
        return objects
    }
}
