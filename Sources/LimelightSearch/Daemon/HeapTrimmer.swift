import Foundation

/// Gives the C library's free heap memory back to the system.
///
/// A reconcile builds tables of every marker and every indexed document, and a batch reads and
/// writes whole records; once they are freed, glibc keeps the pages (the heap cannot shrink past
/// a block still in use, and each thread's arena keeps its own), so an idle daemon stayed as large
/// as its biggest piece of work. `malloc_trim(0)` returns every free page of every arena. It is
/// glibc's and not in Swift's C library module, so it is looked up at run time; elsewhere this
/// does nothing.
enum HeapTrimmer {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }

    /// Returns free heap pages to the system; call when a piece of work is done, not in a loop.
    static func releaseFreeMemory() {
        _ = trim?(0)
    }
}
