import LimelightData

/// `limelight search` asking limelightd, which has the index, the models and the stores open
/// already, the way `mdfind` asks Spotlight's server: the command then only starts, sends the
/// request and prints the reply.
public enum SearchClient {
    /// limelightd's reply; `nil` when no limelightd answers for the index at `indexPath` (none
    /// runs, or it did not answer within `timeout` seconds), and the caller searches itself.
    public static func reply(to request: SearchRequest, indexPath: String, timeout: Int = 10) -> SearchReply? {
        guard let bytes = SearchSocket.exchange(indexPath: indexPath, timeout: timeout, limit: 1 << 30, {
            SearchWireFormat.encode(request, indexPath: $0)
        }) else { return nil }
        return SearchWireFormat.decodeReply(bytes)
    }
}
