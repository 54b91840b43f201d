import Foundation

/// A named database index over some of an entity's properties.
///
/// A binary index is an ordinary SQLite index (`Z_<Entity>_<name>`). An R-tree index
/// (`NSFetchIndexElementTypeRTree`, `type="RTree"` in model XML) is an SQLite R-tree virtual
/// table of that name, one `<column>_MIN`/`<column>_MAX` pair per element, kept in step with the
/// entity's table by triggers, as Core Data keeps it (`SQLiteRTreeIndex`). Core Data refuses an
/// index that mixes the two kinds, so the kind belongs to the index, not to each element.
public struct FetchIndexDescription: Sendable, Equatable {
    /// How an index is kept in the store.
    public enum Kind: Sendable, Hashable {
        case binary
        case rTree

        /// The element type a compiled model records (`NSFetchIndexElementType`); nil for one
        /// this framework does not know.
        init?(code: Int) {
            switch code {
            case 0: self = .binary
            case 1: self = .rTree
            default: return nil
            }
        }

        /// The `type` of a `fetchIndexElement` in model XML; Xcode writes `Binary` or `RTree`.
        init(xmlType: String?) {
            self = xmlType?.caseInsensitiveCompare("RTree") == .orderedSame ? .rTree : .binary
        }

        var code: Int { self == .rTree ? 1 : 0 }
        var xmlType: String { self == .rTree ? "RTree" : "Binary" }
    }

    public var name: String
    public var elements: [(property: String, ascending: Bool)]
    public var kind: Kind

    public init(name: String, elements: [(property: String, ascending: Bool)], kind: Kind = .binary) {
        self.name = name
        self.elements = elements
        self.kind = kind
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.elements.map(\.property) == rhs.elements.map(\.property)
            && lhs.elements.map(\.ascending) == rhs.elements.map(\.ascending)
    }
}
