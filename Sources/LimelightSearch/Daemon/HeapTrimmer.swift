import Foundation

/// Gives the allocator's free heap memory back to the system.
///
/// A reconcile builds tables of every marker and every indexed document, and a batch reads and
/// writes whole records; once they are freed, the allocator keeps the pages for reuse, so an idle
/// daemon stayed as large as its biggest piece of work. The programs allocate with jemalloc,
/// which is asked to purge every arena; under glibc's malloc (a program built elsewhere, or a
/// library user) `malloc_trim(0)` returns every free page of every arena. Both are looked up at
/// run time, so this module links neither; with neither present this does nothing.
enum HeapTrimmer {
    private typealias Control = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?,
                                                UnsafeMutableRawPointer?, Int) -> Int32
    private typealias Trim = @convention(c) (Int) -> Int32

    private enum Release {
        case jemalloc(Control)
        case glibc(Trim)
        case none
    }

    private static let release: Release = {
        // `mallctl` is found only when jemalloc is the process's allocator: linked or preloaded.
        if let control = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallctl") {
            return .jemalloc(unsafeBitCast(control, to: Control.self))
        }
        if let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            return .glibc(unsafeBitCast(trim, to: Trim.self))
        }
        return .none
    }()

    /// Returns free heap pages to the system; call when a piece of work is done, not in a loop.
    static func releaseFreeMemory() {
        switch release {
        case .jemalloc(let control):
            // 4096 is MALLCTL_ARENAS_ALL: every arena's unused dirty pages go back at once.
            _ = control("arena.4096.purge", nil, nil, nil, 0)
        case .glibc(let trim):
            _ = trim(0)
        case .none:
            break
        }
    }
}
