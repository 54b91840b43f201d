import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches an SQLite store's database and write-ahead log with inotify and calls back, from a
/// thread of its own, after writes to either settle: how a coordinator learns that another
/// coordinator or process committed. The thread blocks in `poll()`, so an idle store costs nothing.
final class StoreFileWatcher: @unchecked Sendable {
    /// How long after a write the callback runs, so a burst of writes (a commit's frames, a
    /// checkpoint) makes one call.
    static let settleTime: DispatchTimeInterval = .milliseconds(20)
    /// When the callback found nothing, how much later it looks again. A commit writes its last
    /// frame to the `-wal` (the event) and then publishes it in the `-shm`, through a mapping that
    /// raises no event; a writer held up between the two (a busy machine) would otherwise have its
    /// commit read as nothing and never heard of. Only writes start these looks, so an idle
    /// store still costs nothing.
    static let lookAgain: [DispatchTimeInterval] = [.milliseconds(50), .milliseconds(250), .seconds(1)]

    private let fd: Int32
    private let wake: (read: Int32, write: Int32)
    private let names: Set<String>
    private let onChange: @Sendable () -> Bool
    private let lock = NSLock()
    private var stopping = false
    private var pending = false
    /// The thread has ended and closed its descriptors: their numbers may already belong to
    /// other files, so nothing may be written to them.
    private var closed = false

    /// Watches the folder of `storeURL` for writes to the store's files. `onChange` says whether
    /// it found what the writes were; when it did not, it is asked again (`lookAgain`). Throws
    /// when inotify is not available.
    init(storeURL: URL, onChange: @escaping @Sendable () -> Bool) throws {
        let name = storeURL.lastPathComponent
        names = [name, name + "-wal"]
        self.onChange = onChange
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw PersistenceError.store(path: storeURL.path, reason: "cannot watch for changes: inotify_init1 failed") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw PersistenceError.store(path: storeURL.path, reason: "cannot watch for changes: pipe failed")
        }
        wake = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        let folder = storeURL.deletingLastPathComponent().path
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            close(wake.read)
            close(wake.write)
            throw PersistenceError.store(path: storeURL.path, reason: "cannot watch \(folder) for changes: \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in run() }
        thread.name = "limelight.store-watch"
        thread.start()
    }

    /// Stops the thread; a callback already scheduled may still run once.
    func stop() {
        // Under the lock, so the thread cannot close the pipe between the check and the write.
        lock.withLock {
            stopping = true
            guard !closed else { return }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func run() {
        defer {
            lock.withLock {
                closed = true
                close(fd)
                close(wake.read)
                close(wake.write)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !isStopping {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { return }
            if fds[1].revents != 0 { return }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { continue }
            if concernsStore(buffer, count: count) { schedule() }
        }
    }

    /// Whether the events read name one of the store's files.
    private func concernsStore(_ buffer: [UInt8], count: Int) -> Bool {
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
            let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
            if names.contains(String(decoding: nameBytes, as: UTF8.self)) { return true }
            offset += header + length
        }
        return false
    }

    private func schedule() {
        let first = lock.withLock {
            if pending || stopping { return false }
            pending = true
            return true
        }
        guard first else { return }
        look(after: Self.settleTime, then: Self.lookAgain[...])
    }

    /// Runs the callback after `delay`, and again after each of `later` while it finds nothing
    /// and no newer write has scheduled a look of its own.
    private func look(after delay: DispatchTimeInterval, then later: ArraySlice<DispatchTimeInterval>) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            let go = lock.withLock {
                pending = false
                return !stopping
            }
            guard go, !onChange(), let next = later.first else { return }
            let again = lock.withLock {
                if pending || stopping { return false }
                pending = true
                return true
            }
            if again { look(after: next, then: later.dropFirst()) }
        }
    }
}
