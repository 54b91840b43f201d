import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches folder trees with inotify and reports batches of events from a dedicated thread.
///
/// New subfolders are watched as they appear, and files created in them before their watch was
/// added are reported by scanning them once. The thread blocks in `poll()` on the inotify fd and a
/// wake-up pipe, so an idle watcher uses no CPU.
public final class InotifyWatcher: @unchecked Sendable {
    public typealias Handler = @Sendable ([WatchEvent]) -> Void

    private let fd: Int32
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1
    private let handler: Handler
    /// At most this many watches, as if the kernel's limit were that low (`nil`: the kernel's).
    private let maxWatches: Int?
    private let lock = NSLock()
    private var pathsByWatch: [Int32: String] = [:]
    private var watchesByPath: [String: Int32] = [:]
    private var thread: Thread?
    private var stopping = false
    private static let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE)
        | UInt32(IN_CREATE) | UInt32(IN_DELETE_SELF) | UInt32(IN_DONT_FOLLOW)

    /// `maxWatches` caps the watches this watcher adds, beyond which it behaves as when the
    /// kernel's `fs.inotify.max_user_watches` is reached; a testing aid for the scan fallback.
    public init(maxWatches: Int? = nil, handler: @escaping Handler) throws {
        self.maxWatches = maxWatches
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError("inotify_init1 failed: \(String(cString: strerror(errno)))") }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            close(fd)
            throw WatchError("pipe2 failed: \(String(cString: strerror(errno)))")
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for end in fds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.handler = handler
    }

    deinit {
        stop()
        close(fd)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the watching thread.
    public func start() {
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "limelight.inotify"
        self.thread = thread
        thread.start()
    }

    /// Stops the thread; events not yet delivered are dropped.
    public func stop() {
        lock.withLock { stopping = true }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Watches `root` and every folder below it. Returns events for files already there
    /// (as `changed`), which callers may use for an initial scan.
    @discardableResult
    public func addTree(_ root: String) -> [WatchEvent] {
        var events: [WatchEvent] = []
        addTree(root, events: &events, reportFiles: false)
        return events
    }

    public func removeTree(_ root: String) {
        lock.withLock {
            for (path, watch) in watchesByPath where path == root || path.hasPrefix(root + "/") {
                inotify_rm_watch(fd, watch)
                watchesByPath[path] = nil
                pathsByWatch[watch] = nil
            }
        }
    }

    public var watchedFolders: [String] { lock.withLock { Array(watchesByPath.keys) } }

    private func addTree(_ root: String, events: inout [WatchEvent], reportFiles: Bool) {
        if let maxWatches, lock.withLock({ watchesByPath[root] == nil && watchesByPath.count >= maxWatches }) {
            events.append(WatchEvent(kind: .watchLimitReached, path: root))
            return
        }
        let watch = inotify_add_watch(fd, root, Self.mask)
        if watch < 0 {
            if errno == ENOSPC { events.append(WatchEvent(kind: .watchLimitReached, path: root)) }
            return
        }
        lock.withLock {
            pathsByWatch[watch] = root
            watchesByPath[root] = watch
        }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for name in entries {
            let path = root + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                addTree(path, events: &events, reportFiles: reportFiles)
                if reportFiles { events.append(WatchEvent(kind: .folderAdded, path: path)) }
            } else if reportFiles, (info.st_mode & S_IFMT) == S_IFREG {
                events.append(WatchEvent(kind: .changed, path: path))
            }
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if lock.withLock({ stopping }) { return }
            if ready < 0 { if errno == EINTR { continue }; return }
            var events: [WatchEvent] = []
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                parse(buffer, count: count, into: &events)
            }
            if !events.isEmpty { handler(events) }
        }
    }

    private func parse(_ buffer: [UInt8], count: Int, into events: inout [WatchEvent]) {
        var offset = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= count {
            let (watch, mask, nameLength) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.wd, event.mask, Int(event.len))
            }
            let nameStart = offset + headerSize
            let nameBytes = buffer[nameStart..<min(count, nameStart + nameLength)].prefix { $0 != 0 }
            let name = String(decoding: nameBytes, as: UTF8.self)
            offset = nameStart + nameLength
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                events.append(WatchEvent(kind: .overflow, path: ""))
                continue
            }
            guard let folder = lock.withLock({ pathsByWatch[watch] }) else { continue }
            let path = name.isEmpty ? folder : folder + "/" + name
            if mask & UInt32(IN_IGNORED) != 0 || mask & UInt32(IN_DELETE_SELF) != 0 {
                lock.withLock {
                    if let removed = pathsByWatch.removeValue(forKey: watch) { watchesByPath[removed] = nil }
                }
                if mask & UInt32(IN_DELETE_SELF) != 0 { events.append(WatchEvent(kind: .folderRemoved, path: folder)) }
                continue
            }
            let isDirectory = mask & UInt32(IN_ISDIR) != 0
            if isDirectory {
                if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
                    events.append(WatchEvent(kind: .folderAdded, path: path))
                    addTree(path, events: &events, reportFiles: true)
                } else if mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) != 0 {
                    events.append(WatchEvent(kind: .folderRemoved, path: path))
                    removeTree(path)
                }
                continue
            }
            if mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
                events.append(WatchEvent(kind: .changed, path: path))
            } else if mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) != 0 {
                events.append(WatchEvent(kind: .removed, path: path))
            }
        }
    }
}

public struct WatchError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
