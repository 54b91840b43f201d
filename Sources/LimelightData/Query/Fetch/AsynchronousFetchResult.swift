import Foundation

/// What `ManagedObjectContext.execute(_:)` returns for an `AsynchronousFetchRequest`, Core Data's
/// `NSAsynchronousFetchResult`: returned at once and filled in when the fetch ends, then handed
/// to the request's completion block.
public final class AsynchronousFetchResult<ResultType>: @unchecked Sendable {
    /// The request this is the result of.
    public let fetchRequest: AsynchronousFetchRequest<ResultType>
    /// The context the objects are registered in. Held weakly: a result does not keep its
    /// context alive (the running fetch does, until it ends).
    public private(set) weak var managedObjectContext: ManagedObjectContext?
    /// Counts the objects loaded, out of `estimatedResultCount` and then out of the number that
    /// match. Cancelling it stops the fetch before its next batch. Made as a child of the
    /// thread's current progress when there is one, as Core Data does.
    public let progress: Progress
    private let lock = NSLock()
    private var outcome: Result<[ResultType], any Error>?

    init(request: AsynchronousFetchRequest<ResultType>, context: ManagedObjectContext) {
        fetchRequest = request
        managedObjectContext = context
        progress = Progress(totalUnitCount: Int64(max(0, request.estimatedResultCount)))
        progress.isCancellable = true
    }

    /// The matching objects, once the fetch succeeded; `nil` before, and after a failure.
    /// Use them on the context's queue, like any of its objects.
    public var finalResult: [ResultType]? {
        lock.withLock { try? outcome?.get() }
    }

    /// Why the fetch failed, once it did: the store's error, or `CocoaError(.userCancelled)`
    /// when it was cancelled. `nil` while it runs and after a success.
    public var operationError: (any Error)? {
        lock.withLock {
            guard case .failure(let error) = outcome else { return nil }
            return error
        }
    }

    /// Stops the fetch before its next batch (by cancelling `progress`); the completion block
    /// then receives a `CocoaError(.userCancelled)`. Does nothing once the fetch has ended.
    public func cancel() {
        progress.cancel()
    }

    func finish(_ outcome: Result<[ResultType], any Error>) {
        lock.withLock { self.outcome = outcome }
    }
}
