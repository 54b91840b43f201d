import Foundation

/// A running `xapian-peer watch <db>`: told terms on its stdin, it answers each with the
/// CLOCK_MONOTONIC time at which the term first appeared in the database.
final class TermWatcher {
    private let child: Child
    private var buffer = Data()

    init(program: String, database: URL) throws {
        child = try Child(program, ["watch", database.path], pipes: true)
    }

    func watch(_ term: String) {
        let line = Array((term + "\n").utf8)
        _ = line.withUnsafeBytes { write(child.input, $0.baseAddress, $0.count) }
    }

    /// The next sighting, or nil when none came within `timeout` seconds.
    func next(timeout: Double) throws -> (term: String, nanoseconds: Int64)? {
        let deadline = monotonicNanoseconds() + Int64(timeout * 1e9)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let space = line.lastIndex(of: " "), let stamp = Int64(line[line.index(after: space)...]) else {
                    throw BenchError("xapian-peer watch said: \(line)")
                }
                return (String(line[..<space]), stamp)
            }
            let left = deadline - monotonicNanoseconds()
            if left <= 0 { return nil }
            var descriptor = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(min(left / 1_000_000 + 1, 1000))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(child.output, &chunk, chunk.count)
            if count <= 0 { throw BenchError("xapian-peer watch ended") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func stop() { child.stop(grace: 2) }
}
