import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show whether limelightd runs, what it watches, and how the index stands (exit status 3 when it does not run); "
                + "or, given a store, check it.",
            discussion: """
                With a store: opens it read-only, reads every object, and says whether its application could save to it. \
                Exit status 1, with one line naming the file and what is wrong, when it does not open, a row holds a value \
                its model does not allow, or this user cannot write it. The store is not changed.
                """)
        @Argument(help: "A store to check instead of showing the daemon's status.") var store: String?
        @Option(help: "The store's model (as for fetch); default: its records folder's copy, else the model it keeps of itself.")
        var model: String?
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            if let store { return try StoreCheck.run(store: store, model: model, json: json) }
            let roots = ExternalRecordsRegistry.registeredRoots()
            guard let status = DaemonStatus.read(), status.isRunning else {
                if json {
                    try printJSON(["running": false, "roots": roots.mapValues(\.path)])
                } else {
                    print("limelightd: not running")
                    print("registered records folders: \(roots.count)")
                    for (store, root) in roots.sorted(by: { $0.key < $1.key }) { print("  \(store)  \(root.path)") }
                }
                throw ExitCode(3)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                var object = try JSONSerialization.jsonObject(with: try encoder.encode(status)) as? [String: Any] ?? [:]
                object["running"] = true
                try printJSON(object)
                return
            }
            print("limelightd: running (pid \(status.pid), since \(ISO8601Timestamp.string(from: status.startedAt)))")
            print("index: \(status.indexPath)")
            print("searches: \(status.searchSocket.map { "answered at \($0)" } ?? "not answered (limelight search runs them itself)")")
            print("documents: \(status.documents)\(status.keptOut.map { $0 > 0 ? " (and \($0) objects kept out by their applications)" : "" } ?? "")")
            print("last commit: \(status.lastCommit.map(ISO8601Timestamp.string(from:)) ?? "none")")
            print("queue: \(status.queued)")
            print("batches: \(status.batches); indexed \(status.indexedTotal), kept out \(status.keptOutTotal ?? 0), removed \(status.removedTotal); queue overflows: \(status.overflows)")
            if let reconcile = status.lastReconcile {
                print("last reconcile: \(ISO8601Timestamp.string(from: reconcile.at)): \(reconcile.toIndex) to index (\(reconcile.indexed) indexed, \(reconcile.keptOut) kept out), \(reconcile.toRemove) removed, \(reconcile.unchanged) unchanged")
            }
            print("roots: \(status.roots.count)")
            for (store, root) in status.roots.sorted(by: { $0.key < $1.key }) {
                let scanned = status.scannedRoots.contains { $0 == root || $0.hasPrefix(root + "/") }
                print("  \(store)  \(root)\(scanned ? "  (scanned every few seconds: inotify watch limit)" : "")")
            }
            print("failures: \(status.failures.count)")
            for (marker, reason) in status.failures.sorted(by: { $0.key < $1.key }) { print("  \(marker): \(reason)") }
        }
    }

    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Index every registered records folder once, without the daemon.",
            discussion: "Shows a progress bar on standard error when it is a terminal.")
        @Option(help: "The index (default: $XDG_DATA_HOME/limelight/index).") var index: String?
        @Option(help: "Stemming language (a Xapian stemmer name, or none).") var language = "english"
        @Option(help: "Markers per commit: each batch is one Xapian transaction, written once.") var batchSize = 100_000

        func validate() throws {
            guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        }

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            let indexURL = URL(fileURLWithPath: index ?? defaultIndexPath())
            let indexer: Indexer
            do {
                indexer = try Indexer(indexPath: indexURL, language: language, lockTimeout: 1)
            } catch let error as SearchIndexError where error.kind == .lock {
                throw CommandError("the index is locked: limelightd is running and keeps it up to date already")
            }
            let plan = try Reconciler.plan(index: indexer.index, roots: ExternalRecordsRegistry.registeredRoots())
            let total = plan.changed.count
            let bar = ProgressBar(total: total)
            var done = 0, failed = 0, keptOut = 0
            let start = Date()
            var removedURIs = plan.removedURIs
            for chunk in stride(from: 0, to: max(total, 1), by: batchSize) {
                let slice = Array(plan.changed[chunk..<min(total, chunk + batchSize)])
                let report = indexer.apply(changed: slice, removedURIs: removedURIs) { bar?.update(done: done + $0) }
                removedURIs = []
                done += slice.count
                failed += report.failed
                keptOut += report.keptOut
            }
            bar?.finish()
            let seconds = Date().timeIntervalSince(start)
            print("indexed \(total - failed - keptOut)\(keptOut > 0 ? ", kept out \(keptOut)" : ""), removed \(plan.removedURIs.count), unchanged \(plan.unchanged), failed \(failed) in \(String(format: "%.2f", seconds)) s")
            for (marker, reason) in indexer.failures.sorted(by: { $0.key < $1.key }).prefix(20) { print("  failed \(marker): \(reason)") }
        }
    }
}
