import LimelightData
#if canImport(Glibc)
import Glibc
#endif

/// `limelight search` asking limelightd, which has the index, the models and the stores open
/// already, the way `mdfind` asks Spotlight's server: the command then only starts, sends the
/// request and prints the reply.
public enum SearchClient {
    /// limelightd's reply; `nil` when no limelightd answers for the index at `indexPath` (none
    /// runs, or it did not answer within `timeout` seconds), and the caller searches itself.
    public static func reply(to request: SearchRequest, indexPath: String, timeout: Int = 10) -> SearchReply? {
        guard let real = SearchSocket.realPath(indexPath), let path = SearchSocket.path(forRealIndexPath: real) else { return nil }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        guard SearchSocket.withAddress(path, { connect(socket, $0, $1) }) == 0 else { return nil }
        SearchSocket.setTimeout(socket, seconds: timeout)
        guard SearchSocket.write(SearchWireFormat.encode(request, indexPath: real), to: socket), shutdown(socket, Int32(SHUT_WR)) == 0,
              let bytes = SearchSocket.readToEnd(socket, limit: 1 << 30) else { return nil }
        return SearchWireFormat.decodeReply(bytes)
    }
}
