/// How requests and replies travel over limelightd's search socket.
///
/// A request is `limelight-search 1`, then key and value pairs, every part ended by a NUL byte:
/// what it carries came from a command line, where NUL cannot occur. The client then shuts its
/// side down. A reply is a header line, `limelight-reply 1 <status> <output bytes> <error
/// bytes> <failure bytes>`, followed by those three texts, which may hold any byte. Status 0 is a
/// search that ran, 1 one that failed (the third text says why), and 2 a request the daemon
/// declines (a version of the request it does not know, another index): the client then
/// searches by itself, so a command and a daemon of different versions still work together.
enum SearchWireFormat {
    static let requestMagic = "limelight-search 1"
    static let replyMagic = "limelight-reply 1"

    static func encode(_ request: SearchRequest, indexPath: String) -> [UInt8] {
        var bytes = Array(requestMagic.utf8)
        bytes.append(0)
        func field(_ key: String, _ value: String) {
            bytes += key.utf8
            bytes.append(0)
            bytes += value.utf8
            bytes.append(0)
        }
        field("index", indexPath)
        field("query", request.options.query)
        field("limit", String(request.options.limit))
        field("offset", String(request.options.offset))
        if let language = request.options.language { field("language", language) }
        if let sort = request.options.sort { field("sort", sort) }
        if request.count { field("count", "1") }
        if request.json { field("json", "1") }
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

    /// A reply saying the daemon will not run the request, and why (for its log); the client
    /// searches by itself.
    static func encodeDeclined(_ reason: String) -> [UInt8] {
        let reason = Array(reason.utf8)
        return Array("\(replyMagic) 2 0 0 \(reason.count)\n".utf8) + reason
    }

    /// The reply; `nil` when the bytes are not a whole one, or the daemon declined the request.
    ///
    /// Read from the bytes by hand: this runs in every `limelight search` the daemon answers, and
    /// splitting the header into substrings and parsing those asks the runtime for generic
    /// metadata by name, which costs more than the rest of the reading.
    static func decodeReply(_ bytes: [UInt8]) -> SearchReply? {
        let magic = Array(replyMagic.utf8)
        guard bytes.count > magic.count, bytes[..<magic.count].elementsEqual(magic) else { return nil }
        var position = magic.count
        var numbers: [Int] = []
        while numbers.count < 4 {
            guard position < bytes.count, bytes[position] == UInt8(ascii: " ") else { return nil }
            position += 1
            var number = 0, digits = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9"), digits < 18 {
                number = number * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            numbers.append(number)
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n"), numbers[0] <= 1 else { return nil }  // 2: declined
        let outputStart = position + 1, errorStart = outputStart + numbers[1], failureStart = errorStart + numbers[2]
        guard bytes.count - failureStart == numbers[3] else { return nil }
        return SearchReply(output: String(decoding: bytes[outputStart..<errorStart], as: UTF8.self),
                           errorOutput: String(decoding: bytes[errorStart..<failureStart], as: UTF8.self),
                           failure: numbers[0] == 0 ? nil : String(decoding: bytes[failureStart...], as: UTF8.self))
    }
}
