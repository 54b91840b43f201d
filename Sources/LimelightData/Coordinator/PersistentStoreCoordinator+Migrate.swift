import Foundation

extension PersistentStoreCoordinator {
    /// Copies `store` to a new store at `url`, of `type`, and puts the copy in its place, as Core
    /// Data's `migratePersistentStore(_:to:options:type:)`: "Save As" for a document, moving a store
    /// into another folder, or turning an in-memory store into a file. The old store's file stays
    /// as it was; only the coordinator lets go of it.
    ///
    /// Every object is copied with its attributes and relationships (ordered ones in order) through
    /// a context of the coordinator's own, in one save, so the copy's objects have new IDs in the new
    /// store; objects of the old store held by contexts are no longer reachable. `options` are the
    /// new store's (marker files there are written for the copied objects). Throws, and leaves the
    /// coordinator as it was, when a store already exists at `url` or the copy cannot be saved.
    @discardableResult
    public func migratePersistentStore(_ store: PersistentStore, to url: URL?, options: [String: any Sendable]? = nil,
                                       type: StoreType) throws -> PersistentStore {
        let options = options ?? [:]
        guard persistentStores.contains(where: { $0 === store }) else {
            throw PersistenceError.invalidRequest("the store \(store.url?.path ?? store.identifier) is not one of this coordinator's stores")
        }
        if let url {
            guard url.standardizedFileURL != store.url?.standardizedFileURL, !FileManager.default.fileExists(atPath: url.path) else {
                throw PersistenceError.store(path: url.path, reason: "a file is there already; migrating a store never overwrites one")
            }
        }
        let copy = try addPersistentStore(type: type, configuration: store.configurationName, at: url, options: options)
        do {
            try copyObjects(from: store, to: copy)
        } catch {
            remove(copy)
            if let url { try? destroyPersistentStore(at: url, type: type, options: options) }
            throw error
        }
        remove(store)
        return copy
    }

    /// Inserts a copy of every object of `source` into `destination`, then saves them together.
    private func copyObjects(from source: PersistentStore, to destination: PersistentStore) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = self
        context.undoManager = nil
        try context.performAndWait {
            var originals: [ManagedObject] = []
            var copies: [ManagedObjectID: ManagedObject] = [:]
            for entity in managedObjectModel.entities(forConfiguration: source.configurationName) where entity.superentity == nil {
                let request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.affectedStores = [source]
                request.returnsObjectsAsFaults = false
                for original in try context.fetch(request) {
                    let copy = try context.insertNewObject(forEntityName: original.entity.name)
                    try context.assign(copy, to: destination)
                    for case let attribute as AttributeDescription in original.entity.properties where !attribute.isTransient {
                        copy.setValue(original.value(forKey: attribute.name), forKey: attribute.name)
                    }
                    originals.append(original)
                    copies[original.objectID] = copy
                }
            }
            // Relationships once every copy exists. Each to-one is set (its inverse follows), and a
            // to-many where no to-one inverse does it; ordered ones last, as setting a to-one
            // appends to its ordered inverse, and setting the whole list puts it in order.
            for orderedPass in [false, true] {
                for original in originals {
                    guard let copy = copies[original.objectID] else { continue }
                    for case let relationship as RelationshipDescription in original.entity.properties
                    where !relationship.isTransient && relationship.isOrdered == orderedPass {
                        let value = original.value(forKey: relationship.name)
                        if !relationship.isToMany {
                            copy.setValue((value as? ManagedObject).flatMap { copies[$0.objectID] }, forKey: relationship.name)
                            continue
                        }
                        let inverseIsToOne = relationship.inverseRelationship.map { !$0.isToMany } ?? false
                        guard relationship.isOrdered || !inverseIsToOne else { continue }
                        let members: [ManagedObject]
                        switch value {
                        case let array as [ManagedObject]: members = array
                        case let set as Set<ManagedObject>: members = Array(set)
                        default: members = []
                        }
                        let copied = members.compactMap { copies[$0.objectID] }
                        copy.setValue(relationship.isOrdered ? copied as Any : Set(copied) as Any, forKey: relationship.name)
                    }
                }
            }
            try context.save()
        }
    }
}
