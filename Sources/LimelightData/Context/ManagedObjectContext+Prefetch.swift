import Foundation

extension ManagedObjectContext {
    /// Loads the objects `keyPaths` reach from `objects` (`"owner"`, `"books"`, `"books.author"`)
    /// with one query per relationship and store, instead of one per object as faults would.
    /// To-manys get their ID lists filled in; prefetched objects stay alive with their owners.
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject], entity: EntityDescription, asFaults: Bool) throws {
        var next: [String: [String]] = [:]
        var order: [String] = []
        for keyPath in keyPaths {
            let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
            guard let first = parts.first else { continue }
            if next[first] == nil { order.append(first) }
            next[first, default: []] += parts.count > 1 ? [parts[1]] : []
        }
        for name in order {
            guard let relationship = (entity.property(named: name)
                    ?? entity.selfAndDescendants.lazy.compactMap({ $0.property(named: name) }).first) as? RelationshipDescription,
                  let destination = relationship.destinationEntity else {
                throw PersistenceError.invalidRequest("relationshipKeyPathsForPrefetching: entity \(entity.name) has no relationship '\(name)'")
            }
            let owners = objects.filter { $0.entity.index(of: name) != nil && !$0.objectID.isTemporaryID }
            let reached = relationship.isToMany
                ? try prefetchToMany(relationship, owners: owners, asFaults: asFaults)
                : try prefetchToOne(relationship, owners: owners, asFaults: asFaults)
            if let rest = next[name], !rest.isEmpty {
                try prefetch(rest, for: reached, entity: destination, asFaults: asFaults)
            }
        }
    }

    /// The slot of `index` as the store gave it: from the values, or from the cached row of a fault.
    private func storedSlot(_ object: ManagedObject, _ index: Int) -> StoredValue? {
        if !object.faultFlag { return object.values[index] }
        if let values = object.cachedRowValues { return values[index] }
        return nil
    }

    private func prefetchToOne(_ relationship: RelationshipDescription, owners: [ManagedObject], asFaults: Bool) throws -> [ManagedObject] {
        var targets: [ManagedObject: ManagedObjectID] = [:]
        for owner in owners {
            guard let index = owner.entity.index(of: relationship.name),
                  let id = storedSlot(owner, index)?.objectID else { continue }
            targets[owner] = id
        }
        let missing = Set(targets.values).filter { id in
            guard let registered = registry.object(for: id) else { return true }
            return registered.faultFlag && registered.cachedRowValues == nil
        }
        let loaded = try load(Array(missing), asFaults: asFaults)
        var reached: [ManagedObject] = []
        for (owner, id) in targets {
            let target = loaded[id] ?? object(with: id)
            owner.prefetchedObjects[relationship.name] = [target]
            reached.append(target)
        }
        return unique(reached)
    }

    private func prefetchToMany(_ relationship: RelationshipDescription, owners: [ManagedObject], asFaults: Bool) throws -> [ManagedObject] {
        guard let coordinator = persistentStoreCoordinator else { return [] }
        var reached: [ManagedObject] = []
        for group in Dictionary(grouping: owners, by: { $0.objectID.storeIdentifier ?? "" }).values {
            guard let first = group.first else { continue }
            let answer = try readingStores(coordinator) {
                try coordinator.store(for: first.objectID).relatedRows(relationship, owners: group.map(\.objectID))
            }
            var objects: [ManagedObjectID: ManagedObject] = [:]
            let ancestors = parent == nil ? nil : changesFromParent(.objects(answer.rows.map(\.id)))
            for row in answer.rows {
                // In a child, the ancestors' unsaved values stand for the store's.
                if let ancestors {
                    guard let adjusted = ancestors.adjusted(row) else { continue }
                    objects[row.id] = register(row: adjusted, asFault: asFaults)
                } else {
                    objects[row.id] = register(row: row, asFault: asFaults)
                }
            }
            for owner in group {
                guard let index = owner.entity.index(of: relationship.name), let ids = answer.related[owner.objectID] else { continue }
                let related = ids.map { objects[$0] ?? object(with: $0) }
                owner.prefetchedObjects[relationship.name] = related
                reached += related
                let loaded = StoredValue.toMany(.loaded(RelatedIDs(ids)))
                if owner.faultFlag, owner.cachedRowValues != nil {
                    owner.cachedRowValues?[index] = loaded
                } else if !owner.faultFlag, case .toMany(.fault) = owner.values[index] {
                    owner.values[index] = loaded
                    if owner.committedValues != nil { owner.committedValues?[index] = loaded }
                }
            }
        }
        return unique(reached)
    }

    private func unique(_ objects: [ManagedObject]) -> [ManagedObject] {
        var seen: Set<ObjectIdentifier> = []
        return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// Rows for `ids` with one query per store, registered as objects.
    private func load(_ ids: [ManagedObjectID], asFaults: Bool) throws -> [ManagedObjectID: ManagedObject] {
        var result: [ManagedObjectID: ManagedObject] = [:]
        try sourceRows(for: ids) { row in result[row.id] = register(row: row, asFault: asFaults) }
        return result
    }
}
