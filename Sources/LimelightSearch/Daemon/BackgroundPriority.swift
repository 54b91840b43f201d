#if canImport(Glibc)
import Glibc
#endif

/// Indexing is background work and answering a search is not, so the daemon runs them at
/// different priorities, as Spotlight and Tracker do: the thread answering searches keeps the
/// priority the daemon was started with, and every other thread runs at nice 10.
///
/// Linux keeps the nice value per thread, and a new thread (or an importer program started from
/// it) takes its creator's, so lowering the thread that goes on to start the daemon's work, and
/// each thread that picks up a batch, covers the daemon's background work. The block I/O
/// schedulers that weigh priorities derive a thread's I/O priority from its nice value when none
/// was set, so its reads and writes give way too.
enum BackgroundPriority {
    static let niceness: Int32 = 10

    /// Lowers the calling thread to `niceness`, unless it already runs at that or lower.
    static func lowerCurrentThread() {
        // `who` 0 with PRIO_PROCESS names the calling thread on Linux.
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let current = getpriority(which, 0)
        guard errno == 0, current < niceness else { return }
        _ = setpriority(which, 0, niceness)
    }
}
