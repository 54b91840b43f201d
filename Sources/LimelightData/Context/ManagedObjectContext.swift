import Foundation
import Dispatch

/// A scratch pad of managed objects: it registers objects, tracks their changes, saves them
/// through the coordinator and undoes them.
///
/// A context belongs to one queue. Use it inside `perform`/`performAndWait`, or directly from the
/// thread that owns it (a main-queue context from the main thread, or any context a single-threaded
/// program creates). Objects stay with their context; pass `ManagedObjectID`s between contexts.
public final class ManagedObjectContext: @unchecked Sendable {
    public enum ConcurrencyType: Sendable {
        case privateQueue
        case mainQueue
    }

    public let concurrencyType: ConcurrencyType
    /// The coordinator the context reads and saves through: its own, or its root's for a child.
    /// Setting one makes the context a root (no `parent`).
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { parentContext?.persistentStoreCoordinator ?? ownCoordinator }
        set {
            ownCoordinator = newValue
            if newValue != nil { parentContext = nil }
        }
    }
    /// Records changes for undo; `nil` turns undo off (and saves memory).
    // Read for every value set on a new object: the read skips the run-time exclusivity check
    // (only ever a read or an assignment, on the context's queue).
    @exclusivity(unchecked) public var undoManager: ContextUndoManager? = ContextUndoManager()
    /// How a save settles conflicts: a race lost to another writer, and uniqueness constraints;
    /// `.error` throws. Core Data's property is typed `Any`; here it is a `MergePolicy` (a shared
    /// instance, one made with `MergePolicy(merge:)`, or a subclass).
    public var mergePolicy: MergePolicy = .error
    public var name: String?
    /// Recorded with every save in a store that keeps persistent history, so readers of the
    /// history can tell whose changes they see (their own, an importer's, another program's).
    public var transactionAuthor: String?

    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Every object the context knows; unchanged ones are not kept alive by it. Touched for every
    /// object made and every object gone, without the run-time exclusivity check: no access to it
    /// overlaps another (an object's deinit, which removes it, never runs inside one).
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// Changed objects are held strongly until saved or rolled back. These sets, like the class
    /// caches below, are changed for every object inserted or made: without the run-time
    /// exclusivity check, as no change to them calls out to code that could reach them again.
    @exclusivity(unchecked) var insertedSet: Set<ManagedObject> = []
    @exclusivity(unchecked) var updatedSet: Set<ManagedObject> = []
    @exclusivity(unchecked) var deletedSet: Set<ManagedObject> = []
    /// Changes since the last objects-did-change notification.
    @exclusivity(unchecked) var pendingInserted: Set<ManagedObject> = []
    @exclusivity(unchecked) var pendingUpdated: Set<ManagedObject> = []
    @exclusivity(unchecked) var pendingDeleted: Set<ManagedObject> = []
    /// Problems found while changing values (unknown keys, wrong types), reported by the next save.
    var problems: [ValidationFailure] = []
    var observers: [UUID: (ContextEvent, ContextChanges) -> Void] = [:]
    var ownCoordinator: PersistentStoreCoordinator?
    var parentContext: ManagedObjectContext?
    /// Children that merge this context's saves, and those of their siblings, as they happen.
    var mergingChildren: [WeakContext] = []
    /// Temporary IDs of this context's objects that a child was handed and may still hold.
    var lentIDs: Set<ManagedObjectID> = []
    /// Lent IDs that turned permanent, in order (children read on from where they last read),
    /// and the same by temporary ID.
    var retiredIDs: [(temporary: ManagedObjectID, permanent: ManagedObjectID)] = []
    var retiredIDsByTemporary: [ManagedObjectID: ManagedObjectID] = [:]
    /// How many of the parent's `retiredIDs` this context has taken on.
    var retiredIDsSeen = 0
    /// The query generation the context was asked to read at (`.current` or another's token).
    var requestedGeneration: QueryGenerationToken?
    /// The snapshot the context reads at, once taken.
    var pinnedGeneration: QueryGeneration?
    /// The model's derived attributes and their dependencies, once worked out.
    var derivedPlan: DerivedAttributePlan?
    /// Whether a fault whose object another context or program deleted from the store turns into
    /// a deleted object when it fires (its values empty, `isDeleted` true, left alone by saves),
    /// as Core Data's `shouldDeleteInaccessibleFaults` (default `true`); `false` makes the next
    /// save fail naming the object instead.
    public var shouldDeleteInaccessibleFaults = true
    /// Whether the context has read through a coordinator with an incremental store: from then on
    /// it tells such stores which of their objects it holds (`StoreRegistrations`).
    @exclusivity(unchecked) var readsIncrementalStores = false
    /// IDs registered meanwhile, while a fetch collects them to tell their stores at once.
    var pendingRegistrations: [ManagedObjectID]?
    /// Faults whose store could not give their values, by ID: reported by the next save unless
    /// they fire after all (`fireFault`).
    var unfulfilledFaults: [ManagedObjectID: ValidationFailure] = [:]
    /// What an application keeps with the context, as Core Data's `userInfo`: the framework
    /// neither reads nor changes it.
    public var userInfo: [AnyHashable: Any] = [:]
    /// How old, in seconds, the row a fault was fetched with may be when the fault fires, as Core
    /// Data's `stalenessInterval`: negative (the default) uses it however old it is, 0 never uses
    /// it (every fault reads its store), a positive interval reads the store again for a row
    /// older than that. Rows come with faults a fetch returns (`returnsObjectsAsFaults`; rows
    /// prefetched through relationships count as stale); objects whose values are loaded are not
    /// affected, and a fault without a row (an object refreshed, or made with `object(with:)`)
    /// reads its store whatever the interval.
    public var stalenessInterval: TimeInterval = -1 {
        didSet { if stalenessInterval >= 0 { rowReadTimes.startIfNeeded() } else { rowReadTimes.stop() } }
    }
    /// When fault rows were read, kept while `stalenessInterval` is not negative. Read for every
    /// fault made and fired, without the run-time exclusivity check (no access overlaps another).
    @exclusivity(unchecked) var rowReadTimes = RowReadTimes()
    /// Whether the context keeps every registered object alive (Core Data's
    /// `retainsRegisteredObjects`). By default only objects with unsaved changes are kept, and an
    /// unchanged object goes as soon as nothing else holds it; with `true` every object stays
    /// registered until it leaves the context (deleted and saved, rolled back, reset) or the
    /// property is set back to `false`.
    public var retainsRegisteredObjects: Bool {
        get { retainedObjects != nil }
        set {
            guard newValue != retainsRegisteredObjects else { return }
            retainedObjects = newValue ? Set(registry.allObjects) : nil
        }
    }
    /// The registered objects kept alive while `retainsRegisteredObjects` is on; `nil` when off.
    @exclusivity(unchecked) var retainedObjects: Set<ManagedObject>?
    /// Whether a deleted object's delete rules run before the next save (`true`, the default, as
    /// in Core Data) or only when the context saves (`false`: until then its related objects keep
    /// pointing at it, and cascades wait). Core Data runs them at the end of the event in which
    /// the object was deleted; with no event loop to end an event, they run here as it is deleted.
    // This and the next two are read for every delete or save: without the run-time exclusivity
    // check, as none of their accesses overlaps another.
    @exclusivity(unchecked) public var propagatesDeletesAtEndOfEvent = true
    /// Objects deleted while `propagatesDeletesAtEndOfEvent` was off, whose rules wait for a save.
    @exclusivity(unchecked) var unpropagatedDeletes: [ManagedObject] = []
    /// Objects whose store version is checked by the next save although they are unchanged
    /// (`detectConflicts(for:)`).
    @exclusivity(unchecked) var conflictCheckedObjects: Set<ManagedObject> = []
    /// Snapshot events an undo or redo caused, delivered to the objects when it is done.
    var snapshotEvents: [ObjectIdentifier: (object: ManagedObject, events: SnapshotEventType)] = [:]
    /// Changes announced with `willChangeValue(forKey:)` and not yet ended by `didChangeValue`.
    var openChanges: [OpenChange] = []
    /// Observations of the context's own key paths (`observe(\.hasChanges)`); `nil` while there
    /// are none, so that a change costs a check of it. Read for every object inserted, without
    /// the run-time exclusivity check (no access overlaps another).
    @exclusivity(unchecked) var contextObservers: ContextObservers?
    /// New objects given a store with `assign(_:to:)`, by temporary ID, until they are saved.
    var assignedStores: [ManagedObjectID: PersistentStore] = [:]
    /// What the context's objects hold to reach it.
    let objectReference = ContextReference()
    /// The class made for each entity, as of the class registry's `generation`.
    @exclusivity(unchecked) private var classCache: (generation: UInt64, classes: [ObjectIdentifier: ManagedObject.Type]) = (0, [:])
    /// The last answer of `classCache`: a fetch makes objects of one entity after another.
    @exclusivity(unchecked) private var lastClass: (generation: UInt64, entity: ObjectIdentifier, type: ManagedObject.Type)?

    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .mainQueue: queue = DispatchQueue.main
        case .privateQueue: queue = DispatchQueue(label: "limelight.context")
        }
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        objectReference.context = self
    }

    deinit {
        dropObjectCaches()
        unregisterAll()
        // Objects that outlive the context then read `nil` as their context.
        objectReference.context = nil
    }

    // MARK: Queue confinement

    /// Schedules `block` on the context's queue and returns at once, as Core Data's `perform(_:)`:
    /// for work another thread hands to the context without waiting for it.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }

    /// How `perform(schedule:_:)` runs its block (Core Data's `ScheduledTaskType`).
    public enum ScheduledTaskType: Sendable {
        /// At once when the caller is on the context's queue already, else queued.
        case immediate
        /// Always queued behind the work already on the context's queue.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its result, as Core Data's
    /// `perform(schedule:_:)`: with `.immediate` (the default) a caller already on the queue
    /// (a main-queue context's caller on the main thread) runs it at once.
    // On the caller's executor (`nonsending`), so a caller on the main actor is on a main-queue
    // context's queue here too.
    public nonisolated(nonsending) func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate,
                                                             _ block: @escaping @Sendable () throws -> T) async throws -> T {
        if schedule == .immediate, isOnQueue { return try block() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try block() })
            }
        }
    }

    /// Whether the caller runs on the context's queue (or, for a main-queue context, the main thread).
    private var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) || (concurrencyType == .mainQueue && Thread.isMainThread)
    }

    /// Runs `block` on the context's queue and waits for it; safe to nest, also inside another
    /// context's `performAndWait` that is inside this one's (a child's within its parent's).
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) { return try block() }
        if concurrencyType == .mainQueue, Thread.isMainThread { return try block() }
        if HeldContexts.isHeld(self) { return try block() }
        return try queue.sync { try HeldContexts.holding(self, block) }
    }

    // MARK: Registered objects

    public var insertedObjects: Set<ManagedObject> { insertedSet }
    public var updatedObjects: Set<ManagedObject> { updatedSet }
    public var deletedObjects: Set<ManagedObject> { deletedSet }
    public var hasChanges: Bool { !insertedSet.isEmpty || !updatedSet.isEmpty || !deletedSet.isEmpty }

    public var registeredObjects: Set<ManagedObject> {
        Set(registry.allObjects)
    }

    /// The object registered under `id`, or `nil`.
    public func registeredObject(for id: ManagedObjectID) -> ManagedObject? {
        registry.object(for: id)
    }

    /// The object for `id`: the registered one, else a fault that loads its values when touched.
    public func object(with id: ManagedObjectID) -> ManagedObject {
        if let object = registry.object(for: id) { return object }
        let object = makeObject(entity: id.entity)
        object.objectID = id
        object.managedObjectContext = self
        // A new object is a fault only in a child, where its parent has its values.
        object.faultFlag = !id.isTemporaryID || parentContext != nil
        registry.insertNew(object, id: id)
        if readsIncrementalStores { noteRegistered(object) }
        if retainedObjects != nil { retainedObjects?.insert(object) }
        return object
    }

    /// The objects for `ids`, as `object(with:)` gives each, with room made in the registry for
    /// all of them at once.
    func objects(with ids: some Collection<ManagedObjectID>) -> [ManagedObject] {
        registry.reserve(ids.count)
        return ids.map { object(with: $0) }
    }

    /// The object for `id`, loaded now; throws when it no longer exists.
    public func existingObject(with id: ManagedObjectID) throws -> ManagedObject {
        if let object = registry.object(for: id), !object.faultFlag, !object.inaccessibleFlag { return object }
        guard persistentStoreCoordinator != nil else { throw PersistenceError.noStore("the context has no coordinator") }
        guard let row = try sourceRows(for: [id]).first else { throw PersistenceError.objectNotFound(id) }
        if !unfulfilledFaults.isEmpty { unfulfilledFaults[id] = nil }
        return register(row: row)
    }

    /// Creates an instance of the class registered for the entity.
    func makeObject(entity: EntityDescription) -> ManagedObject {
        objectClass(for: entity).init(entity: entity, insertInto: nil)
    }

    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        let registry = ManagedObjectClassRegistry.shared
        let generation = registry.generation
        let key = ObjectIdentifier(entity)
        if let last = lastClass, last.generation == generation, last.entity == key { return last.type }
        if classCache.generation != generation { classCache = (generation, [:]) }
        let type = classCache.classes[key] ?? registry.objectClass(for: entity)
        classCache.classes[key] = type
        lastClass = (generation, key, type)
        return type
    }

    /// Makes a store row a registered object, keeping local changes of an already registered one.
    /// With `refreshing` (a request's `shouldRefreshRefetchedObjects`), a loaded object takes the
    /// row's values too, its unsaved changes kept on top.
    @discardableResult
    func register(row: StoreRow, asFault: Bool = false, refreshing: Bool = false) -> ManagedObject {
        let object = object(with: row.id)
        take(row, into: object, asFault: asFault, refreshing: refreshing)
        return object
    }

    /// `register(row:asFault:refreshing:)` for the object registered under the row's ID, already at hand.
    func take(_ row: StoreRow, into object: ManagedObject, asFault: Bool = false, refreshing: Bool = false) {
        take(version: row.version, values: row.values, into: object, asFault: asFault, refreshing: refreshing)
    }

    /// `take(_:into:asFault:refreshing:)` for a row's version and values alone, whose object the
    /// caller found without the row's ID (batch faulting).
    func take(version: Int64, values: [StoredValue], into object: ManagedObject, asFault: Bool = false, refreshing: Bool = false) {
        if object.faultFlag && asFault {
            object.cachedRowValues = values
            object.storeVersion = version
        } else if object.faultFlag {
            object.cachedRowValues = nil
            object.values = values
            object.committedValues = values
            object.storeVersion = version
            object.faultFlag = false
            object.awakeFromFetch()
        } else if !object.hasChanges {
            let before = refreshing ? object.valuesBeforeChange : nil
            if refreshing {
                object.values = values
                object.fetchedResults = [:]
            }
            object.committedValues = values
            object.storeVersion = version
            object.reportChanges(since: before)
        } else if refreshing {
            let before = object.valuesBeforeChange
            let committed = object.committedValues
            for slot in object.values.indices where slot < values.count {
                if committed.map({ StoredValue.same($0[slot], object.values[slot]) }) ?? false { object.values[slot] = values[slot] }
            }
            object.committedValues = values
            object.storeVersion = version
            object.reportChanges(since: before)
        }
    }

    /// Empties every registered object's fetched property results and prefetched objects. The
    /// objects hold those strongly, so they can hold each other (a fetched property that finds its
    /// own object, prefetching out and back through an inverse): a cycle that nothing outside
    /// reaches and that would outlive the context. Called when the context lets its objects go.
    func dropObjectCaches() {
        // The objects are held here while their caches go: one that then has no other owner
        // leaves the registry after the loop, not during it.
        let objects = registry.allObjects
        for object in objects where !object.fetchedResults.isEmpty || !object.prefetchedObjects.isEmpty {
            object.fetchedResults = [:]
            object.prefetchedObjects = [:]
        }
    }

    /// Takes a departing object out of the registry.
    func objectDidGo(_ object: ManagedObject) {
        unregister(object)
        if rowReadTimes.isOn { forgetRowRead(of: object) }
    }

    // Out of line: what `stalenessInterval` costs stays out of the paths that do not use it.
    @inline(never) private func forgetRowRead(of object: ManagedObject) { rowReadTimes.forget(object) }

    func recordProblem(_ failure: ValidationFailure) {
        problems.append(failure)
    }

    // MARK: Undo

    public func undo() {
        guard let undoManager else { return }
        undoManager.undo(in: self)
        deliverSnapshotEvents()
        processPendingChanges()
    }

    public func redo() {
        guard let undoManager else { return }
        undoManager.redo(in: self)
        deliverSnapshotEvents()
        processPendingChanges()
    }
}
