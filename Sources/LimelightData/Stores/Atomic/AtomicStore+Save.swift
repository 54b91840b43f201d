import Foundation

/// How a save reaches an atomic store: its objects become nodes through the subclass's hooks,
/// then `save()` writes the file. Objects arrive with permanent IDs (the context asks for them
/// first, through `newReferenceObject(for:)`), so hooks see the IDs the file will keep.
extension AtomicStore {
    /// The permanent ID of each object: its own, or one for the reference the subclass gives it.
    func nodeIDs(for objects: [ManagedObject]) -> [ManagedObjectID] {
        objects.map { object in
            guard object.objectID.isTemporaryID else { return object.objectID }
            return objectID(for: object.entity, withReferenceObject: newReferenceObject(for: object))
        }
    }

    /// Permanent IDs for objects known by ID only: unused integer references.
    func nodeIDs(for ids: [ManagedObjectID]) -> [ManagedObjectID] {
        ids.map { id in
            guard id.isTemporaryID else { return id }
            return objectID(for: id.entity, withReferenceObject: AnyHashable(references.unusedKey(root: id.entity.rootEntity)))
        }
    }

    /// Applies a save to the nodes, then has the subclass write them; a failed write leaves the
    /// nodes as they were.
    func saveNodes(_ changes: SaveChanges) throws -> [ManagedObjectID] {
        let conflicts = (changes.updated + changes.deleted).filter { nodesByID[$0.id]?.version != $0.version }.map(\.id)
        if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
        var objects: [ManagedObjectID: ManagedObject] = [:]
        for object in changes.objects { objects[object.objectID] = object }
        func object(_ snapshot: ObjectSnapshot) throws -> ManagedObject {
            guard let object = objects[snapshot.id], !snapshot.id.isTemporaryID else {
                throw PersistenceError.invalidRequest("\(snapshot.id) reached the \(type) store without its object or permanent ID")
            }
            return object
        }
        var undo = Undo()
        do {
            // Every new node exists before any is filled in, so relationships among new objects
            // find their destinations' nodes.
            for snapshot in changes.inserted {
                let node = newCacheNode(for: try object(snapshot))
                undo.added.append(snapshot.id)
                nodesByID[snapshot.id] = node
            }
            for snapshot in changes.inserted {
                guard let node = nodesByID[snapshot.id] else { continue }
                updateCacheNode(node, from: try object(snapshot))
            }
            for snapshot in changes.updated {
                guard let node = nodesByID[snapshot.id] else { continue }
                undo.changed.append((node, node.propertyCache, node.version))
                updateCacheNode(node, from: try object(snapshot))
                node.version += 1
            }
            let gone = changes.deleted.compactMap { nodesByID[$0.id] }
            if !gone.isEmpty { willRemoveCacheNodes(Set(gone)) }
            for node in gone {
                nodesByID[node.objectID] = nil
                undo.removed.append(node)
            }
            try save()
        } catch {
            undo.revert(self)
            throw error
        }
        // Deleted objects related to each other left the store together; their nodes are kept
        // until here only for the undo.
        for node in undo.removed { node.releaseRelatedNodes() }
        return changes.inserted.map(\.id)
    }

    /// What a save changed in the nodes, so a failed write leaves them as they were.
    private struct Undo {
        var added: [ManagedObjectID] = []
        var changed: [(node: AtomicStoreCacheNode, cache: [String: Any]?, version: Int64)] = []
        var removed: [AtomicStoreCacheNode] = []

        func revert(_ store: AtomicStore) {
            for id in added { store.nodesByID[id] = nil }
            for (node, cache, version) in changed.reversed() {
                node.propertyCache = cache
                node.version = version
            }
            for node in removed { store.nodesByID[node.objectID] = node }
        }
    }
}
