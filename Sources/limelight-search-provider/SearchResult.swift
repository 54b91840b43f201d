/// One hit as the desktop's search shows it. Its ID is the record's marker path: what
/// `limelight open` takes, so activating a result opens that path as the command would.
struct SearchResult: Equatable {
    var id: String
    /// The record's display name, as its importer gave it to the index.
    var name: String
    /// The text around the words searched for, without the index's highlight brackets: the
    /// shells highlight the words themselves.
    var description: String
    /// How well it matched, from 0 to 1.
    var relevance: Double
}
