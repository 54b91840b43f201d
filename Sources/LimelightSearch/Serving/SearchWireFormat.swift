/// How requests and replies travel over limelightd's search socket.
///
/// A request is `limelight-search 1`, then key and value pairs, every part ended by a NUL byte:
/// what it carries came from a command line, where NUL cannot occur. The client then shuts its
/// side down. A reply is a header line, `limelight-reply 1 <failed> <output bytes> <error
/// bytes> <failure bytes>`, followed by those three texts, which may hold any byte.
enum SearchWireFormat {
    static let requestMagic = "limelight-search 1"
    static let replyMagic = "limelight-reply 1"

    static func encode(_ request: SearchRequest, indexPath: String) -> [UInt8] {
        var fields: [(String, String)] = [("index", indexPath), ("query", request.options.query),
                                          ("limit", String(request.options.limit)), ("offset", String(request.options.offset))]
        if let language = request.options.language { fields.append(("language", language)) }
        if let sort = request.options.sort { fields.append(("sort", sort)) }
        if request.count { fields.append(("count", "1")) }
        if request.json { fields.append(("json", "1")) }
        var bytes = Array(requestMagic.utf8)
        bytes.append(0)
        for (key, value) in fields {
            bytes += key.utf8
            bytes.append(0)
            bytes += value.utf8
            bytes.append(0)
        }
        return bytes
    }

    /// The request and the index it is for; `nil` for anything else (which is answered with a
    /// failure rather than guessed at).
    static func decodeRequest(_ bytes: [UInt8]) -> (request: SearchRequest, indexPath: String)? {
        var parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.last == "" else { return nil }
        parts.removeLast()
        guard parts.first == requestMagic, parts.count % 2 == 1 else { return nil }
        var fields: [String: String] = [:]
        for index in stride(from: 1, to: parts.count, by: 2) { fields[parts[index]] = parts[index + 1] }
        guard let indexPath = fields["index"], let query = fields["query"],
              let limit = fields["limit"].flatMap({ Int($0) }), let offset = fields["offset"].flatMap({ Int($0) }) else { return nil }
        var options = SearchService.Options(query: query)
        options.limit = limit
        options.offset = offset
        options.language = fields["language"]
        options.sort = fields["sort"]
        return (SearchRequest(options: options, count: fields["count"] == "1", json: fields["json"] == "1"), indexPath)
    }

    static func encode(_ reply: SearchReply) -> [UInt8] {
        let output = Array(reply.output.utf8), errorOutput = Array(reply.errorOutput.utf8), failure = Array((reply.failure ?? "").utf8)
        let header = "\(replyMagic) \(reply.failure == nil ? 0 : 1) \(output.count) \(errorOutput.count) \(failure.count)\n"
        return Array(header.utf8) + output + errorOutput + failure
    }

    /// The reply; `nil` when the bytes are not a whole one.
    static func decodeReply(_ bytes: [UInt8]) -> SearchReply? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 6, header[0] + " " + header[1] == replyMagic,
              let failed = Int(header[2]), let outputCount = Int(header[3]), let errorCount = Int(header[4]), let failureCount = Int(header[5]),
              outputCount >= 0, errorCount >= 0, failureCount >= 0,
              bytes.count - newline - 1 == outputCount + errorCount + failureCount else { return nil }
        let outputStart = newline + 1, errorStart = outputStart + outputCount, failureStart = errorStart + errorCount
        return SearchReply(output: String(decoding: bytes[outputStart..<errorStart], as: UTF8.self),
                           errorOutput: String(decoding: bytes[errorStart..<failureStart], as: UTF8.self),
                           failure: failed == 0 ? nil : String(decoding: bytes[failureStart...], as: UTF8.self))
    }
}
