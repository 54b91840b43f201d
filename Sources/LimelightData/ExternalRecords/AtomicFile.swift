import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that readers never see half of one: to a temporary name in the same folder,
/// flushed, then renamed into place. The modification time always moves forward, even when two
/// writes land within the file system's timestamp granularity, so watchers see every rewrite.
enum AtomicFile {
    private static let processID = getpid()
    private static let counter = Atomic<UInt64>(0)

    /// With `durable`, the file is flushed before the rename. Markers skip that: their durability
    /// comes from the journal, which is cleared only after the marker writer has flushed the
    /// pass's files (or the whole file system) once they are in place.
    static func write(_ data: Data, to url: URL, permissions: Int = 0o600, durable: Bool = false) throws {
        let directory = url.deletingLastPathComponent().path
        let previous = modificationTime(url.path)
        // The process ID and a counter make the name unique among live writers without reading
        // /dev/urandom per file (as UUID() does); one left by a killed process with the same ID
        // is stepped over.
        var temporary: String, fd: Int32
        repeat {
            temporary = "\(directory)/.\(url.lastPathComponent).\(processID)-\(counter.add(1, ordering: .relaxed).newValue).tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        } while fd < 0 && errno == EEXIST
        guard fd >= 0 else { throw posixError("cannot create", temporary) }
        var written = 0
        let ok: Bool = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }   // nothing to write
            while written < buffer.count {
                let n = Glibc.write(fd, base + written, buffer.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return true
        }
        let flushed = !durable || fsync(fd) == 0
        close(fd)
        guard ok && flushed else {
            let error = posixError("cannot write", temporary)
            unlink(temporary)
            throw error
        }
        if let previous {
            let now = modificationTime(temporary)
            if let now, !(now > previous) {
                let next = previous + 0.001
                var times = [timespec(tv_sec: Int(next), tv_nsec: Int((next - floor(next)) * 1e9)),
                             timespec(tv_sec: Int(next), tv_nsec: Int((next - floor(next)) * 1e9))]
                utimensat(AT_FDCWD, temporary, &times, 0)
            }
        }
        guard rename(temporary, url.path) == 0 else {
            let error = posixError("cannot rename into", url.path)
            unlink(temporary)
            throw error
        }
    }

    static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    static func posixError(_ what: String, _ path: String) -> PersistenceError {
        .store(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
