import Foundation

/// A store that answers each request as it comes, from whatever keeps the data (a web service,
/// another database, a file format read piece by piece), as Core Data's `NSIncrementalStore`.
///
/// A subclass implements:
/// - `loadMetadata()`: reads or makes the store's metadata (`setMetadata(_:)` with at least
///   `NSStoreUUID`) when the store is added;
/// - `execute(_:with:)`: a `FetchRequest<FetchRequestResult>` answered with the matching objects' IDs
///   (`[ManagedObjectID]`, in the request's order, the predicate, sorting and paging applied by
///   the store), the count (`Int`) for `.count` results, or `[[String: Any]]` for `.dictionary`
///   results; a `SaveChangesRequest` written all at once, or a thrown error;
/// - `newValuesForObject(with:with:)`: one object's values, as an `IncrementalStoreNode`;
/// - `newValue(forRelationship:forObjectWith:with:)`: a to-many the node left out (or a to-one).
///
/// Objects are known by the store's reference objects (`newObjectID(for:referenceObject:)`,
/// `referenceObject(for:)`); new ones get theirs from `obtainPermanentIDs(for:)` before their save
/// reaches the store. Register the class for a store type of its own, as for `AtomicStore`.
///
/// Departures from Core Data: a fetch is answered with IDs, not with managed objects, and the
/// context arguments are nil (the framework makes the objects in the asking context itself); the
/// values of fetched objects are asked for at once, not when each fault fires.
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

    /// Answers a fetch or writes a save (see the class's description for what to return).
    open func execute(_ request: any PersistentStoreRequest, with context: ManagedObjectContext?) throws -> Any {
        throw PersistenceError.invalidRequest("\(Self.self) does not override execute(_:with:), which an IncrementalStore subclass must")
    }

    /// The saved values of one object; throw when the store does not have it.
    open func newValuesForObject(with objectID: ManagedObjectID, with context: ManagedObjectContext?) throws -> IncrementalStoreNode {
        throw PersistenceError.invalidRequest("\(Self.self) does not override newValuesForObject(with:with:), which an IncrementalStore subclass must")
    }

    /// One relationship of one object: a `ManagedObjectID` or nil for a to-one, an array or set
    /// of IDs for a to-many.
    open func newValue(forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID,
                       with context: ManagedObjectContext?) throws -> Any? {
        throw PersistenceError.invalidRequest("\(Self.self) does not override newValue(forRelationship:forObjectWith:with:), which an IncrementalStore subclass must")
    }

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

    override func fetchRows(_ fetch: StoreFetch) throws -> [StoreRow] {
        try fetchIDs(fetch).map(row)
    }

    override func fetchIDs(_ fetch: StoreFetch) throws -> [ManagedObjectID] {
        try ids(in: execute(request(fetch, as: .managedObjectID), with: nil), for: fetch)
    }

    override func fetchCount(_ fetch: StoreFetch) throws -> Int {
        switch try execute(request(fetch, as: .count), with: nil) {
        case let count as Int: return count
        case let counts as [Int]: return counts.first ?? 0
        case let other: return try ids(in: other, for: fetch).count
        }
    }

    override func fetchDictionaries(_ fetch: StoreFetch) throws -> [[String: Any]] {
        guard let rows = try execute(request(fetch, as: .dictionary), with: nil) as? [[String: Any]] else {
            throw PersistenceError.invalidRequest("\(type) store: execute(_:with:) answered a dictionary fetch of \(fetch.entity.name) with no [[String: Any]]")
        }
        return rows
    }

    override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        try ids.map(row)
    }

    override func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        let value = try newValue(forRelationship: relationship, forObjectWith: id, with: nil)
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
        _ = try execute(SaveChangesRequest(inserting: inserted, updating: updated, deleting: deleted), with: nil)
        return changes.inserted.map(\.id)
    }
}
