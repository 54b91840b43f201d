import ArgumentParser
import Foundation
import LimelightData
import LimelightSearch

extension Limelight {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show whether limelightd runs, what it watches, and how the index stands (exit status 3 when it does not run).")
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let roots = ExternalRecordsRegistry.registeredRoots()
            guard let status = DaemonStatus.read(), status.isRunning else {
                print("limelightd: not running")
                print("registered records folders: \(roots.count)")
                for (store, root) in roots.sorted(by: { $0.key < $1.key }) { print("  \(store)  \(root.path)") }
                throw ExitCode(3)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
                return
            }
            print("limelightd: running (pid \(status.pid), since \(status.startedAt))")
            print("index: \(status.indexPath), \(status.documents) documents, last commit \(status.lastCommit.map { "\($0)" } ?? "none")")
            print("queue: \(status.queued); batches: \(status.batches); indexed \(status.indexedTotal), removed \(status.removedTotal); queue overflows: \(status.overflows)")
            print("roots:")
            for (store, root) in status.roots.sorted(by: { $0.key < $1.key }) { print("  \(store)  \(root)") }
            if !status.scannedRoots.isEmpty { print("scanned periodically (inotify watch limit): \(status.scannedRoots.joined(separator: ", "))") }
            if !status.failures.isEmpty {
                print("failures:")
                for (marker, reason) in status.failures.sorted(by: { $0.key < $1.key }) { print("  \(marker): \(reason)") }
            }
        }
    }

    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Index every registered records folder once, without the daemon.")
        @Option(help: "The index (default: $XDG_DATA_HOME/limelight/index).") var index: String?
        @Option(help: "Stemming language.") var language = "english"
        @Option(help: "Markers per commit.") var batchSize = 5000

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
            let tty = isatty(STDERR_FILENO) == 1
            var done = 0, failed = 0
            let start = Date()
            var removedURIs = plan.removedURIs
            for chunk in stride(from: 0, to: max(total, 1), by: batchSize) {
                let slice = Array(plan.changed[chunk..<min(total, chunk + batchSize)])
                let report = indexer.apply(changed: slice, removedURIs: removedURIs)
                removedURIs = []
                done += slice.count
                failed += report.failed
                if tty {
                    let width = 30, filled = total == 0 ? width : width * done / total
                    FileHandle.standardError.write(Data("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(done)/\(total)".utf8))
                }
            }
            if tty { FileHandle.standardError.write(Data("\n".utf8)) }
            let seconds = Date().timeIntervalSince(start)
            print("indexed \(total - failed), removed \(plan.removedURIs.count), unchanged \(plan.unchanged), failed \(failed) in \(String(format: "%.2f", seconds)) s")
            for (marker, reason) in indexer.failures.sorted(by: { $0.key < $1.key }).prefix(20) { print("  failed \(marker): \(reason)") }
        }
    }
}
