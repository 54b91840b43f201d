import Foundation

/// A one-line progress bar on standard error, redrawn in place; only made when standard error is
/// a terminal, so logs and pipes get the summary line alone.
final class ProgressBar {
    private let total: Int
    private let width = 30
    private var drawn = -1

    init?(total: Int) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.total = total
    }

    func update(done: Int) {
        let filled = total == 0 ? width : width * min(done, total) / total
        // Redraw once per percent, not once per record: a terminal is slow to write to.
        let percent = total == 0 ? 100 : 100 * min(done, total) / total
        guard percent != drawn || done == total else { return }
        drawn = percent
        let line = "\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(done)/\(total)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        update(done: total)
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
