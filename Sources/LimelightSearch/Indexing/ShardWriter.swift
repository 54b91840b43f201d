import Foundation
import Logging

/// Writes built documents into a Xapian database of its own, on a thread of its own.
///
/// Writing is most of what indexing costs, and one Xapian database takes one writer at a time;
/// so a bulk run into an empty index fills two shards at once and merges them into the index at
/// the end (`SearchIndex.merge`), which costs a few percent of writing them.
final class ShardWriter: @unchecked Sendable {
    let path: String
    private let index: SearchIndex
    private let condition = NSCondition()
    private var queue: [[Indexer.ImportedMarker]] = []
    private var closed = false
    private var finished = false
    /// What was written, and the markers that failed; read once `finish()` has returned.
    private(set) var report = Indexer.BatchReport()
    private(set) var failures: [String: String] = [:]
    /// Chunks queued ahead of the writer at most, as in `ImportPipeline`.
    private let capacity = 2
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
        condition.lock()
        while queue.count >= capacity { condition.wait() }
        queue.append(chunk)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for every queued chunk to be written, then commits and closes the shard.
    func finish() throws {
        condition.lock()
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        try index.commitTransaction()
        try index.close()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            guard !queue.isEmpty else {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let chunk = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            for item in chunk { Indexer.write(item, to: index, report: &report, failures: &failures, logger: logger) }
        }
    }
}
