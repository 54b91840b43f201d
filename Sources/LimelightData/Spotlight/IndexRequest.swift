/// A request to change limelightd's index rather than search it, sent over the index's search
/// socket (`SearchSocket`) as `limelight search` sends its queries. The index belongs to the
/// daemon, which holds its write lock: an application asks it instead of writing the index.
///
/// A request is `limelight-index 1`, then key and value pairs, every part ended by a NUL byte (the
/// values are an index path and a store UUID, neither of which holds one); the client then shuts
/// its side down. The reply is `limelight-index-reply 1 <status>` and a newline, then a message:
/// status 0 is done (the message says what), 1 failed (it says why), 2 declined (another index,
/// or a request this daemon does not know).
package enum IndexRequest: Equatable, Sendable {
    /// Every document of the store with this UUID leaves the index (see
    /// `CoreDataCoreSpotlightDelegate.deleteSpotlightIndex`).
    case removeStore(String)

    static let requestMagic = "limelight-index 1"
    static let replyMagic = "limelight-index-reply 1"

    package enum Reply: Equatable, Sendable {
        case done(String)
        case failed(String)
        case declined(String)
    }

    package func encoded(indexPath: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in [Self.requestMagic, "index", indexPath] + fields {
            bytes += part.utf8
            bytes.append(0)
        }
        return bytes
    }

    private var fields: [String] {
        switch self {
        case .removeStore(let store): return ["remove-store", store]
        }
    }

    /// The request and the index it is for; `nil` for bytes that are not one.
    package static func decode(_ bytes: [UInt8]) -> (request: IndexRequest, indexPath: String)? {
        var parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.last == "", parts.first == requestMagic else { return nil }
        parts.removeLast()
        guard parts.count % 2 == 1 else { return nil }
        var values: [String: String] = [:]
        for index in stride(from: 1, to: parts.count, by: 2) { values[parts[index]] = parts[index + 1] }
        guard let indexPath = values["index"], let store = values["remove-store"] else { return nil }
        return (.removeStore(store), indexPath)
    }

    package static func encode(_ reply: Reply) -> [UInt8] {
        let (status, message): (Int, String)
        switch reply {
        case .done(let text): (status, message) = (0, text)
        case .failed(let text): (status, message) = (1, text)
        case .declined(let text): (status, message) = (2, text)
        }
        return Array("\(replyMagic) \(status)\n\(message)".utf8)
    }

    package static func decodeReply(_ bytes: [UInt8]) -> Reply? {
        // A daemon from before these requests declines them as a search it does not understand.
        if bytes.starts(with: Array("limelight-reply 1 2 ".utf8)) {
            return .declined("this limelightd takes no requests to change its index (it is older than this program)")
        }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self)
        let message = String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        switch header {
        case "\(replyMagic) 0": return .done(message)
        case "\(replyMagic) 1": return .failed(message)
        case "\(replyMagic) 2": return .declined(message)
        default: return nil
        }
    }

    /// Sends the request to the limelightd serving the index at `indexPath` and waits up to
    /// `timeout` seconds for its reply; `nil` when no daemon answers (none runs for that index,
    /// or it did not answer in time).
    package func send(indexPath: String, timeout: Int) -> Reply? {
        guard let bytes = SearchSocket.exchange(indexPath: indexPath, timeout: timeout, limit: 1 << 20, encoded(indexPath:)) else { return nil }
        return Self.decodeReply(bytes)
    }
}
