import Foundation

extension ManagedObjectContext {
    /// Fetches what `request` asks for: managed objects (including unsaved changes when the
    /// request asks for them), or their IDs, dictionaries or the count when its `resultType` says
    /// so, as `[ResultType]`. With `includesPropertyValues = false` only the IDs are read and the
    /// objects are faults; `relationshipKeyPathsForPrefetching` loads related objects with one
    /// query per relationship. With a `fetchBatchSize` only the IDs are read at first and the
    /// objects load a batch at a time (one query each) as they are touched; `fetchBatched(_:)`
    /// also lets go of batches already walked.
    ///
    /// Throws when the results are not of `ResultType` (objects of an entity whose class is not
    /// the request's), rather than dropping them.
    public func fetch<ResultType>(_ request: FetchRequest<ResultType>) throws -> [ResultType] {
        let specification = request.specification
        switch specification.resultType {
        case .managedObject: return try FetchResultConversion.objects(fetchObjects(specification), for: specification)
        case .managedObjectID: return try FetchResultConversion.objectIDs(fetchObjectIDs(specification), for: specification)
        case .dictionary: return try FetchResultConversion.dictionaries(fetchDictionaries(specification), for: specification)
        case .count: return try FetchResultConversion.count(count(for: specification), for: specification)
        }
    }

    /// The managed objects a request matches, whatever its result type says.
    func fetchObjects(_ request: FetchSpecification) throws -> [ManagedObject] {
        try fetchObjects(request, ancestors: ancestorChanges(for: try resolve(request).0, request))
    }

    /// `fetchObjects(_:)` with the ancestors' changes already asked for (`nil` in a root context).
    func fetchObjects(_ request: FetchSpecification, ancestors: AncestorChanges?) throws -> [ManagedObject] {
        let (entity, coordinator) = try resolve(request)
        try request.checkSortKeys(in: entity)
        let pending = request.includesPendingChanges && hasPendingChanges(for: entity, request: request) || ancestors?.isEmpty == false
        let stores = coordinator.stores(for: request)
        let fetch = StoreFetch(request: request, entity: entity)
        if !request.includesPropertyValues, !pending, stores.count == 1, let store = stores.first, store.evaluatesPredicates, !store.fetchesFaults {
            let ids = try readingStores(coordinator) { try store.fetchIDs(fetch) }
            return objects(with: ids)
        }
        // With a batch size, as in Core Data: the IDs now, the rows a batch at a time as the
        // objects are touched (faults that fire together).
        if request.fetchBatchSize > 0, request.relationshipKeyPathsForPrefetching.isEmpty, !pending, stores.count == 1,
           let store = stores.first, store.evaluatesPredicates, !store.fetchesFaults {
            let ids = try readingStores(coordinator) { try store.fetchIDs(fetch) }
            let siblings = FaultSiblings(ids: ids, batchSize: request.fetchBatchSize)
            let objects = objects(with: ids)
            for (position, object) in objects.enumerated() { siblings.adopt(object, at: position) }
            return objects
        }
        // Stores that cannot filter (in-memory) hand over every row; the predicate runs here then.
        let filterHere = stores.contains { !$0.evaluatesPredicates }
        let readStart = rowReadTimes.isOn ? RowReadTimes.now : nil
        var objects: [ManagedObject] = []
        try readingStores(coordinator) {
            for store in stores {
                let whole = pending || stores.count > 1 || !store.evaluatesPredicates
                // Each row becomes an object as it is read, while it is still in the cache.
                let storeFetch = whole ? StoreFetch(request: request.withoutPaging(keepPredicate: store.evaluatesPredicates), entity: entity) : fetch
                let asFault = request.returnsObjectsAsFaults, refreshing = request.shouldRefreshRefetchedObjects
                if store.fetchesFaults {
                    objects += try fetchFaults(from: store, storeFetch, ancestors: ancestors, asFault: asFault, refreshing: refreshing)
                } else if let ancestors {
                    try store.fetchRows(storeFetch) { row in
                        guard let row = ancestors.adjusted(row) else { return }
                        objects.append(register(row: row, asFault: asFault, refreshing: refreshing))
                    }
                } else {
                    // Without ancestors, each row goes straight in: no copy of it is made.
                    try store.fetchRows(storeFetch) { row in objects.append(register(row: row, asFault: asFault, refreshing: refreshing)) }
                }
            }
        }
        // For `stalenessInterval`: the faults' rows are as old as the fetch.
        if let readStart { rowReadTimes.noteRead(of: objects, at: readStart) }
        if stores.count > 1 || pending || filterHere {
            objects = try applyPendingChanges(to: objects, request: request, entity: entity, pending: pending, filterAll: filterHere,
                                              ancestors: ancestors)
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects, entity: entity, asFaults: request.returnsObjectsAsFaults)
        }
        return objects
    }

    /// The objects of type `T` among those a request fetches (objects of other classes are left
    /// out). A request typed by the class does the same with a check: `context.fetch(Recipe.fetchRequest())`.
    public func fetch<T: ManagedObject, ResultType>(_ request: FetchRequest<ResultType>, as type: T.Type) throws -> [T] {
        let specification = request.specification
        guard specification.resultType == .managedObject else {
            throw PersistenceError.invalidRequest("the request for \(specification.subject) has resultType .\(specification.resultType), not objects of \(T.self)")
        }
        return try fetchObjects(specification).compactMap { $0 as? T }
    }

    /// How many objects match, counted in the store unless unsaved changes take part.
    public func count<ResultType>(for request: FetchRequest<ResultType>) throws -> Int {
        try count(for: request.specification)
    }

    func count(for request: FetchSpecification) throws -> Int {
        let (entity, coordinator) = try resolve(request)
        let ancestors = ancestorChanges(for: entity, request)
        if request.includesPendingChanges && hasPendingChanges(for: entity, request: request) || ancestors?.isEmpty == false
            || coordinator.stores(for: request).contains(where: { !$0.evaluatesPredicates }) {
            return try fetchObjects(request, ancestors: ancestors).count
        }
        return try readingStores(coordinator) {
            try coordinator.stores(for: request).reduce(0) { $0 + (try $1.fetchCount(StoreFetch(request: request, entity: entity))) }
        }
    }

    func resolve(_ request: FetchSpecification) throws -> (EntityDescription, PersistentStoreCoordinator) {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
        if let name = request.entityName ?? request.entity?.name {
            guard let entity = coordinator.managedObjectModel.entity(named: name) else {
                throw PersistenceError.invalidRequest("the model has no entity named '\(name)'")
            }
            return (entity, coordinator)
        }
        guard let resultClass = request.resultClass, resultClass != ManagedObject.self else {
            throw PersistenceError.invalidRequest("the fetch request names no entity: give it an entityName or an entity")
        }
        return (try resultClass.entity(inModelOf: self), coordinator)
    }

    func hasPendingChanges(for entity: EntityDescription, request: FetchSpecification) -> Bool {
        let affected = { (object: ManagedObject) in
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        return insertedSet.contains(where: affected) || updatedSet.contains(where: affected) || deletedSet.contains(where: affected)
    }

    /// In a child, its ancestors' unsaved changes to what `request` fetches: part of what it
    /// reads, whatever the request says about the child's own. `nil` in a root context.
    func ancestorChanges(for entity: EntityDescription, _ request: FetchSpecification) -> AncestorChanges? {
        parent == nil ? nil : changesFromParent(.entity(entity, includesSubentities: request.includesSubentities))
    }

    /// The fetched objects with the unsaved changes of this context, and of its ancestors (their
    /// objects re-checked against the predicate, their new ones added), sorted and paged.
    private func applyPendingChanges(to fetched: [ManagedObject], request: FetchSpecification, entity: EntityDescription,
                                     pending: Bool, filterAll: Bool, ancestors: AncestorChanges?) throws -> [ManagedObject] {
        var result: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        let matches = { (object: ManagedObject) throws -> Bool in
            guard let predicate = request.predicate else { return true }
            return try predicate.evaluate(with: object)
        }
        let changedAbove = ancestors?.rows ?? [:]
        for object in fetched where !object.deletedFlag {
            if object.updatedFlag || filterAll || changedAbove[object.objectID] != nil, try !matches(object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
        }
        // Objects new or changed above that the store did not give: in the ancestors, they match.
        for row in changedAbove.values where request.includesSubentities ? row.id.entity.isKind(of: entity) : row.id.entity === entity {
            // The store gave most of them: those are registered and checked already.
            if let known = registry.object(for: row.id), seen.contains(ObjectIdentifier(known)) { continue }
            let object = register(row: row, asFault: request.returnsObjectsAsFaults)
            guard !object.deletedFlag, !seen.contains(ObjectIdentifier(object)), try matches(object) else { continue }
            seen.insert(ObjectIdentifier(object))
            result.append(object)
        }
        if pending {
            for object in insertedSet where request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity {
                if try matches(object), seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
            }
            for object in updatedSet where !seen.contains(ObjectIdentifier(object)) {
                guard request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity else { continue }
                if try matches(object), seen.insert(ObjectIdentifier(object)).inserted { result.append(object) }
            }
        }
        result = ValueOrdering.sort(result, by: request.sortDescriptors)
        let start = min(request.fetchOffset, result.count)
        let end = request.fetchLimit > 0 ? min(result.count, start + request.fetchLimit) : result.count
        return Array(result[start..<end])
    }
}
