import Foundation

/// A store that answers each request as it comes, from whatever keeps the data (a web service,
/// another database, a file format read piece by piece), as Core Data's `NSIncrementalStore`.
///
/// A subclass implements:
/// - `loadMetadata()`: reads or makes the store's metadata (`setMetadata(_:)` with at least
///   `NSStoreUUID`) when the store is added;
/// - `execute(_:with:)`: a `FetchRequest<FetchRequestResult>` answered (the predicate, sorting and paging applied by
///   the store, in the request's order) with the matching objects, made with
///   `context.object(with:)` as in Core Data, or just their IDs (`[ManagedObjectID]`): either way
///   they reach the application as faults; the count (`Int`) for `.count` results, the IDs for
///   `.managedObjectID` results, `[[String: Any]]` for `.dictionary` results; a
///   `SaveChangesRequest` written all at once, or a thrown error;
/// - `newValuesForObject(with:with:)`: one object's values, as an `IncrementalStoreNode`, asked
///   for when the object's fault fires (a property is first read), and again only after the
///   object was refreshed. Throw `PersistenceError.objectNotFound` for an object the store no
///   longer has;
/// - `newValue(forRelationship:forObjectWith:with:)`: a relationship the node left out, asked for
///   when that relationship is first used (a to-many) or when the object's fault fires (a to-one).
///
/// Every `context` argument is the context that asks, as in Core Data. A context tells the store
/// which objects it holds, with `managedObjectContextDidRegisterObjects(with:)` and
/// `managedObjectContextDidUnregisterObjects(with:)`, so the store can count who needs which
/// records. A save first asks `newValuesForObject` for each changed and deleted object: a node
/// whose `version` differs from the one the object was read at is a conflict, settled by the
/// context's merge policy as for any store.
///
/// Objects are known by the store's reference objects (`newObjectID(for:referenceObject:)`,
/// `referenceObject(for:)`); new ones get theirs from `obtainPermanentIDs(for:)` before their save
/// reaches the store. Register the class for a store type of its own, as for `AtomicStore`.
///
/// Departures from Core Data:
/// - a fault whose values the store cannot give (it throws) does not raise an exception: the
///   object stays a fault with empty values, asked for again when touched, and until it loads the
///   context's next save fails naming it and the store's error (`existingObject(with:)` and
///   `fireFaults(_:)` throw that error at once); `PersistenceError.objectNotFound` makes it an
///   inaccessible fault, as a row gone from an SQLite store (`shouldDeleteInaccessibleFaults`);
/// - a to-one the node leaves out is asked for when the object's fault fires, not when the
///   relationship is first read (Core Data discourages leaving them out);
/// - relationships named in `relationshipKeyPathsForPrefetching` are read at fetch time, with the
///   values of the objects they reach;
/// - objects a child context holds only through its parent's unsaved changes are not announced.
open class IncrementalStore: PersistentStore, RegistrableStore, @unchecked Sendable {
    var references = ReferenceObjectKeys()

    /// A store of the type this class is registered for, at `url`; `loadMetadata()` is called
    /// when the coordinator adds it.
    public required init(persistentStoreCoordinator coordinator: PersistentStoreCoordinator, configurationName: String?,
                         at url: URL, options: [String: any Sendable] = [:]) {
        super.init(registered: Self.self, coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    // MARK: What subclasses implement

    /// Reads or makes the store's metadata; throw to refuse the store.
    open func loadMetadata() throws {
        throw PersistenceError.invalidRequest("\(Self.self) does not override loadMetadata(), which an IncrementalStore subclass must")
    }

    /// Answers a fetch or writes a save for `context` (see the class's description for what to
    /// return).
    open func execute(_ request: any PersistentStoreRequest, with context: ManagedObjectContext?) throws -> Any {
        throw PersistenceError.invalidRequest("\(Self.self) does not override execute(_:with:), which an IncrementalStore subclass must")
    }

    /// The saved values of one object, asked for when its fault fires in `context`; throw
    /// `PersistenceError.objectNotFound` when the store does not have it.
    open func newValuesForObject(with objectID: ManagedObjectID, with context: ManagedObjectContext?) throws -> IncrementalStoreNode {
        throw PersistenceError.invalidRequest("\(Self.self) does not override newValuesForObject(with:with:), which an IncrementalStore subclass must")
    }

    /// One relationship of one object: a `ManagedObjectID` or nil for a to-one, an array or set
    /// of IDs for a to-many.
    open func newValue(forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
                       with context: ManagedObjectContext?) throws -> Any? {
        throw PersistenceError.invalidRequest("\(Self.self) does not override newValue(forRelationship:forObjectWith:with:), which an IncrementalStore subclass must")
    }

    /// Called when a context starts holding objects of the store: once per object and context, the
    /// objects of one fetch in one call. With `managedObjectContextDidUnregisterObjects(with:)`, a
    /// store can count who holds each record; does nothing unless overridden.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [ManagedObjectID]) {}

    /// Called when a context lets go of objects it registered (released, deleted and saved, reset,
    /// or the context gone; not when they merely turn into faults); does nothing unless
    /// overridden.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [ManagedObjectID]) {}

    /// Permanent IDs for new objects, before their save reaches `execute(_:with:)`. The default
    /// gives each the next unused integer reference of its inheritance tree.
    open func obtainPermanentIDs(for array: [ManagedObject]) throws -> [ManagedObjectID] {
        array.map { object in
            guard object.objectID.isTemporaryID else { return object.objectID }
            let root = object.entity.rootEntity
            return newObjectID(for: object.entity, referenceObject: AnyHashable(references.unusedKey(root: root)))
        }
    }

    /// The UUID a new store gets, for subclasses that make their metadata in `loadMetadata()`.
    open class func identifierForNewStore(at storeURL: URL) -> String {
        UUID().uuidString
    }

    /// Reads a store's metadata without adding it; subclasses that can, override it.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw PersistenceError.invalidRequest("\(Self.self) does not read metadata without loading the store")
    }

    /// Replaces the metadata of the store at `url` without adding it, for
    /// `PersistentStoreCoordinator.setMetadata(_:forPersistentStoreOfType:at:)`. Subclasses whose
    /// files keep metadata override it.
    open class func setMetadata(_ metadata: [String: Any], forPersistentStoreAt url: URL) throws {
        throw PersistenceError.invalidRequest("\(Self.self) does not write metadata without loading the store")
    }

    // MARK: What subclasses call

    /// The ID of the object of `entity` that the store knows by `reference`: the same ID for the
    /// same reference every time.
    public func newObjectID(for entity: EntityDescription, referenceObject reference: AnyHashable) -> ManagedObjectID {
        objectID(entity: entity, primaryKey: references.key(for: reference, root: entity.rootEntity))
    }

    /// The reference the store knows `objectID`'s object by; nil for an ID not of this store.
    public func referenceObject(for objectID: ManagedObjectID) -> AnyHashable? {
        references.reference(for: objectID, of: self)
    }

    /// Replaces the metadata; its `NSStoreUUID` becomes the store's identifier (set it in
    /// `loadMetadata()`, before making object IDs).
    public override func setMetadata(_ metadata: [String: Any]) throws {
        adoptMetadata(metadata)
    }

    // MARK: The store's side

    override func loadStore() throws {
        try loadMetadata()
        guard let uuid = metadata["NSStoreUUID"] as? String, !uuid.isEmpty else {
            throw PersistenceError.store(path: url?.path ?? "\(type) store", reason: "loadMetadata() set no NSStoreUUID in the store's metadata")
        }
        metadata["NSStoreType"] = metadata["NSStoreType"] ?? type.rawValue
    }

    override var needsPermanentIDsBeforeSave: Bool { true }
    override var fetchesFaults: Bool { true }

    /// The context whose request the store is serving, handed to the subclass's methods.
    var askingContext: ManagedObjectContext? { persistentStoreCoordinator?.askingContext }

    override func fetchFaults(_ fetch: StoreFetch, into context: ManagedObjectContext) throws -> [ManagedObject] {
        try objects(in: execute(request(fetch, as: .managedObject), with: context), for: fetch, into: context)
    }

    override func fetchRows(_ fetch: StoreFetch) throws -> [StoreRow] {
        let context = askingContext
        return try fetchIDs(fetch).compactMap { try row($0, context: context) }
    }

    override func fetchIDs(_ fetch: StoreFetch) throws -> [ManagedObjectID] {
        try ids(in: execute(request(fetch, as: .managedObjectID), with: askingContext), for: fetch)
    }

    override func fetchCount(_ fetch: StoreFetch) throws -> Int {
        switch try execute(request(fetch, as: .count), with: askingContext) {
        case let count as Int: return count
        case let counts as [Int]: return counts.first ?? 0
        case let other: return try ids(in: other, for: fetch).count
        }
    }

    override func fetchDictionaries(_ fetch: StoreFetch) throws -> [[String: Any]] {
        guard let rows = try execute(request(fetch, as: .dictionary), with: askingContext) as? [[String: Any]] else {
            throw PersistenceError.invalidRequest("\(type) store: execute(_:with:) answered a dictionary fetch of \(fetch.entity.name) with no [[String: Any]]")
        }
        return rows
    }

    /// The rows of a fault or faults firing: one `newValuesForObject` each; an object the store
    /// says it no longer has has no row, as a row gone from an SQLite store.
    override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        let context = askingContext
        return try ids.compactMap { try row($0, context: context) }
    }

    override func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        let value = try newValue(forRelationship: relationship, forObjectWith: id, with: askingContext)
        return relationship.isToMany ? Self.destinations(value) : Self.destination(value).map { [$0] } ?? []
    }

    override func permanentIDs(for objects: [ManagedObject]) throws -> [ManagedObjectID] {
        try obtainPermanentIDs(for: objects)
    }

    override func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        ids.map { id in
            guard id.isTemporaryID else { return id }
            return newObjectID(for: id.entity, referenceObject: AnyHashable(references.unusedKey(root: id.entity.rootEntity)))
        }
    }

    override func save(_ changes: SaveChanges) throws -> [ManagedObjectID] {
        var inserted: Set<ManagedObject> = [], updated: Set<ManagedObject> = [], deleted: Set<ManagedObject> = []
        let insertedIDs = Set(changes.inserted.map(\.id)), deletedIDs = Set(changes.deleted.map(\.id))
        for object in changes.objects {
            if insertedIDs.contains(object.objectID) {
                inserted.insert(object)
            } else if deletedIDs.contains(object.objectID) {
                deleted.insert(object)
            } else {
                updated.insert(object)
            }
        }
        let context = askingContext
        try checkVersions(of: changes, context: context)
        _ = try execute(SaveChangesRequest(inserting: inserted, updating: updated, deleting: deleted), with: context)
        return changes.inserted.map(\.id)
    }
}
