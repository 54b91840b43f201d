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

    /// Orders by the key path `@Managed` declarations stand for, as Core Data's
    /// `NSSortDescriptor(keyPath:ascending:)`: `QuerySortDescriptor(keyPath: \Recipe.name)`, or
    /// through to-one relationships `\Book.author?.name` (the key `"author.name"`). A key path
    /// that is no such chain (a computed property, a step past a to-many relationship) keeps its
    /// printed form as the key, which the fetch then refuses by name; write those with `key:`.
    public init<Root: ManagedObject, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .standard) {
        self.init(key: ManagedKeyPathNames.name(of: keyPath) ?? "\(keyPath)", ascending: ascending, comparison: comparison)
    }
}
