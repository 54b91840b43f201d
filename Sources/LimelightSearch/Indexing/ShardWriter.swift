import Foundation
import Logging

/// Writes built documents into a Xapian database of its own, on a thread of its own.
///
/// Writing is most of what indexing costs, and one Xapian database takes one writer at a time;
/// so a bulk run at least as large as the index fills two shards at once and merges them into it at
/// the end (`SearchIndex.merge`), which costs a few percent of writing them.
final class ShardWriter: @unchecked Sendable {
    let path: String
    private let index: SearchIndex
    /// Chunks queued ahead of the writer: two at most, as in `ImportPipeline`.
    private let queue = HandOffQueue<[Indexer.ImportedMarker]>(capacity: 2)
    /// Signalled when the thread has written everything queued.
    private let done = DispatchSemaphore(value: 0)
    /// What was written, and the markers that failed; read once `finish()` has returned.
    private(set) var report = Indexer.BatchReport()
    private(set) var failures: [String: String] = [:]
    private let logger = Logger(label: "limelight.indexer")

    /// Creates the shard (which must not exist) and starts its thread.
    init(path: String, language: String) throws {
        self.path = path
        index = try SearchIndex(path: path, language: language, lockTimeout: 0)
        try index.beginTransaction()
        let thread = Thread { [self] in run() }
        thread.name = "limelight.shard"
        thread.start()
    }

    /// Queues a chunk, waiting while the writer is behind.
    func write(_ chunk: [Indexer.ImportedMarker]) {
        queue.put(chunk)
    }

    /// Waits for every queued chunk to be written, then commits and closes the shard. Called
    /// once.
    func finish() throws {
        queue.close()
        done.wait()
        try index.commitTransaction()
        try index.close()
    }

    private func run() {
        while let chunk = queue.take() {
            for item in chunk { Indexer.write(item, to: index, report: &report, failures: &failures, logger: logger) }
        }
        done.signal()
    }
}
