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
    /// How many objects `ManagedObjectContext.fetchBatched(_:)` loads per query as its result is
    /// walked (0: all at once). `fetch(_:)` returns a plain array and does not batch.
    public var fetchBatchSize = 0
    public var includesSubentities = true
    /// Whether unsaved inserts, updates and deletes of the context take part.
    public var includesPendingChanges = true
    /// Whether fetched objects keep their row as a cache and load it only when touched.
    public var returnsObjectsAsFaults = true
    /// `false` reads only the objects' IDs; the objects come back as faults that load when touched.
    public var includesPropertyValues = true
    /// Whether objects already loaded in the context take the values just read (their unsaved
    /// changes kept on top); by default they keep the values they have.
    public var shouldRefreshRefetchedObjects = false
    /// Relationship key paths (`"author"`, `"books.author"`) whose objects are loaded with the
    /// fetch, one query per relationship instead of one per object.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// What `ManagedObjectContext.execute(_:)` returns; the typed calls (`fetch`,
    /// `fetchObjectIDs`, `fetchDictionaries`, `count(for:)`) each give one kind regardless.
    public var resultType: FetchRequestResultType = .managedObject
    /// For dictionary results: attribute names, key paths through to-ones, to-one names (giving
    /// the related object's ID), `PropertyDescription`s and `ExpressionDescription`s. Empty means
    /// every stored attribute and to-one.
    public var propertiesToFetch: [Any] = []
    /// For dictionary results: each distinct row once (`SELECT DISTINCT`).
    public var returnsDistinctResults = false
    /// For dictionary results: the columns to group by, in the forms `propertiesToFetch` takes.
    /// Every fetched column must then be grouped or an aggregate.
    public var propertiesToGroupBy: [Any] = []
    /// For grouped dictionary results: which groups to keep. It may name result columns, as
    /// `count > 1` or `$count > 1`, and use aggregate functions.
    public var havingPredicate: QueryPredicate?
    /// Stores to search; all of the coordinator's when empty.
    public var affectedStores: [PersistentStore] = []

    public init(entityName: String, predicate: QueryPredicate? = nil, sortDescriptors: [QuerySortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// A request of its own with every setting of this one (`NSFetchRequest`'s `copy()`).
    public func copy() -> FetchRequest {
        let copy = FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.includesPropertyValues = includesPropertyValues
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.returnsDistinctResults = returnsDistinctResults
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.affectedStores = affectedStores
        return copy
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
