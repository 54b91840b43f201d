import Foundation

/// A store that keeps every object in memory and reads and writes its whole file at once, as
/// Core Data's `NSAtomicStore`: the way to give Core Data's object graph a file format of one's
/// own. The XML store is one.
///
/// A subclass reads its file in `load()`, turning each record into a cache node
/// (`objectID(for:withReferenceObject:)`, `AtomicStoreCacheNode`, `addCacheNodes(_:)`), and
/// writes `cacheNodes()` back in `save()`. Between the two the framework does the rest: fetches
/// (predicates and sorting are evaluated in memory), faults, relationships, optimistic locking,
/// and turning each save's objects into nodes (`newCacheNode(for:)`, `updateCacheNode(_:from:)`,
/// which copy every persistent property unless overridden). When `save()` throws, the nodes go
/// back to what they were and the context keeps its changes.
///
/// Register the class for a store type, then add stores of that type:
///
/// ```swift
/// try PersistentStoreCoordinator.registerStoreClass(CSVStore.self, type: CSVStore.storeType)
/// try coordinator.addPersistentStore(type: CSVStore.storeType, at: url)
/// ```
///
/// The store's UUID, part of every object URI, is the metadata's `NSStoreUUID`: a subclass that
/// keeps one sets it with `setMetadata(_:)` in `load()` before making object IDs.
open class AtomicStore: PersistentStore, RegistrableStore, @unchecked Sendable {
    /// Every object's node, by ID.
    var nodesByID: [ManagedObjectID: AtomicStoreCacheNode] = [:]
    var references = ReferenceObjectKeys()

    /// A store of the type this class is registered for, at `url`; `load()` reads it when the
    /// coordinator adds it.
    public required init(persistentStoreCoordinator coordinator: PersistentStoreCoordinator, configurationName: String?,
                         at url: URL, options: [String: any Sendable] = [:]) {
        super.init(registered: Self.self, coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    /// The nodes of related objects hold each other (a relationship and its inverse): only the
    /// store breaks those links, so its nodes go with it.
    deinit {
        for node in nodesByID.values { node.releaseRelatedNodes() }
    }

    // MARK: What subclasses implement

    /// Reads the store's file into cache nodes. Called once, when the store is added; a store
    /// whose file does not exist yet starts empty. Throw to refuse the file, saying what is wrong
    /// with it and where.
    open func load() throws {
        throw PersistenceError.invalidRequest("\(Self.self) does not override load(), which an AtomicStore subclass must")
    }

    /// Writes every node (`cacheNodes()`) and the metadata to the store's file, at the end of
    /// each save. Throw when it cannot: the save fails and nothing changes.
    open func save() throws {
        throw PersistenceError.invalidRequest("\(Self.self) does not override save(), which an AtomicStore subclass must")
    }

    /// The node for an object saved for the first time, its ID already permanent. The default
    /// makes a node and fills it with `updateCacheNode(_:from:)`. Every new object of a save has
    /// its node before any is updated, so relationships among them find each other's nodes.
    open func newCacheNode(for managedObject: ManagedObject) -> AtomicStoreCacheNode {
        let node = AtomicStoreCacheNode(objectID: managedObject.objectID)
        updateCacheNode(node, from: managedObject)
        return node
    }

    /// Brings `node` in line with a saved object. The default copies every persistent property:
    /// attributes as they are, relationships as the destinations' nodes; a to-many the context
    /// never loaded is left as the node has it.
    open func updateCacheNode(_ node: AtomicStoreCacheNode, from managedObject: ManagedObject) {
        var cache = node.propertyCache ?? [:]
        let values = managedObject.values
        for (index, property) in managedObject.entity.properties.enumerated() where !property.isTransient && index < values.count {
            let slot = values[index]
            guard let relationship = property as? RelationshipDescription else {
                cache[property.name] = slot.value
                continue
            }
            if relationship.isToMany {
                guard case .toMany(.loaded(let ids)) = slot else { continue }
                let nodes = ids.compactMap { nodesByID[$0] }
                cache[property.name] = relationship.isOrdered ? nodes as Any : Set(nodes) as Any
            } else {
                cache[property.name] = slot.objectID.flatMap { nodesByID[$0] }
            }
        }
        node.propertyCache = cache
    }

    /// The store's own key for a new object, which `referenceObject(for:)` gives back and a
    /// subclass writes to its file. The default is the next unused integer of the object's
    /// inheritance tree, which also becomes the key in the object's URI.
    open func newReferenceObject(for managedObject: ManagedObject) -> AnyHashable {
        AnyHashable(references.unusedKey(root: managedObject.entity.rootEntity))
    }

    /// Called before nodes of deleted objects leave the store.
    open func willRemoveCacheNodes(_ cacheNodes: Set<AtomicStoreCacheNode>) {}

    /// Reads a store's metadata without adding it, for
    /// `PersistentStoreCoordinator.metadataForPersistentStore(type:at:)`. Subclasses whose files
    /// keep metadata override it.
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

    /// Every object's node.
    public func cacheNodes() -> Set<AtomicStoreCacheNode> {
        Set(nodesByID.values)
    }

    /// Adds nodes read from the file (or replaces those with the same IDs).
    public func addCacheNodes(_ cacheNodes: Set<AtomicStoreCacheNode>) {
        for node in cacheNodes { nodesByID[node.objectID] = node }
    }

    /// The node of the object `objectID` names, if the store has it.
    public func cacheNode(for objectID: ManagedObjectID) -> AtomicStoreCacheNode? {
        nodesByID[objectID]
    }

    /// The ID of the object of `entity` that the store knows by `reference`: the same ID for the
    /// same reference every time.
    public func objectID(for entity: EntityDescription, withReferenceObject reference: AnyHashable) -> ManagedObjectID {
        objectID(entity: entity, primaryKey: references.key(for: reference, root: entity.rootEntity))
    }

    /// The reference the store knows `objectID`'s object by; nil for an ID not of this store.
    public func referenceObject(for objectID: ManagedObjectID) -> AnyHashable? {
        references.reference(for: objectID, of: self)
    }

    /// Replaces the metadata, kept in memory until the next `save()` writes it. Its `NSStoreUUID`
    /// becomes the store's identifier: set it before making object IDs.
    public override func setMetadata(_ metadata: [String: Any]) throws {
        adoptMetadata(metadata)
    }

    /// The nodes in the order of their entities' names and their keys: what writers use so that
    /// the same graph gives the same file.
    public func cacheNodesInKeyOrder() -> [AtomicStoreCacheNode] {
        nodesByID.values.sorted { left, right in
            let (a, b) = (left.objectID, right.objectID)
            if a.entity.name != b.entity.name { return a.entity.name < b.entity.name }
            return (a.primaryKey ?? 0) < (b.primaryKey ?? 0)
        }
    }

    // MARK: The store's side

    override func loadStore() throws {
        try load()
        metadata["NSStoreType"] = type.rawValue
        metadata["NSStoreUUID"] = identifier
    }

    override var evaluatesPredicates: Bool { false }

    override var needsPermanentIDsBeforeSave: Bool { true }

    override func fetchRows(_ fetch: StoreFetch) throws -> [StoreRow] { nodeRows(fetch) }

    override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        ids.compactMap { nodesByID[$0] }.map(row)
    }

    override func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        guard let node = nodesByID[id] else { return [] }
        return Self.destinations(node.propertyCache?[relationship.name], ordered: relationship.isOrdered)
    }

    override func permanentIDs(for objects: [ManagedObject]) throws -> [ManagedObjectID] { nodeIDs(for: objects) }

    override func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] { nodeIDs(for: ids) }

    override func save(_ changes: SaveChanges) throws -> [ManagedObjectID] { try saveNodes(changes) }
}
