import Foundation
import Logging

/// Writes built documents into a Xapian database of its own, on a thread of its own.
///
/// Writing is most of what indexing costs, and one Xapian database takes one writer at a time;
/// so a bulk run at least as large as the index fills two shards at once and merges them into it at
/// the end (`SearchIndex.merge`), which costs a few percent of writing them.
///
/// The shards of a run take their chunks from one queue, each the next one when it is ready, so
/// neither waits at the end for the other to catch up; and each commits on its own thread, since
/// a commit writes out the postings still held in memory, a large part of the run's last seconds.
final class ShardWriter: @unchecked Sendable {
    let path: String
    /// Opened here, then used by the shard's thread alone: starting the thread orders the
    /// opening before every use there, and nothing else touches it.
    private let index: SearchIndex
    private let chunks: HandOffQueue<[Indexer.ImportedMarker]>
    /// Signalled when the thread has written and committed everything.
    private let done = DispatchSemaphore(value: 0)
    /// What was written, and the markers that failed; read once `finish()` has returned.
    private(set) var report = Indexer.BatchReport()
    private(set) var failures: [String: String] = [:]
    /// Why the shard could not be committed; set by the thread, read after `done`.
    private var commitError: (any Error)?
    private let logger = Logger(label: "limelight.indexer")

    /// Creates the shard (which must not exist) and starts its thread, which writes what it
    /// takes from `chunks` until the queue is closed and empty.
    init(path: String, language: String, chunks: HandOffQueue<[Indexer.ImportedMarker]>) throws {
        self.path = path
        self.chunks = chunks
        index = try SearchIndex(path: path, language: language, lockTimeout: 0)
        try index.beginTransaction()
        let thread = Thread { [self] in run() }
        thread.name = "limelight.shard"
        thread.start()
    }

    /// Waits until the shard has written every chunk it took and is committed and closed; call
    /// once, after closing the queue.
    func finish() throws {
        done.wait()
        if let commitError { throw commitError }
    }

    private func run() {
        while let chunk = chunks.take() {
            for item in chunk { Indexer.write(item, to: index, report: &report, failures: &failures, logger: logger) }
        }
        do {
            try index.commitTransaction()
            try index.close()
        } catch {
            commitError = error
        }
        done.signal()
    }
}
