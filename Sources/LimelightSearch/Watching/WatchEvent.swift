import Foundation

/// Something that happened below a watched folder.
public struct WatchEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A file was written and closed, or moved in.
        case changed
        /// A file was deleted or moved away.
        case removed
        /// A folder appeared (and is now watched); files already in it are reported as `changed`.
        case folderAdded
        /// A watched folder went away.
        case folderRemoved
        /// The kernel dropped events: the watched trees must be rescanned.
        case overflow
        /// The per-user inotify watch limit was hit; this tree is not fully watched.
        case watchLimitReached
    }

    public var kind: Kind
    public var path: String
}
