import Foundation

/// A fetch request's settings as the framework passes them around: a value, so a fetch works on
/// the settings it started with whatever the caller does to its request meanwhile, and one type
/// whatever the request's result type. Sendable as the request is: what it holds (predicates,
/// property descriptions, stores) is not changed once a fetch has it.
struct FetchSpecification: @unchecked Sendable {
    var entityName: String?
    var entity: EntityDescription?
    /// The class the results are, for a request made without an entity (`Recipe.fetchRequest()`).
    var resultClass: ManagedObject.Type?
    var predicate: QueryPredicate?
    var sortDescriptors: [QuerySortDescriptor] = []
    var fetchLimit = 0
    var fetchOffset = 0
    var fetchBatchSize = 0
    var includesSubentities = true
    var includesPendingChanges = true
    var returnsObjectsAsFaults = true
    var includesPropertyValues = true
    var shouldRefreshRefetchedObjects = false
    var relationshipKeyPathsForPrefetching: [String] = []
    var resultType: FetchRequestResultType = .managedObject
    var propertiesToFetch: [Any] = []
    var returnsDistinctResults = false
    var propertiesToGroupBy: [Any] = []
    var havingPredicate: QueryPredicate?
    var affectedStores: [PersistentStore] = []

    init(entityName: String?, predicate: QueryPredicate? = nil, sortDescriptors: [QuerySortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// What the request fetches, for messages: its entity's name, or its class's.
    var subject: String {
        if let name = entityName ?? entity?.name { return name }
        return resultClass.map { String(describing: $0) } ?? "no entity"
    }

    /// Refuses sort keys that name no property of `entity` (or of the entities a key path's
    /// to-ones lead to), as Core Data does, rather than leaving the results unsorted.
    func checkSortKeys(in entity: EntityDescription) throws {
        for descriptor in sortDescriptors {
            var current: EntityDescription? = entity
            let components = descriptor.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (position, component) in components.enumerated() {
                // Aggregates such as `@count` are checked where they are computed.
                if component.hasPrefix("@") { break }
                guard let here = current, let property = here.property(named: component) else {
                    throw PersistenceError.invalidRequest(
                        "the request for \(subject) sorts by '\(descriptor.key)', but \(current?.name ?? "its value") has no property '\(component)'")
                }
                // The rest of the key names an element of a composite (`magnitude.richter`); a
                // dictionary has no order of its own.
                if let composite = property as? CompositeAttributeDescription {
                    let rest = components[(position + 1)...]
                    guard let element = rest.isEmpty ? composite : composite.element(atPath: rest) else {
                        throw PersistenceError.invalidRequest(
                            "the request for \(subject) sorts by '\(descriptor.key)', but the composite attribute \(here.name).\(component) has no element '\(rest.joined(separator: "."))'")
                    }
                    if element is CompositeAttributeDescription {
                        throw PersistenceError.invalidRequest(
                            "the request for \(subject) sorts by the composite '\(descriptor.key)', a dictionary; sort by one of its elements")
                    }
                    break
                }
                current = (property as? RelationshipDescription)?.destinationEntity
            }
        }
    }

    /// The same fetch without offset and limit, for merging with unsaved objects.
    func withoutPaging(keepPredicate: Bool = true) -> FetchSpecification {
        plain(predicate: keepPredicate ? predicate : nil, sortDescriptors: sortDescriptors, stores: affectedStores)
    }

    /// The objects a dictionary fetch is computed from in memory: matching objects of one store,
    /// saved state only, unsorted and unpaged (the dictionary rows are sorted and paged).
    func objectsForDictionaries(in store: PersistentStore) -> FetchSpecification {
        var copy = plain(predicate: predicate, sortDescriptors: [], stores: [store])
        copy.includesPendingChanges = false
        return copy
    }

    /// A fetch of the same objects with every other setting at its default.
    private func plain(predicate: QueryPredicate?, sortDescriptors: [QuerySortDescriptor], stores: [PersistentStore]) -> FetchSpecification {
        var copy = FetchSpecification(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
        copy.entity = entity
        copy.resultClass = resultClass
        copy.includesSubentities = includesSubentities
        copy.affectedStores = stores
        return copy
    }
}

/// A fetch as a store receives it: the request with its entity resolved.
struct StoreFetch {
    let request: FetchSpecification
    let entity: EntityDescription
    /// Entities whose rows qualify (the entity, and its descendants when subentities are included).
    var entities: [EntityDescription] {
        request.includesSubentities ? entity.selfAndDescendants : [entity]
    }
}
