import Foundation

/// Orders fetch results by a key path (`QuerySortDescriptor(key: "name")`), as Core Data's
/// `NSSortDescriptor` does; named so it does not collide with Foundation's `SortDescriptor`.
public struct QuerySortDescriptor: Sendable, Equatable {
    public enum Comparison: Sendable, Equatable {
        case standard
        case caseInsensitive
        /// Unicode-aware, case- and diacritic-insensitive, like `localizedStandardCompare`.
        case localized
    }
    public var key: String
    public var ascending: Bool
    public var comparison: Comparison

    public init(key: String, ascending: Bool = true, comparison: Comparison = .standard) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }
}
