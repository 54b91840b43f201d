#if canImport(Glibc)
import Glibc
#endif

/// Where limelightd answers the searches of an index (and a delegate's requests to change it),
/// and the socket calls both ends share.
///
/// The socket is `$XDG_RUNTIME_DIR/limelight/search-<hash>.socket` (the state folder's
/// `limelight/` when there is no runtime folder), the hash taken of the index's real path: each
/// index has its own, and a client finds it from the index path however that was spelled.
package enum SearchSocket {
    /// The socket for the index whose real path (`realPath(_:)`) is `real`; `nil` when the path
    /// would not fit in a socket address.
    package static func path(forRealIndexPath real: String) -> String? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in real.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let digits = String(hash, radix: 16)
        let path = folder + "/search-" + String(repeating: "0", count: 16 - digits.count) + digits + ".socket"
        return path.utf8.count < addressCapacity ? path : nil
    }

    /// The folder of every index's socket.
    package static var folder: String {
        if let runtime = XDGDirectories.variable("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return runtime + "/limelight" }
        return XDGDirectories.stateHomePath + "/limelight"
    }

    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static let addressCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Calls `body` with the socket address of `path` (which `path(forRealIndexPath:)` made short enough).
    package static func withAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (offset, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[offset] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Makes reads and writes on `socket` give up after `seconds`, so that neither end waits
    /// forever on the other.
    /// One request to the limelightd serving the index at `indexPath`: connects, sends what
    /// `encode` makes of the index's real path, shuts the sending side, and reads the reply (at
    /// most `limit` bytes, waiting up to `timeout` seconds). `nil` when no daemon answers.
    package static func exchange(indexPath: String, timeout: Int, limit: Int, _ encode: (String) -> [UInt8]) -> [UInt8]? {
        guard let real = realPath(indexPath), let path = path(forRealIndexPath: real) else { return nil }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        guard withAddress(path, { connect(socket, $0, $1) }) == 0 else { return nil }
        setTimeout(socket, seconds: timeout)
        guard write(encode(real), to: socket), shutdown(socket, Int32(SHUT_WR)) == 0 else { return nil }
        return readToEnd(socket, limit: limit)
    }

    package static func setTimeout(_ socket: Int32, seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Everything the other end sends until it shuts its side down; `nil` on an error, a
    /// timeout, or more than `limit` bytes.
    package static func readToEnd(_ socket: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        // Not a zeroed array: clearing 64 KiB cost more than the rest of reading a request.
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = read(socket, chunk, chunkSize)
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += UnsafeRawBufferPointer(start: chunk, count: count)
            if bytes.count > limit { return nil }
        }
    }

    /// Whether all of `bytes` went out.
    package static func write(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(socket, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }
}
