/// One `limelight search` as plain values: the query and its options, and how the answer is
/// shown. The command runs it itself, or has limelightd run it (`SearchClient`).
public struct SearchRequest: Equatable, Sendable {
    public var options: SearchService.Options
    /// Only the number of hits.
    public var count = false
    /// One JSON object per hit.
    public var json = false

    public init(options: SearchService.Options, count: Bool = false, json: Bool = false) {
        self.options = options
        self.count = count
        self.json = json
    }
}
