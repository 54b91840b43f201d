import Foundation
import LimelightData
import Logging

/// The indexer daemon: watches every registered records root and the roots registry with
/// inotify and applies marker changes in batches with one commit each.
///
/// Changes are applied as soon as the daemon has nothing else to do, unless several arrived while
/// the last batch was being applied: a lone save is searchable as soon as it can be (waiting to
/// see whether more follow would only add the wait), while under a stream of saves, where changes
/// keep arriving during batches, they are gathered for a short window so that batches grow and the
/// commits (each rewrites and flushes the index blocks it touched) stay few.
///
/// Startup and inotify overflow run a reconcile (markers against the index by modification time);
/// a root that hits the inotify watch limit is rescanned on a timer instead. Idle means no wake-ups:
/// the only timers are the coalescing window while events arrive, the rescans of such roots, and
/// one memory release a moment after the last batch of changes.
public final class IndexerDaemon: @unchecked Sendable {
    public struct Options: Sendable {
        public var indexPath: URL = ExternalRecordsRegistryPaths.defaultIndexURL
        public var language = "english"
        /// How long changes are gathered before the next batch when several arrived while the last
        /// one was being applied; otherwise they are applied at once.
        public var coalescingWindow: TimeInterval = 0.03
        /// A batch is applied at once when this many markers are waiting.
        public var maxBatchSize = 2000
        /// How often a root that could not be fully watched is rescanned.
        public var rescanInterval: TimeInterval = 30
        public var lockTimeout: TimeInterval = 0.5
        /// Caps inotify watches below the kernel's limit, to exercise the scan fallback in tests.
        public var maxWatches: Int?
        public init() {}
    }

    private let options: Options
    private let indexer: Indexer
    private let queue = DispatchQueue(label: "limelight.daemon")
    private var watcher: InotifyWatcher?
    private var roots: [String: URL] = [:]
    private var changed: Set<String> = []
    private var removed: Set<String> = []
    private var flushScheduled = false
    /// The scheduled batch waits for the coalescing window.
    private var waitingForWindow = false
    /// When the last batch started and committed, and how many changes inotify reported in
    /// between: several mean saves are coming faster than batches are applied.
    private var batchStarted: DispatchTime?
    private var batchCommitted: DispatchTime?
    private var arrivedDuringLastBatch = 0
    private var scannedRoots: Set<String> = []
    private var rescanTimer: DispatchSourceTimer?
    /// Fires once the daemon has been without a batch for `idleTrimDelay`, to give the heap's
    /// free pages back; each batch pushes it later.
    private var idleTrimTimer: DispatchSourceTimer?
    /// Long enough that a stream of saves never waits on a release between its batches.
    static let idleTrimDelay: TimeInterval = 1
    private var signalSources: [DispatchSourceSignal] = []
    /// Answers `limelight search` with the index and stores open already.
    private var searchServer: SearchServer?
    private let startedAt = Date()
    private var batches = 0
    private var indexedTotal = 0
    private var removedTotal = 0
    private var keptOutTotal = 0
    private var lastReconcile: DaemonStatus.Reconcile?
    private var overflows = 0
    private var lastCommit: Date?
    private let logger: Logger
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false

    /// Opens the index for writing; fails with a lock error when another daemon has it.
    public init(options: Options, logger: Logger) throws {
        self.options = options
        self.logger = logger
        indexer = try Indexer(indexPath: options.indexPath, language: options.language, lockTimeout: options.lockTimeout)
        lastCommit = (try? indexer.index.metadata(forKey: IndexLayout.lastCommitKey)).flatMap { $0 }
            .flatMap { ISO8601Timestamp.date(from: $0) }
    }

    /// Runs until SIGTERM or SIGINT; returns after the last batch is committed.
    public func run() throws {
        signal(SIGPIPE, SIG_IGN)
        // The search thread first, at the priority the daemon was started with; everything this
        // thread starts after lowering itself (the watcher, the queue's threads, importers) runs
        // in the background.
        do {
            let server = try SearchServer(indexPath: options.indexPath, logger: logger)
            server.indexRequests = { [weak self] request in
                self?.carryOut(request) ?? .failed("limelightd is stopping")
            }
            server.start()
            searchServer = server
        } catch {
            logger.warning("limelightd: not answering searches (limelight search runs them itself): \(error)")
        }
        BackgroundPriority.lowerCurrentThread()
        let queue = self.queue
        let watcher = try InotifyWatcher(maxWatches: options.maxWatches) { [weak self] events in
            let readAt = DispatchTime.now()
            queue.async { [weak self] in self?.handle(events, readAt: readAt) }
        }
        self.watcher = watcher
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.shutDown(signal: signalNumber) }
            source.resume()
            signalSources.append(source)
        }
        // `roots` belongs to the queue: counted there, since the watcher's events change it as
        // soon as it starts.
        let rootCount = queue.sync {
            let registry = ExternalRecordsRegistry.rootsDirectory
            try? FileManager.default.createDirectory(at: registry, withIntermediateDirectories: true)
            watcher.addTree(registry.path)
            // One reconcile of every root at startup, which also drops unregistered stores' documents.
            refreshRoots(reconcilingNewRoots: false)
            reconcile(roots)
            return roots.count
        }
        watcher.start()
        logger.info("limelightd: watching \(rootCount) records folder(s); index \(options.indexPath.path)")
        finished.wait()
    }

    private func shutDown(signal: Int32) {
        logger.info("limelightd: signal \(signal), finishing the batch")
        searchServer?.stop()
        flush()
        stopped = true
        watcher?.stop()
        writeStatus()
        do { try indexer.index.close() } catch { logger.error("limelightd: closing the index: \(error)") }
        finished.signal()
    }

    /// Reads the registry and watches roots that are new (and reconciles them, unless the caller
    /// reconciles everything next).
    private func refreshRoots(reconcilingNewRoots: Bool = true) {
        let current = ExternalRecordsRegistry.registeredRoots()
        // An unregistered store's folder is no longer watched; its documents go at the next
        // reconcile of any root.
        for (store, root) in roots where current[store] == nil {
            watcher?.removeTree(root.path)
            roots[store] = nil
            logger.info("limelightd: \(root.path) is no longer registered")
        }
        for (store, root) in current where roots[store] != root {
            try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            guard let watcher else { continue }
            let events = watcher.addTree(root.path)
            if events.contains(where: { $0.kind == .watchLimitReached }) { fallBackToScanning(root.path) }
            if let old = roots[store] { watcher.removeTree(old.path) }
            roots[store] = root
            if reconcilingNewRoots { reconcile([store: root]) }
        }
    }

    /// `readAt`: when the watcher read the events, which tells whether they came during a batch.
    private func handle(_ events: [WatchEvent], readAt: DispatchTime) {
        guard !stopped else { return }
        let registry = ExternalRecordsRegistry.rootsDirectory.path
        let wasIdle = changed.isEmpty && removed.isEmpty
        let duringBatch = cameDuringLastBatch(readAt)
        for event in events {
            switch event.kind {
            case .overflow:
                logger.warning("limelightd: inotify queue overflowed; reconciling every root")
                overflows += 1
                flush()
                reconcile(roots)
            case .watchLimitReached:
                fallBackToScanning(event.path)
            case .changed, .removed:
                if event.path.hasPrefix(registry + "/") {
                    refreshRoots()
                    continue
                }
                let name = (event.path as NSString).lastPathComponent
                guard !name.hasPrefix("."), !event.path.contains("/.limelight/"),
                      IndexLayout.objectURI(forMarker: event.path) != nil else { continue }
                if event.kind == .changed {
                    changed.insert(event.path)
                    removed.remove(event.path)
                } else {
                    removed.insert(event.path)
                    changed.remove(event.path)
                }
                if duringBatch { arrivedDuringLastBatch += 1 }
            case .folderAdded, .folderRemoved:
                continue
            }
        }
        let waiting = scheduleFlush()
        // Shows the queue while changes wait for the window; a batch applied at once writes the
        // status itself when it is done.
        if wasIdle && waiting { writeStatus() }
    }

    /// Whether events read at `readAt` came while the last batch was being applied.
    private func cameDuringLastBatch(_ readAt: DispatchTime) -> Bool {
        guard let batchStarted, let batchCommitted else { return false }
        return readAt >= batchStarted && readAt <= batchCommitted
    }

    /// Queues the next batch: at once, or after the coalescing window when changes are arriving
    /// faster than batches are applied. One change arriving during a batch is not yet a stream: a
    /// save made as soon as the previous one became searchable (or a thread of the daemon's
    /// descheduled for a moment after its commit) looks like that. Returns whether the batch
    /// waits for the window.
    private func scheduleFlush() -> Bool {
        if changed.count + removed.count >= options.maxBatchSize {
            flush()
            return false
        }
        guard !flushScheduled, !(changed.isEmpty && removed.isEmpty) else { return waitingForWindow }
        flushScheduled = true
        let apply: @Sendable () -> Void = { [weak self] in
            self?.flushScheduled = false
            self?.waitingForWindow = false
            self?.flush()
        }
        // Not applied right here: events the watcher has already handed over (queued behind this
        // call) join the batch.
        if arrivedDuringLastBatch >= 2 {
            waitingForWindow = true
            queue.asyncAfter(deadline: .now() + options.coalescingWindow, execute: apply)
            return true
        }
        queue.async(execute: apply)
        return false
    }

    private func flush() {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        // The queue's threads come from a pool: whichever picked this up works in the background.
        BackgroundPriority.lowerCurrentThread()
        batchStarted = .now()
        arrivedDuringLastBatch = 0
        let batchChanged = Array(changed), batchRemoved = removed.compactMap(IndexLayout.objectURI(forMarker:))
        changed = []
        removed = []
        let report = indexer.apply(changed: batchChanged, removedURIs: batchRemoved)
        batchCommitted = .now()
        batches += 1
        indexedTotal += report.indexed
        removedTotal += report.removed
        keptOutTotal += report.keptOut
        lastCommit = Date()
        logger.debug("limelightd: batch \(batches): indexed \(report.indexed), removed \(report.removed), failed \(report.failed), kept out \(report.keptOut)")
        writeStatus()
        releaseMemoryWhenIdle()
    }

    /// Returns free heap pages once no batch has come for a moment. Releasing after every batch
    /// made the next one fault its pages in again, which a stream of saves paid in latency.
    private func releaseMemoryWhenIdle() {
        let timer = idleTrimTimer ?? {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [weak self] in self?.releaseMemory() }
            timer.resume()
            idleTrimTimer = timer
            return timer
        }()
        timer.schedule(deadline: .now() + Self.idleTrimDelay, repeating: .never)
    }

    /// Gives memory back: the words whose stems the index's writer remembers (recorded again when
    /// next met), the stores searches kept open whose files are gone, then the heap's free pages.
    private func releaseMemory() {
        indexer.index.forgetRecordedStems()
        searchServer?.closeStaleStores()
        HeapTrimmer.releaseFreeMemory()
    }

    private func reconcile(_ selected: [String: URL]) {
        guard !selected.isEmpty else { writeStatus(); return }
        BackgroundPriority.lowerCurrentThread()
        do {
            let plan = try Reconciler.plan(index: indexer.index, roots: selected, registered: Set(roots.keys))
            // Said even when there is nothing to do: how much a start imports is what tells
            // whether the index is in step with the markers.
            logger.info("limelightd: reconcile: \(plan.changed.count) to index, \(plan.removedURIs.count) to remove, \(plan.unchanged) unchanged")
            var summary = DaemonStatus.Reconcile(at: Date(), toIndex: plan.changed.count, toRemove: plan.removedURIs.count, unchanged: plan.unchanged)
            if !plan.changed.isEmpty || !plan.removedURIs.isEmpty {
                for chunk in stride(from: 0, to: max(plan.changed.count, 1), by: options.maxBatchSize) {
                    let slice = Array(plan.changed[chunk..<min(plan.changed.count, chunk + options.maxBatchSize)])
                    let report = indexer.apply(changed: slice, removedURIs: chunk == 0 ? plan.removedURIs : [])
                    indexedTotal += report.indexed
                    removedTotal += report.removed
                    keptOutTotal += report.keptOut
                    summary.indexed += report.indexed
                    summary.keptOut += report.keptOut
                    batches += 1
                    lastCommit = Date()
                }
            }
            lastReconcile = summary
        } catch {
            logger.error("limelightd: reconcile failed: \(error)")
        }
        writeStatus()
        // A reconcile is a large piece of work done once, not one of a stream: release at once.
        releaseMemory()
    }

    /// A request to change the index, from the search thread: carried out on the daemon's queue,
    /// between batches, and committed before the reply.
    private func carryOut(_ request: IndexRequest) -> IndexRequest.Reply {
        queue.sync {
            guard !stopped else { return .failed("limelightd is stopping") }
            switch request {
            case .removeStore(let store):
                do {
                    let removed = try indexer.removeDocuments(ofStore: store)
                    removedTotal += removed
                    lastCommit = Date()
                    logger.info("limelightd: removed \(removed) document(s) of store \(store) on request; its markers are remembered as kept out")
                    writeStatus()
                    return .done("removed \(removed) document(s) of store \(store)")
                } catch {
                    logger.error("limelightd: cannot remove the documents of store \(store): \(error)")
                    return .failed("\(error)")
                }
            }
        }
    }

    private func fallBackToScanning(_ root: String) {
        guard scannedRoots.insert(root).inserted else { return }
        logger.critical("limelightd: the inotify watch limit is reached; \(root) is rescanned every \(String(format: "%g", options.rescanInterval)) s instead (raise fs.inotify.max_user_watches)")
        guard rescanTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + options.rescanInterval, repeating: options.rescanInterval)
        timer.setEventHandler { [weak self] in
            guard let self, !self.stopped else { return }
            self.reconcile(self.roots.filter { entry in self.scannedRoots.contains { $0 == entry.value.path || $0.hasPrefix(entry.value.path + "/") } })
        }
        timer.resume()
        rescanTimer = timer
    }

    private func writeStatus() {
        var status = DaemonStatus(pid: getpid(), startedAt: startedAt, indexPath: options.indexPath.path,
                                  roots: roots.mapValues(\.path), documents: indexer.index.searchableDocumentCount, lastCommit: lastCommit,
                                  queued: changed.count + removed.count, batches: batches, indexedTotal: indexedTotal,
                                  removedTotal: removedTotal, overflows: overflows, scannedRoots: scannedRoots.sorted(), failures: indexer.failures,
                                  searchSocket: searchServer?.socketPath)
        status.keptOut = indexer.index.keptOutCount
        status.keptOutTotal = keptOutTotal
        status.lastReconcile = lastReconcile
        do { try status.write() } catch { logger.error("limelightd: cannot write status: \(error)") }
    }
}
