import Foundation
import LimelightData
#if canImport(Glibc)
import Glibc
#endif

/// A search whose results stay current, as a Spotlight metadata query's do: it runs a
/// `SpotlightQuery` in a context, then again whenever `limelightd` commits to the index, and hands
/// the results over each time they differ from the last (other objects, another order, new
/// snippets). A search field or a smart folder in an application is one of these.
///
/// ```swift
/// let live = LiveSpotlightQuery(SpotlightQuery("tomato"), in: context) { results in
///     show(results.hits)                     // on the context's queue
/// }
/// try live.start()                           // the first results arrive before start() returns
/// …
/// live.stop()
/// ```
///
/// The index folder is watched with inotify, so a query that nothing changes costs nothing;
/// commits that come close together are taken as one. A search that fails after the start (the
/// index being rebuilt) keeps the last results and is tried again at the next commit.
public final class LiveSpotlightQuery: @unchecked Sendable {
    public typealias UpdateHandler = @Sendable (SpotlightResults) -> Void

    public let query: SpotlightQuery
    public let context: ManagedObjectContext
    private let handler: UpdateHandler
    private let lock = NSLock()
    private var watcher: InotifyWatcher?
    private var lastResults: SpotlightResults?
    private var pending = false
    /// How long after a commit the query runs again, so a burst of commits makes one search.
    static let settleTime: DispatchTimeInterval = .milliseconds(30)

    /// `handler` receives the results on the context's queue.
    public init(_ query: SpotlightQuery, in context: ManagedObjectContext, onUpdate handler: @escaping UpdateHandler) {
        self.query = query
        self.context = context
        self.handler = handler
    }

    deinit { watcher?.stop() }

    /// The latest results handed over.
    public var results: SpotlightResults? { lock.withLock { lastResults } }

    /// Runs the query (its results go to the handler before this returns) and starts watching
    /// the index. Throws what the first search throws (no index yet, a query that does not parse).
    public func start() throws {
        let index = (query.indexURL ?? ExternalRecordsRegistryPaths.defaultIndexURL).standardizedFileURL.path
        let watcher = try InotifyWatcher { [weak self] events in
            guard let self, events.contains(where: { Self.concerns($0, index: index) }) else { return }
            self.scheduleRefresh()
        }
        // The folder above the index: the index itself may be swapped for a rebuilt one.
        watcher.addTree((index as NSString).deletingLastPathComponent)
        try context.performAndWait { try refresh() }
        lock.withLock { self.watcher = watcher }
        watcher.start()
    }

    /// Stops watching; no handler call starts after this returns.
    public func stop() {
        let watcher = lock.withLock {
            let current = self.watcher
            self.watcher = nil
            return current
        }
        watcher?.stop()
    }

    private var isRunning: Bool { lock.withLock { watcher != nil } }

    private static func concerns(_ event: WatchEvent, index: String) -> Bool {
        event.kind == .overflow || event.path == index || event.path.hasPrefix(index + "/") || event.path.hasPrefix(index + ".")
    }

    private func scheduleRefresh() {
        let schedule = lock.withLock {
            if pending { return false }
            pending = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.settleTime) { [weak self] in
            guard let self else { return }
            lock.withLock { pending = false }
            context.perform { [weak self] in
                guard let self, isRunning else { return }
                try? refresh()
            }
        }
    }

    /// Searches and hands the results over when they differ from the last; on the context's queue.
    private func refresh() throws {
        let results = try context.search(query)
        let changed = lock.withLock {
            guard lastResults.map({ !Self.same($0, results) }) ?? true else { return false }
            lastResults = results
            return true
        }
        if changed { handler(results) }
    }

    private static func same(_ a: SpotlightResults, _ b: SpotlightResults) -> Bool {
        a.estimatedTotal == b.estimatedTotal && a.hits.count == b.hits.count
            && zip(a.hits, b.hits).allSatisfy { $0.object === $1.object && $0.relevance == $1.relevance && $0.snippet == $1.snippet }
    }
}
