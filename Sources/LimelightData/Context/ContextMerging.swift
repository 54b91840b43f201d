import Foundation

/// What a save wrote, by object ID: the form in which one context's save reaches others, across
/// queues and threads (managed objects stay with their context; their IDs travel).
///
/// Arrays, not sets: every save makes one, and the contexts it is handed to only walk the IDs.
/// (The notifications of a save carry sets, as Core Data's do.)
public struct SavedObjectIDs: Sendable, Equatable {
    public var inserted: [ManagedObjectID]
    public var updated: [ManagedObjectID]
    public var deleted: [ManagedObjectID]

    public init(inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ManagedObjectContext {
    /// Whether changes that reach this context's parent are merged into this one as they happen,
    /// on this context's queue (Core Data's `automaticallyMergesChangesFromParent`): for a root
    /// context, saves by the other contexts on its coordinator; for a child, its parent's saves
    /// and its siblings' saves into the parent.
    public var automaticallyMergesChangesFromParent: Bool {
        get {
            guard let parent else { return persistentStoreCoordinator?.mergesChanges(into: self) ?? false }
            return parent.performAndWait { parent.mergingChildren.contains { $0.context === self } }
        }
        set {
            guard let parent else { persistentStoreCoordinator?.setMergesChanges(newValue, into: self); return }
            parent.performAndWait {
                parent.mergingChildren.removeAll { $0.context == nil || $0.context === self }
                if newValue { parent.mergingChildren.append(WeakContext(self)) }
            }
        }
    }

    /// Brings another context's save into this one: objects it updated are refreshed (keeping this
    /// context's unsaved changes on top), objects it deleted leave this context, objects it
    /// inserted are registered, and observers hear of all three as `objectsDidChange`. Takes a
    /// `didSaveObjectIDsNotification` or a `didSaveNotification`. Call it on this context's queue.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        let info = notification.userInfo ?? [:]
        func ids(_ key: NotificationKey, _ earlierKey: String, _ objectKey: NotificationKey) -> [ManagedObjectID] {
            for idKey in [earlierKey, key.rawValue] {
                if let ids = info[idKey] as? [ManagedObjectID] { return ids }
                if let ids = info[idKey] as? Set<ManagedObjectID> { return Array(ids) }
            }
            // The saving context's objects: only their IDs, fixed by the save, are read.
            return (info[objectKey.rawValue] as? Set<ManagedObject>)?.map(\.objectID) ?? []
        }
        merge(SavedObjectIDs(inserted: ids(.insertedObjectIDs, "insertedObjectIDs", .insertedObjects),
                             updated: ids(.updatedObjectIDs, "updatedObjectIDs", .updatedObjects),
                             deleted: ids(.deletedObjectIDs, "deletedObjectIDs", .deletedObjects)))
    }

    /// Brings changes saved elsewhere (another coordinator, another process) into `contexts`, each
    /// on its own queue: `changes` maps `inserted`, `updated` and `deleted` to object IDs or their
    /// URIs, as Core Data's `mergeChanges(fromRemoteContextSave:into:)` takes them.
    /// User info as a notification carries it will do: under `inserted`, `updated`, `deleted` or
    /// their `_objectIDs` forms, arrays or sets of object IDs or their URIs (`URL`s or strings).
    /// Keys are strings, as Core Data's `NSDeletedObjectsKey` and friends are, or
    /// `NotificationKey`s (`[NotificationKey.deletedObjects: ids]`), which name the same.
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        var byName: [String: Any] = [:]
        for (key, value) in changes {
            if let name = key.base as? String { byName[name] = value }
            else if let known = key.base as? NotificationKey { byName[known.rawValue] = value }
        }
        func items(_ keys: [String]) -> [Any] {
            keys.flatMap { key -> [Any] in
                switch byName[key] {
                case let array as [Any]: return array
                case let set as Set<ManagedObjectID>: return Array(set)
                case let set as Set<URL>: return Array(set)
                case let set as Set<String>: return Array(set)
                case let set as NSSet: return set.allObjects
                default: return []
                }
            }
        }
        let inserted = items(["inserted", NotificationKey.insertedObjectIDs.rawValue])
        let updated = items(["updated", NotificationKey.updatedObjectIDs.rawValue])
        let deleted = items(["deleted", NotificationKey.deletedObjectIDs.rawValue])
        for context in contexts {
            context.performAndWait {
                guard let coordinator = context.persistentStoreCoordinator else { return }
                func ids(_ items: [Any]) -> [ManagedObjectID] {
                    items.compactMap { item -> ManagedObjectID? in
                        switch item {
                        case let id as ManagedObjectID: return id
                        case let url as URL: return coordinator.managedObjectID(forURIRepresentation: url)
                        case let text as String: return coordinator.managedObjectID(forURIString: text)
                        default: return nil
                        }
                    }
                }
                context.merge(SavedObjectIDs(inserted: ids(inserted), updated: ids(updated), deleted: ids(deleted)))
            }
        }
    }

    /// Merges `saved` into this context; runs on its queue.
    func merge(_ saved: SavedObjectIDs) {
        guard let coordinator = persistentStoreCoordinator else { return }
        // A merge brings the store's newer state in: a context pinned with `.current` moves on.
        advanceQueryGeneration()
        // IDs another coordinator made name its model's entities: they are this one's by URI.
        func own(_ ids: [ManagedObjectID]) -> [ManagedObjectID] {
            ids.compactMap { id in
                id.entity.managedObjectModel === coordinator.managedObjectModel ? id
                    : coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
            }
        }
        var changes = ContextChanges()
        for id in own(saved.updated) {
            guard let object = registry.object(for: id) else { continue }
            // A fault reads the store when it fires: only a row it kept must go.
            if object.faultFlag {
                object.cachedRowValues = nil
            } else {
                refresh(object, mergeChanges: true)
            }
            changes.updated.insert(object)
        }
        for id in own(saved.deleted) {
            guard let object = registry.object(for: id) else { continue }
            // Gone from the store: it leaves this context as an object deleted here does on save.
            insertedSet.remove(object)
            updatedSet.remove(object)
            deletedSet.remove(object)
            conflictCheckedObjects.remove(object)
            refresh(object, mergeChanges: false, tellingObservers: false)
            unregister(object)
            retainedObjects?.remove(object)
            object.managedObjectContext = nil
            object.deletedFlag = false
            changes.deleted.insert(object)
        }
        for id in own(saved.inserted) where registry.object(for: id) == nil {
            changes.inserted.insert(object(with: id))
        }
        noteContextChange()
        if !changes.isEmpty {
            post(.objectsDidChange, changes)
            NotificationCenter.default.post(name: Self.didMergeChangesObjectIDsNotification, object: self, userInfo: [
                NotificationKey.insertedObjectIDs.rawValue: Set(changes.inserted.map(\.objectID)),
                NotificationKey.updatedObjectIDs.rawValue: Set(changes.updated.map(\.objectID)),
                NotificationKey.deletedObjectIDs.rawValue: Set(changes.deleted.map(\.objectID)),
            ])
        }
    }

    /// Posts `didSaveObjectIDsNotification` for a save.
    func postSavedObjectIDs(_ saved: SavedObjectIDs) {
        NotificationCenter.default.post(name: Self.didSaveObjectIDsNotification, object: self,
                                        userInfo: Self.objectIDsUserInfo(inserted: saved.inserted, updated: saved.updated, deleted: saved.deleted))
    }
}

/// A context kept without keeping it alive: merging stops when it goes.
final class WeakContext: @unchecked Sendable {
    weak var context: ManagedObjectContext?
    init(_ context: ManagedObjectContext) { self.context = context }
}

extension PersistentStoreCoordinator {
    func mergesChanges(into context: ManagedObjectContext) -> Bool {
        lock.withLock { mergingContexts.contains { $0.context === context } }
    }

    func setMergesChanges(_ merges: Bool, into context: ManagedObjectContext) {
        lock.withLock {
            mergingContexts.removeAll { $0.context == nil || $0.context === context }
            if merges { mergingContexts.append(WeakContext(context)) }
        }
    }

    /// Hands a save to every other context merging automatically, each on its own queue and
    /// without waiting (as in Core Data, a merge arrives after the save returns).
    func contextDidSave(_ source: ManagedObjectContext, _ saved: SavedObjectIDs) {
        let targets = lock.withLock { mergingContexts.compactMap(\.context).filter { $0 !== source } }
        guard !targets.isEmpty, !saved.isEmpty else { return }
        for target in targets {
            target.queue.async { target.merge(saved) }
        }
    }
}
