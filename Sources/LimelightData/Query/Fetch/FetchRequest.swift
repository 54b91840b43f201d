import Foundation

/// What a fetch returns.
public enum FetchRequestResultType: Sendable {
    case managedObject
    case managedObjectID
    case dictionary
    case count
}

/// Orders fetch results by a key path (`QuerySortDescriptor(key: "name")`); named so it does not
/// collide with Foundation's `SortDescriptor`.
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

/// Describes which objects to fetch from the stores and in which form.
public final class FetchRequest: @unchecked Sendable {
    public var entityName: String
    public var predicate: QueryPredicate?
    public var sortDescriptors: [QuerySortDescriptor] = []
    /// 0 means no limit.
    public var fetchLimit = 0
    public var fetchOffset = 0
    /// When non-zero, objects are returned as faults and loaded this many at a time as the result
    /// is walked.
    public var fetchBatchSize = 0
    public var includesSubentities = true
    /// Whether unsaved inserts, updates and deletes of the context take part.
    public var includesPendingChanges = true
    public var returnsObjectsAsFaults = true
    public var includesPropertyValues = true
    public var relationshipKeyPathsForPrefetching: [String] = []
    public var resultType: FetchRequestResultType = .managedObject
    /// For dictionary results: attribute names, key paths, to-one names, `ExpressionDescription`s.
    public var propertiesToFetch: [Any] = []
    public var returnsDistinctResults = false
    public var propertiesToGroupBy: [Any] = []
    public var havingPredicate: QueryPredicate?
    /// Stores to search; all of the coordinator's when empty.
    public var affectedStores: [PersistentStore] = []

    public init(entityName: String, predicate: QueryPredicate? = nil, sortDescriptors: [QuerySortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

/// A fetch as a store receives it: the request with its entity resolved.
struct StoreFetch {
    let request: FetchRequest
    let entity: EntityDescription
    /// Entities whose rows qualify (the entity, and its descendants when subentities are included).
    var entities: [EntityDescription] {
        request.includesSubentities ? entity.selfAndDescendants : [entity]
    }
}
