/// Why an object's values were put back at once, as `awake(fromSnapshotEvents:)` is told (Core
/// Data's `NSSnapshotEventType`, with its raw values).
public struct SnapshotEventType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// An undo (or redo) took the object's insertion back: it leaves the context's changes.
    public static let undoInsertion = SnapshotEventType(rawValue: 1 << 1)
    /// An undo (or redo) took the object's deletion back: it is in the graph again.
    public static let undoDeletion = SnapshotEventType(rawValue: 1 << 2)
    /// An undo (or redo) put back values of the object.
    public static let undoUpdate = SnapshotEventType(rawValue: 1 << 3)
    /// `rollback()` put back the object's saved values.
    public static let rollback = SnapshotEventType(rawValue: 1 << 4)
    /// The object took its store's values, its unsaved changes kept on top.
    public static let refresh = SnapshotEventType(rawValue: 1 << 5)
    /// A merge policy settled a conflict over the object.
    public static let mergePolicy = SnapshotEventType(rawValue: 1 << 6)
}
