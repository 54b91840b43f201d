/// What a search printed, whether it ran here or in limelightd.
public struct SearchReply: Equatable, Sendable {
    /// Standard output: the hits, or the count.
    public var output: String
    /// Standard error: hits dropped because their object is gone, or that nothing matched.
    public var errorOutput: String
    /// The error that ended the search, as its message; `nil` when it ran to the end.
    public var failure: String?

    public init(output: String = "", errorOutput: String = "", failure: String? = nil) {
        self.output = output
        self.errorOutput = errorOutput
        self.failure = failure
    }
}

extension SearchService {
    /// Runs `request` and shows its answer as `limelight search` prints it. Throws what stops the
    /// search (no index, a malformed query, an unknown sort property).
    public func reply(to request: SearchRequest) throws -> SearchReply {
        var reply = SearchReply()
        if request.count {
            reply.output = "\(try count(request.options))\n"
            return reply
        }
        let outcome = try search(request.options)
        for hit in outcome.hits { try HitPrinter.write(hit, json: request.json, to: &reply.output) }
        for dropped in outcome.dropped { reply.errorOutput += HitPrinter.droppedLine(dropped.document, reason: dropped.reason) }
        if outcome.hits.isEmpty && !request.json { reply.errorOutput += "no matches\n" }
        return reply
    }
}
