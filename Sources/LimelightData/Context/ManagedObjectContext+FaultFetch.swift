import Foundation

extension ManagedObjectContext {
    /// One store's part of a fetch when the store answers with faults (an incremental store): the
    /// objects it gave, registered here, their values asked for only as each fault fires
    /// (`fireFault`); objects already loaded keep theirs. The stores hear of the objects the fetch
    /// registered with one call each. In a child, the ancestors' unsaved changes stand for the
    /// store's values and hide the objects they deleted; with `refreshing` (a request's
    /// `shouldRefreshRefetchedObjects`), loaded objects are read again. Call inside
    /// `readingStores`.
    func fetchFaults(from store: PersistentStore, _ fetch: StoreFetch, ancestors: AncestorChanges?,
                     asFault: Bool, refreshing: Bool) throws -> [ManagedObject] {
        let fetched = try registeringTogether { try store.fetchFaults(fetch, into: self) }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(fetched.count)
        var loaded: [ManagedObjectID] = []
        for object in fetched {
            if let ancestors {
                if let own = ancestors.rows[object.objectID] {
                    take(own, into: object, asFault: asFault, refreshing: refreshing)
                    objects.append(object)
                    continue
                }
                if ancestors.deleted.contains(object.objectID) { continue }
            }
            if refreshing, !object.faultFlag { loaded.append(object.objectID) }
            objects.append(object)
        }
        if !loaded.isEmpty {
            try store.rows(for: loaded) { row in
                if let object = registry.object(for: row.id) { take(row, into: object, refreshing: true) }
            }
        }
        return objects
    }
}
