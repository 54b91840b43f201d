import Foundation

extension ManagedObjectContext {
    /// Loads a fault's values from its store (for an incremental store, its
    /// `newValuesForObject(with:with:)`). A fault whose row is gone reads as deleted, or with
    /// `shouldDeleteInaccessibleFaults` off stays a fault that the next save reports. A fault the
    /// store fails to give values for (Core Data: a fault it cannot fulfil, an exception there)
    /// stays a fault with empty values, asked for again when next touched; until it loads, the
    /// next save fails naming it and the store's error.
    func fireFault(_ object: ManagedObject) {
        guard object.faultFlag else { return }
        if let values = object.cachedRowValues {
            object.cachedRowValues = nil
            // With a `stalenessInterval`, a row read too long ago is read again (below).
            if !rowReadTimes.isOn || rowReadTimes.takeIsFresh(object, within: stalenessInterval) {
                take(StoreRow(id: object.objectID, version: object.storeVersion, values: values), into: object)
                return
            }
        }
        if let siblings = object.faultSiblings {
            fireSiblings(of: object, siblings)
            if !object.faultFlag { return }
        }
        object.faultFlag = false
        object.values = object.entityLayout.emptyValues
        guard persistentStoreCoordinator != nil else { return }
        do {
            guard let row = try sourceRows(for: [object.objectID]).first else {
                // Another context or program deleted the object: it reads as deleted (Core Data's
                // default), or the next save reports it.
                if shouldDeleteInaccessibleFaults {
                    object.inaccessibleFlag = true
                } else {
                    // It stays a fault, so `existingObject(with:)` looks in the store again.
                    object.faultFlag = true
                    recordProblem(ValidationFailure(object: object, key: nil, reason: "the object's row no longer exists in its store"))
                }
                return
            }
            object.inaccessibleFlag = false
            object.values = row.values
            object.committedValues = row.values
            object.storeVersion = row.version
            if !unfulfilledFaults.isEmpty { unfulfilledFaults[object.objectID] = nil }
            object.awakeFromFetch()
        } catch {
            object.faultFlag = true
            unfulfilledFaults[object.objectID] = ValidationFailure(object: object, key: nil, reason: "the store could not fulfil the fault: \(error)")
        }
    }

    /// Fires faults together, the way Core Data batch-faults a relationship's objects or a batched
    /// fetch: the touched one and the unfired siblings after it (wrapping round), up to the
    /// siblings' batch size.
    private func fireSiblings(of object: ManagedObject, _ siblings: FaultSiblings) {
        if let source = siblings.source {
            siblings.source = nil
            fireRelationship(source, of: object, siblings)
            if !object.faultFlag { return }
        }
        object.faultSiblings = nil
        var batch = [object]
        let start = Int(object.faultSiblingPosition)
        if siblings.ids.indices.contains(start), siblings.ids[start] == object.objectID { siblings.markFired(start) }
        var offset = 1
        while batch.count < siblings.batchSize, offset < siblings.ids.count {
            let position = (start + offset) % siblings.ids.count
            offset += 1
            // Walking in random order passes many siblings fired already: those cost a bit test.
            guard !siblings.hasFired(position) else { continue }
            siblings.markFired(position)
            guard let other = registry.object(for: siblings.ids[position]), other.faultFlag, other.faultSiblings === siblings else { continue }
            other.faultSiblings = nil
            batch.append(other)
        }
        // A failure here leaves the objects faults; each then fires on its own and reports.
        try? fireFaults(batch)
    }

    /// Fires the faults of a to-many with the relationship's own query. Only objects still
    /// waiting in `siblings` take a row: one fired or changed meanwhile keeps what it has, and
    /// one that left the relationship in the store stays a fault and fires on its own.
    private func fireRelationship(_ source: FaultSiblings.Source, of object: ManagedObject, _ siblings: FaultSiblings) {
        guard let coordinator = persistentStoreCoordinator else { return }
        let ancestors = parent == nil ? nil : changesFromParent(.objects(siblings.ids))
        let members = siblings.ids
        // A failure leaves the objects faults; each then fires in the usual batches and reports.
        // Each row comes with its member's position among the IDs the to-many was read with, so
        // the ID made then serves again, and no row makes one of its own.
        try? readingStores(coordinator) {
            try coordinator.store(for: source.owner).relatedRows(of: source.owner, relationship: source.relationship,
                                                                 members: members) { position, version, values in
                guard let other = registry.object(for: members[position]), other.faultFlag, other.faultSiblings === siblings else { return }
                other.faultSiblings = nil
                // In a child, the ancestors' unsaved values stand for the store's. Checked here,
                // after the cheap tests, so a root context's rows are never copied for it.
                if let ancestors {
                    guard let adjusted = ancestors.adjusted(StoreRow(id: members[position], version: version, values: values)) else { return }
                    take(adjusted, into: other)
                } else {
                    take(version: version, values: values, into: other)
                }
            }
        }
    }

    /// Loads many faults with one query per store (batch faulting).
    public func fireFaults(_ objects: [ManagedObject]) throws {
        let faults = objects.filter { $0.faultFlag && $0.managedObjectContext === self }
        guard !faults.isEmpty else { return }
        try sourceRows(for: faults.map(\.objectID)) { register(row: $0) }
    }

    /// The IDs on the other end of a relationship, loading a to-many with one query on first use.
    func relatedIDs(of object: ManagedObject, relationship: RelationshipDescription, slot: StoredValue) -> RelatedIDs {
        if !relationship.isToMany { return slot.objectID.map { [$0] } ?? [] }
        if case .toMany(.loaded(let ids)) = slot { return ids }
        guard !object.objectID.isTemporaryID, let coordinator = persistentStoreCoordinator,
              let index = object.entity.index(of: relationship.name) else { return [] }
        do {
            let ids = RelatedIDs(try readingStores(coordinator) {
                try coordinator.store(for: object.objectID).relatedIDs(of: object.objectID, relationship: relationship)
            })
            object.values[index] = .toMany(.loaded(ids))
            if object.committedValues != nil { object.committedValues?[index] = .toMany(.loaded(ids)) }
            return ids
        } catch {
            recordProblem(ValidationFailure(object: object, key: relationship.name, reason: "could not load: \(error)"))
            return []
        }
    }

    /// Turns an object back into a fault (dropping unsaved changes), or with `mergeChanges` reloads
    /// its saved values and keeps its unsaved ones on top.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        refresh(object, mergeChanges: mergeChanges, tellingObservers: true)
    }

    /// `refresh(_:mergeChanges:)`; without `tellingObservers` (an object leaving the context),
    /// observers of its values hear nothing.
    func refresh(_ object: ManagedObject, mergeChanges: Bool, tellingObservers: Bool) {
        // A new object has nothing to be refreshed from, except in a child, from its parent.
        guard object.managedObjectContext === self, !object.objectID.isTemporaryID || (parent != nil && !object.insertedFlag) else { return }
        let before = tellingObservers ? object.valuesBeforeChange : nil
        defer {
            object.reportChanges(since: before)
            noteContextChange()
        }
        object.fetchedResults = [:]
        if mergeChanges, object.hasChanges, !object.faultFlag {
            let local = object.changedValues()
            object.faultFlag = true
            fireFault(object)
            for (key, value) in local {
                if let index = object.entity.index(of: key) { object.values[index] = StoredValue(value) }
            }
            // Taking the store's values is no change of this event's.
            object.eventValues = object.values
            object.awake(fromSnapshotEvents: .refresh)
            return
        }
        object.willTurnIntoFault()
        updatedSet.remove(object)
        object.updatedFlag = false
        object.faultFlag = true
        object.cachedRowValues = nil
        object.faultSiblings = nil
        object.prefetchedObjects = [:]
        object.values = object.entityLayout.emptyValues
        object.committedValues = nil
        object.eventValues = nil
        object.didTurnIntoFault()
    }

    /// Refreshes every registered object: unchanged ones become faults that read the store
    /// again when touched, changed ones reload their saved values with their changes on top.
    public func refreshAllObjects() {
        advanceQueryGeneration()
        for object in registry.allObjects where !object.faultFlag {
            refresh(object, mergeChanges: object.hasChanges)
        }
    }

    /// Evaluates a fetched property against the store, with `$FETCH_SOURCE` bound to `object`.
    func evaluateFetchedProperty(_ property: FetchedPropertyDescription, of object: ManagedObject) -> [ManagedObject] {
        var request = FetchSpecification(entityName: property.destinationEntityName)
        if let format = property.predicateFormat {
            do {
                request.predicate = try FetchedPropertySupport.predicate(format: format, source: object)
            } catch {
                recordProblem(ValidationFailure(object: object, key: property.name, reason: "\(error)"))
                return []
            }
        }
        do {
            return try fetchObjects(request)
        } catch {
            recordProblem(ValidationFailure(object: object, key: property.name, reason: "\(error)"))
            return []
        }
    }
}
