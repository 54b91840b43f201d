import Foundation
import LimelightData
#if canImport(Glibc)
import Glibc
#endif

/// What the daemon reports about itself in `$XDG_STATE_HOME/limelight/status.json`, rewritten
/// after every batch; `limelight status` reads it.
public struct DaemonStatus: Codable, Sendable {
    public var pid: Int32
    public var startedAt: Date
    public var indexPath: String
    public var roots: [String: String]
    public var documents: Int
    public var lastCommit: Date?
    public var queued: Int
    public var batches: Int
    public var indexedTotal: Int
    public var removedTotal: Int
    /// How often the kernel's event queue overflowed (each followed by a reconcile).
    public var overflows: Int
    /// Roots that could not be fully watched and are scanned periodically instead.
    public var scannedRoots: [String]
    /// Recent failures: marker → reason.
    public var failures: [String: String]
    /// The socket on which it answers `limelight search`; `nil` when it does not.
    public var searchSocket: String?
    // Optional, so that a status written by an earlier version still reads.
    /// Objects kept out of the index whose markers it remembers (not among `documents`).
    public var keptOut: Int?
    /// Objects kept out since the daemon started.
    public var keptOutTotal: Int?
    /// What the last reconcile (at start, after an overflow, or of a scanned root) found and did.
    public var lastReconcile: Reconcile?

    /// A reconcile of markers against the index: what it found to do, and what it did.
    public struct Reconcile: Codable, Sendable, Equatable {
        public var at: Date
        /// Markers newer than their documents, or without one.
        public var toIndex: Int
        /// Documents whose markers are gone.
        public var toRemove: Int
        /// Markers whose documents were up to date.
        public var unchanged: Int
        /// Of `toIndex`: documents written, and objects found kept out of the index.
        public var indexed = 0
        public var keptOut = 0
    }

    public static var defaultURL: URL {
        ExternalRecordsRegistryPaths.stateDirectory.appendingPathComponent("status.json")
    }

    /// Writes the status to a temporary file renamed into place, so a reader never sees half of
    /// one, without flushing it to disk: it describes a running daemon, which rewrites it after
    /// every batch, and a flush each time held up the batch after it.
    public func write(to url: URL = DaemonStatus.defaultURL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(0o644))
        guard fd >= 0 else { throw Self.error("cannot create", temporary) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let count = Glibc.write(fd, base + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return true
        }
        let writeError = written ? nil : Self.error("cannot write", temporary)
        close(fd)
        if let writeError {
            unlink(temporary)
            throw writeError
        }
        guard rename(temporary, url.path) == 0 else {
            let error = Self.error("cannot rename into", url.path)
            unlink(temporary)
            throw error
        }
    }

    /// An error naming what failed, where, and the system's reason (`errno` as it is now).
    private static func error(_ what: String, _ path: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(what) \(path): \(String(cString: strerror(errno)))"])
    }

    public static func read(from url: URL = DaemonStatus.defaultURL) -> DaemonStatus? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(DaemonStatus.self, from: data)
    }

    /// Whether the process that wrote this status is still alive (and is a limelightd, not a
    /// process that got the pid of a killed daemon).
    public var isRunning: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
        return comm.trimmingCharacters(in: .whitespacesAndNewlines) == "limelightd"
    }
}

/// XDG folders the search side uses.
public enum ExternalRecordsRegistryPaths {
    public static var stateDirectory: URL { URL(fileURLWithPath: stateDirectoryPath, isDirectory: true) }
    public static var defaultIndexURL: URL { URL(fileURLWithPath: defaultIndexPath, isDirectory: true) }

    // As paths too, made without `URL`: `limelight search` asking limelightd needs no more.
    /// `$XDG_STATE_HOME/limelight`.
    public static var stateDirectoryPath: String { XDGDirectories.stateHomePath + "/limelight" }
    /// `$XDG_DATA_HOME/limelight/index`.
    public static var defaultIndexPath: String { XDGDirectories.dataHomePath + "/limelight/index" }
}
