import Foundation

/// What a fetch returns.
public enum FetchRequestResultType: Sendable {
    case managedObject
    case managedObjectID
    case dictionary
    case count
}

/// Describes which objects to fetch from the stores and in which form, as Core Data's
/// `NSFetchRequest<ResultType>`: `context.fetch(_:)` returns `[ResultType]`.
///
/// ```swift
/// let request = Recipe.fetchRequest()                        // FetchRequest<Recipe>
/// request.predicate = try QueryPredicate(format: "name BEGINSWITH %@", "S")
/// let recipes = try context.fetch(request)                   // [Recipe]
///
/// let names = FetchRequest<[String: Any]>(entityName: "Recipe")
/// names.propertiesToFetch = ["name"]                         // resultType is .dictionary
/// let ids = FetchRequest<ManagedObjectID>(entityName: "Recipe")    // resultType is .managedObjectID
/// ```
///
/// The result type is chosen by the type the request is made for (`ManagedObjectID`: IDs;
/// `[String: Any]` or `NSDictionary`: dictionaries; `Int` or `NSNumber`: the count; anything
/// else: objects) and may be set as in Core Data. `FetchRequest<FetchRequestResult>` is the
/// untyped request whose results are whatever its `resultType` asks for.
public final class FetchRequest<ResultType>: PersistentStoreRequest, @unchecked Sendable {
    var specification: FetchSpecification

    /// Whether `sortDescriptors` was set to an empty array rather than left `nil`: the two fetch
    /// alike (the specification holds an empty array for both), but read back as they were set.
    private var sortDescriptorsAreEmptyArray = false

    /// A request for objects of the entity named `entityName`.
    public init(entityName: String, predicate: QueryPredicate? = nil, sortDescriptors: [QuerySortDescriptor]? = nil) {
        specification = FetchSpecification(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors ?? [])
        specification.resultType = Self.defaultResultType
        sortDescriptorsAreEmptyArray = sortDescriptors?.isEmpty == true
    }

    /// A request whose entity is set later (`entity` or `entityName`), or, for a request typed by a
    /// managed object class, found from the class when it runs.
    public convenience init() {
        self.init(resultClass: ResultType.self as? ManagedObject.Type)
    }

    init(resultClass: ManagedObject.Type?) {
        specification = FetchSpecification(entityName: nil)
        specification.resultClass = resultClass
        specification.resultType = Self.defaultResultType
    }

    init(specification: FetchSpecification) {
        self.specification = specification
    }

    /// The result type a request of this type asks for unless told otherwise.
    private static var defaultResultType: FetchRequestResultType {
        switch ResultType.self {
        case is ManagedObjectID.Type: .managedObjectID
        case is [String: Any].Type, is NSDictionary.Type: .dictionary
        case is Int.Type, is NSNumber.Type: .count
        default: .managedObject
        }
    }

    /// A request of its own with every setting of this one (`NSFetchRequest`'s `copy()`).
    public func copy() -> FetchRequest<ResultType> {
        let copy = FetchRequest(specification: specification)
        copy.sortDescriptorsAreEmptyArray = sortDescriptorsAreEmptyArray
        return copy
    }

    public var requestType: PersistentStoreRequestType { .fetch }

    /// The name of the entity to fetch (the entity's, when it was given as a description).
    public var entityName: String? {
        get { specification.entityName ?? specification.entity?.name }
        set { specification.entityName = newValue; specification.entity = nil }
    }
    /// The entity to fetch; setting it sets `entityName` too.
    public var entity: EntityDescription? {
        get { specification.entity }
        set { specification.entity = newValue; specification.entityName = newValue?.name }
    }
    public var predicate: QueryPredicate? {
        get { specification.predicate }
        set { specification.predicate = newValue }
    }
    /// The order of the results, first descriptor first, as Core Data's `sortDescriptors`:
    /// `nil` (the default) or empty leaves the order to the store.
    public var sortDescriptors: [QuerySortDescriptor]? {
        get { specification.sortDescriptors.isEmpty && !sortDescriptorsAreEmptyArray ? nil : specification.sortDescriptors }
        set {
            specification.sortDescriptors = newValue ?? []
            sortDescriptorsAreEmptyArray = newValue?.isEmpty == true
        }
    }
    /// 0 means no limit.
    public var fetchLimit: Int {
        get { specification.fetchLimit }
        set { specification.fetchLimit = newValue }
    }
    public var fetchOffset: Int {
        get { specification.fetchOffset }
        set { specification.fetchOffset = newValue }
    }
    /// How many objects are loaded per query as the result is walked (0: all at once): the IDs
    /// are read first and each batch's values when one of its objects is touched.
    public var fetchBatchSize: Int {
        get { specification.fetchBatchSize }
        set { specification.fetchBatchSize = newValue }
    }
    public var includesSubentities: Bool {
        get { specification.includesSubentities }
        set { specification.includesSubentities = newValue }
    }
    /// Whether unsaved inserts, updates and deletes of the context take part.
    public var includesPendingChanges: Bool {
        get { specification.includesPendingChanges }
        set { specification.includesPendingChanges = newValue }
    }
    /// Whether fetched objects keep their row as a cache and load it only when touched.
    public var returnsObjectsAsFaults: Bool {
        get { specification.returnsObjectsAsFaults }
        set { specification.returnsObjectsAsFaults = newValue }
    }
    /// `false` reads only the objects' IDs; the objects come back as faults that load when touched.
    public var includesPropertyValues: Bool {
        get { specification.includesPropertyValues }
        set { specification.includesPropertyValues = newValue }
    }
    /// Whether objects already loaded in the context take the values just read (their unsaved
    /// changes kept on top); by default they keep the values they have.
    public var shouldRefreshRefetchedObjects: Bool {
        get { specification.shouldRefreshRefetchedObjects }
        set { specification.shouldRefreshRefetchedObjects = newValue }
    }
    /// Relationship key paths (`"author"`, `"books.author"`) whose objects are loaded with the
    /// fetch, one query per relationship instead of one per object.
    public var relationshipKeyPathsForPrefetching: [String] {
        get { specification.relationshipKeyPathsForPrefetching }
        set { specification.relationshipKeyPathsForPrefetching = newValue }
    }
    /// What the fetch returns; set by the request's type unless set here (see the class).
    public var resultType: FetchRequestResultType {
        get { specification.resultType }
        set { specification.resultType = newValue }
    }
    /// For dictionary results: attribute names, key paths through to-ones, to-one names (giving
    /// the related object's ID), `PropertyDescription`s and `ExpressionDescription`s. Empty means
    /// every stored attribute and to-one.
    public var propertiesToFetch: [Any] {
        get { specification.propertiesToFetch }
        set { specification.propertiesToFetch = newValue }
    }
    /// For dictionary results: each distinct row once (`SELECT DISTINCT`).
    public var returnsDistinctResults: Bool {
        get { specification.returnsDistinctResults }
        set { specification.returnsDistinctResults = newValue }
    }
    /// For dictionary results: the columns to group by, in the forms `propertiesToFetch` takes.
    /// Every fetched column must then be grouped or an aggregate.
    public var propertiesToGroupBy: [Any] {
        get { specification.propertiesToGroupBy }
        set { specification.propertiesToGroupBy = newValue }
    }
    /// For grouped dictionary results: which groups to keep. It may name result columns, as
    /// `count > 1` or `$count > 1`, and use aggregate functions.
    public var havingPredicate: QueryPredicate? {
        get { specification.havingPredicate }
        set { specification.havingPredicate = newValue }
    }
    /// Stores to search; all of the coordinator's when empty.
    public var affectedStores: [PersistentStore] {
        get { specification.affectedStores }
        set { specification.affectedStores = newValue }
    }
}
