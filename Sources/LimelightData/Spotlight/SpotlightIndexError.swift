/// Why a request to the Spotlight index (the index `limelightd` keeps) did not go through.
public struct SpotlightIndexError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// No limelightd answers for the index: it does not run, runs on another index, or did
        /// not answer in time. The index is the daemon's, so nothing else may change it.
        case notServed
        /// The daemon answered and could not carry the request out.
        case failed
    }

    public let kind: Kind
    /// The index asked about.
    public let indexPath: String
    public let reason: String

    public init(kind: Kind, indexPath: String, reason: String) {
        self.kind = kind
        self.indexPath = indexPath
        self.reason = reason
    }

    public var description: String { "the Spotlight index \(indexPath): \(reason)" }
}
