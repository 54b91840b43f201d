import Foundation

/// What a child context sees of its ancestors' unsaved changes: the objects they inserted or
/// changed, with the values they hold there, and the objects they deleted. To the child these are
/// the store: rows read from the store are replaced or dropped by them.
struct AncestorChanges {
    var rows: [ManagedObjectID: StoreRow] = [:]
    var deleted: Set<ManagedObjectID> = []
    /// Temporary IDs the parent made permanent since the child last asked, in order.
    var retired: [(temporary: ManagedObjectID, permanent: ManagedObjectID)] = []
    /// How many of the parent's retired IDs the child has now seen.
    var retiredCount = 0

    var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }

    /// A store row as the ancestors see it: their own, or none when they deleted the object.
    func adjusted(_ row: StoreRow) -> StoreRow? {
        if let own = rows[row.id] { return own }
        return deleted.contains(row.id) ? nil : row
    }
}

/// Which of a parent's changes a child asks for.
enum AncestorScope {
    /// The objects with these IDs.
    case objects([ManagedObjectID])
    /// Every changed object of an entity (and its subentities when asked), for a fetch.
    case entity(EntityDescription, includesSubentities: Bool)

    func covers(_ object: ManagedObject) -> Bool {
        guard case .entity(let entity, let subentities) = self else { return true }
        return subentities ? object.entity.isKind(of: entity) : object.entity === entity
    }
}

extension ManagedObjectContext {
    /// The context this one reads from and saves into, as in Core Data: a child sees its parent's
    /// unsaved changes as if they were saved, and its `save()` hands its changes to the parent
    /// instead of a store; they reach the store when the parent (or the last ancestor) saves.
    /// A child uses its root's coordinator. Set it before the context is used.
    public var parent: ManagedObjectContext? {
        get { parentContext }
        set {
            parentContext = newValue
            if newValue != nil { ownCoordinator = nil }
            retiredIDsSeen = 0
        }
    }

    /// Asks the parent, on its queue, for its and its ancestors' unsaved changes in `scope`, and
    /// takes on the permanent IDs the parent gave objects this context knows by temporary ones.
    func changesFromParent(_ scope: AncestorScope) -> AncestorChanges {
        guard let parent else { return AncestorChanges() }
        let seen = retiredIDsSeen
        let changes = parent.performAndWait { parent.unsavedChanges(scope, retiredSince: seen) }
        catchUp(changes.retired, through: changes.retiredCount)
        return changes
    }

    /// Takes on the permanent IDs the parent gave since this context last looked (`retired`, the
    /// parent's list from `retiredIDsSeen` up to `count`).
    func catchUp(_ retired: [(temporary: ManagedObjectID, permanent: ManagedObjectID)], through count: Int) {
        retiredIDsSeen = count
        if !retired.isEmpty { adoptPermanentIDs(retired) }
    }

    /// This context's unsaved changes in `scope` on top of its ancestors', for a child. Runs on
    /// this context's queue.
    private func unsavedChanges(_ scope: AncestorScope, retiredSince seen: Int) -> AncestorChanges {
        var changes = parent == nil ? AncestorChanges() : changesFromParent(scope)
        changes.retired = []
        func note(_ object: ManagedObject) {
            let id = object.objectID
            if object.deletedFlag {
                changes.rows[id] = nil
                changes.deleted.insert(id)
            } else if !object.faultFlag {
                changes.rows[id] = StoreRow(id: id, version: object.storeVersion, values: object.values)
                changes.deleted.remove(id)
                // The child may keep this ID: when it turns permanent, the child is told.
                if id.isTemporaryID { lentIDs.insert(id) }
            }
        }
        switch scope {
        case .objects(let ids):
            for id in ids {
                let id = retiredIDsByTemporary[id] ?? id
                if let object = registry.object(for: id), object.hasChanges { note(object) }
            }
        case .entity:
            for changed in [insertedSet, updatedSet, deletedSet] {
                for object in changed where scope.covers(object) { note(object) }
            }
        }
        if seen < retiredIDs.count { changes.retired = Array(retiredIDs[seen...]) }
        changes.retiredCount = retiredIDs.count
        return changes
    }

    /// Gives objects known by temporary IDs the permanent ones their parent gave them, and passes
    /// the news on to this context's own children where they were lent the old IDs.
    func adoptPermanentIDs(_ pairs: [(temporary: ManagedObjectID, permanent: ManagedObjectID)]) {
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for (temporary, permanent) in pairs {
            mapping[temporary] = permanent
            if let object = registry.object(for: temporary) { reregister(object, as: permanent) }
        }
        retireLentIDs(mapping)
        remapRegisteredObjects(with: mapping)
    }

    /// Records which temporary IDs lent to children are now permanent, for the children to take.
    func retireLentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !lentIDs.isEmpty else { return }
        for (temporary, permanent) in mapping where lentIDs.remove(temporary) != nil {
            retiredIDs.append((temporary, permanent))
            retiredIDsByTemporary[temporary] = permanent
        }
    }

    // MARK: Reading through the ancestors

    /// The rows of `ids` as this context's source holds them: the stores', under the unsaved
    /// changes of its ancestors when it is a child. An object gone there has no row.
    func sourceRows(for ids: [ManagedObjectID], _ body: (StoreRow) -> Void) throws {
        guard let coordinator = persistentStoreCoordinator, !ids.isEmpty else { return }
        var fromStores = ids
        if parent != nil {
            let changes = changesFromParent(.objects(ids))
            let retired = Dictionary(changes.retired.map { ($0.temporary, $0.permanent) }) { first, _ in first }
            fromStores = []
            for id in ids {
                let id = retired[id] ?? id
                if let row = changes.rows[id] {
                    body(row)
                } else if !changes.deleted.contains(id) && !id.isTemporaryID {
                    fromStores.append(id)
                }
            }
        }
        guard let first = fromStores.first else { return }
        // Nearly always one store: then no grouping by the stores' identifiers is needed.
        let groups = fromStores.allSatisfy({ $0.storeIdentifier == first.storeIdentifier })
            ? [fromStores] : Array(Dictionary(grouping: fromStores) { $0.storeIdentifier ?? "" }.values)
        for group in groups {
            guard let head = group.first else { continue }
            try readingStores(coordinator) { try coordinator.store(for: head).rows(for: group, each: body) }
        }
    }

    /// `sourceRows(for:_:)` collected.
    func sourceRows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try sourceRows(for: ids) { rows.append($0) }
        return rows
    }
}
