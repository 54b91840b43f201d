import Foundation

/// Imports markers a chunk at a time on a thread of its own while the caller writes the finished
/// chunks to the index, so reading stores and writing Xapian overlap on a machine with two cores.
///
/// The import closure only ever runs on the pipeline's thread, one chunk after another, and the
/// caller takes every chunk with `next()` until it returns nil; so whatever the closure touches
/// (store connections, importer processes) is used by one thread at a time and is the caller's
/// again once `next()` has returned nil.
final class ImportPipeline<Item>: @unchecked Sendable {
    private let markers: [String]
    private let chunkSize: Int
    private let importChunk: ([String]) -> [Item]
    /// Chunks imported ahead of the writer: two at most, enough to keep both threads busy.
    private let ready = HandOffQueue<[Item]>(capacity: 2)
    /// For a batch imported on the caller's thread: whether `next()` has given it.
    private var given = false

    /// Starts importing `markers` in chunks of `chunkSize`. A batch of one chunk or less is
    /// imported by `next()` on the caller's thread: a thread would only add its start-up.
    init(markers: [String], chunkSize: Int, importChunk: @escaping ([String]) -> [Item]) {
        self.markers = markers
        self.chunkSize = max(1, chunkSize)
        self.importChunk = importChunk
        guard markers.count > self.chunkSize else { return }
        let thread = Thread { [self] in run() }
        thread.name = "limelight.import"
        thread.start()
    }

    /// The next imported chunk, in the order of the markers; nil when all have been taken.
    func next() -> [Item]? {
        if markers.count <= chunkSize {
            guard !given else { return nil }
            given = true
            return markers.isEmpty ? nil : importChunk(markers)
        }
        return ready.take()
    }

    private func run() {
        for start in stride(from: 0, to: markers.count, by: chunkSize) {
            ready.put(importChunk(Array(markers[start..<min(markers.count, start + chunkSize)])))
        }
        ready.close()
    }
}
