import Foundation
import LimelightData
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// limelightd's answers to `limelight search`: a Unix socket (see `SearchSocket`) served by one
/// thread of its own, which keeps the index reader, the models and the stores open between
/// searches.
///
/// Searches never wait for the daemon's batches: the thread reads the index while the daemon
/// writes it, and reopens it before each search to see the last commit. Waiting in `accept`
/// costs no wake-ups, so an idle daemon stays idle. Only the daemon's own user may ask.
public final class SearchServer: @unchecked Sendable {
    public let socketPath: String
    private let indexPath: URL
    private let realIndexPath: String
    private let listener: Int32
    private let logger: Logger
    private let state = NSLock()
    private var stopping = false
    /// Held while a search runs, and by `closeStaleStores()`.
    private let serving = NSLock()
    private var service: SearchService?
    /// Carries out requests to change the index (`IndexRequest`), which only the daemon's writer
    /// may; set before `start()`. Without one they are declined.
    package var indexRequests: (@Sendable (IndexRequest) -> IndexRequest.Reply)?

    /// Binds the index's socket, replacing one a daemon left behind (only the daemon holding
    /// the index's write lock gets this far, so no other serves it).
    public init(indexPath: URL, logger: Logger) throws {
        guard let real = SearchSocket.realPath(indexPath.path), let path = SearchSocket.path(forRealIndexPath: real) else {
            throw SearchIndexError(kind: .other, message: "no socket address for this index (is its path too long?)", path: indexPath.path)
        }
        try FileManager.default.createDirectory(atPath: SearchSocket.folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Self.error("cannot make a socket", path) }
        unlink(path)
        guard SearchSocket.withAddress(path, { bind(listener, $0, $1) }) == 0, chmod(path, 0o600) == 0, listen(listener, 64) == 0 else {
            let error = Self.error("cannot listen on", path)
            close(listener)
            throw error
        }
        self.indexPath = indexPath
        realIndexPath = real
        socketPath = path
        self.listener = listener
        self.logger = logger
    }

    public func start() {
        let thread = Thread { [self] in
            // Named by the thread itself, for `ps -L` and /proc (at most 15 bytes). Foundation's
            // `name` reaches the kernel only when Foundation has already recorded which thread
            // this is, which races with the thread's start (now and then no name arrived, and
            // named before the start, it arrived never), so the name is also written where the
            // kernel keeps it.
            Thread.current.name = Self.threadName
            Self.nameCurrentThreadForTheKernel()
            serve()
        }
        thread.start()
    }

    /// What the serving thread is called in /proc and by `ps -L`.
    public static let threadName = "limelight-query"

    private static func nameCurrentThreadForTheKernel() {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { close(file) }
        _ = threadName.withCString { write(file, $0, strlen($0)) }
    }

    /// Stops answering: the socket goes, and the thread ends after the search it is on.
    public func stop() {
        state.withLock { stopping = true }
        unlink(socketPath)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private var isStopping: Bool { state.withLock { stopping } }

    /// Closes the stores searches keep open whose files were deleted or replaced since, so that
    /// the daemon does not hold a deleted store's disk space until the next search of it. The
    /// daemon calls this when it goes idle.
    public func closeStaleStores() {
        serving.withLock { service?.closeStaleStores() }
    }

    private func serve() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if isStopping {
                if connection >= 0 { close(connection) }
                return
            }
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors or memory: waiting a moment beats spinning on the error.
                logger.error("limelightd: accepting a search: \(String(cString: strerror(errno)))")
                usleep(100_000)
                continue
            }
            // The daemon starts importer programs, which must not inherit a client's connection.
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            answer(connection)
            close(connection)
        }
    }

    private func answer(_ connection: Int32) {
        SearchSocket.setTimeout(connection, seconds: 5)
        var peer = PeerCredentials()
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0, peer.uid == getuid() else { return }
        guard let bytes = SearchSocket.readToEnd(connection, limit: 1 << 20) else { return }
        let answer: [UInt8]
        if let (request, index) = SearchWireFormat.decodeRequest(bytes) {
            answer = index == realIndexPath ? SearchWireFormat.encode(serving.withLock { run(request) })
                : SearchWireFormat.encodeDeclined("a search of \(index), not of \(realIndexPath)")
        } else if let (request, index) = IndexRequest.decode(bytes) {
            // Not under `serving`: the daemon's queue, which carries the request out, takes that
            // lock itself when it goes idle.
            let reply: IndexRequest.Reply
            if index != realIndexPath {
                reply = .declined("a request for \(index), not for \(realIndexPath)")
            } else if let indexRequests {
                reply = indexRequests(request)
            } else {
                reply = .declined("this limelightd does not change its index on request")
            }
            answer = IndexRequest.encode(reply)
        } else {
            logger.debug("limelightd: declined a search request it does not understand (\(bytes.count) bytes)")
            answer = SearchWireFormat.encodeDeclined("not a search request this limelightd understands")
        }
        _ = SearchSocket.write(answer, to: connection)
    }

    private func run(_ request: SearchRequest) -> SearchReply {
        let service: SearchService
        do {
            service = try self.service ?? SearchService(indexPath: indexPath, keepsStoresOpen: true)
            try service.reader.reopen()
        } catch {
            self.service = nil
            return SearchReply(failure: "\(error)")
        }
        self.service = service
        defer { service.releaseObjects() }
        do {
            return try service.reply(to: request)
        } catch let error as SearchIndexError where error.kind == .opening || error.kind == .modified {
            // The index went from under the reader: the next search opens it anew. A mistyped
            // query or sort property keeps what is open.
            self.service = nil
            return SearchReply(failure: "\(error)")
        } catch {
            return SearchReply(failure: "\(error)")
        }
    }

    private static func error(_ what: String, _ path: String) -> SearchIndexError {
        SearchIndexError(kind: .other, message: "\(what) \(path): \(String(cString: strerror(errno)))", path: path)
    }
}

/// The kernel's `struct ucred`, which Glibc's module leaves out (it is behind `_GNU_SOURCE`).
private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}
