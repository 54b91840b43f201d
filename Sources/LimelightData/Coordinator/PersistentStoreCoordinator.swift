import Foundation

/// Connects contexts to stores: it owns the model and routes fetches, faults and saves to the store
/// each object lives in.
///
/// Stores are serialized by the coordinator's lock, so any number of contexts on any threads may
/// share one coordinator.
public final class PersistentStoreCoordinator: @unchecked Sendable {
    public let managedObjectModel: ManagedObjectModel
    /// The stores added, in order. Read under the lock, as stores are added and removed on any
    /// thread while contexts on others route their fetches and saves.
    public var persistentStores: [PersistentStore] { lock.withLock { stores } }
    /// What `persistentStores` reads; under the lock.
    private var stores: [PersistentStore] = []
    /// A name for the coordinator, for the application's own use (Core Data's `name`).
    public var name: String? {
        get { lock.withLock { storedName } }
        set { lock.withLock { storedName = newValue } }
    }
    private var storedName: String?
    let lock = NSRecursiveLock()
    /// Where `perform(_:)` runs its blocks, one at a time.
    let queue = DispatchQueue(label: "limelight.coordinator")
    /// Contexts that merge every other context's saves (`automaticallyMergesChangesFromParent`).
    var mergingContexts: [WeakContext] = []
    /// Watchers of the stores added with `StoreOption.remoteChangeNotificationPost`, by store.
    var remoteChangeWatchers: [ObjectIdentifier: StoreFileWatcher] = [:]
    /// Whether an `IncrementalStore` is among the stores: only then do reads name the asking
    /// context and contexts tell stores which objects they hold. Under the lock.
    private(set) var hasIncrementalStores = false
    /// The context whose read or save the stores are serving, while one is (under the lock): what
    /// an incremental store hands its subclass as `context`.
    var askingContext: ManagedObjectContext?

    /// Uses `model`, which becomes immutable, and is one of the models `ManagedObject.entity()`
    /// looks in while it exists.
    public init(managedObjectModel model: ManagedObjectModel) throws {
        try model.freeze()
        self.managedObjectModel = model
        ModelsInUse.shared.add(model)
    }

    /// Opens or creates a store and adds it. `options` takes `StoreOption` keys; `nil`, as Core
    /// Data code often passes, is none.
    @discardableResult
    public func addPersistentStore(type: StoreType, configuration: String? = nil, at url: URL? = nil,
                                   options: [String: any Sendable]? = nil) throws -> PersistentStore {
        let options = options ?? [:]
        if type != .sqlite, options[StoreOption.externalRecordExtension] != nil {
            throw PersistenceError.invalidRequest("marker files are kept for SQLite stores only, not for \(type) stores")
        }
        let store: PersistentStore
        if type == .sqlite {
            guard let url else { throw PersistenceError.invalidRequest("an SQLite store needs a file URL") }
            store = SQLiteStore(url: url, configurationName: configuration, options: options, model: managedObjectModel)
        } else if type == .inMemory {
            store = InMemoryStore(url: url, configurationName: configuration, options: options, model: managedObjectModel)
        } else if let storeClass = StoreClassRegistry.shared.storeClass(for: type) {
            guard let url else { throw PersistenceError.invalidRequest("a store of type \(type) needs a file URL") }
            if persistentStore(for: url) != nil {
                throw PersistenceError.store(path: url.path, reason: "the store is added to this coordinator already")
            }
            store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        } else {
            throw PersistenceError.invalidRequest("no store class is registered for store type \(type); "
                + "see PersistentStoreCoordinator.registerStoreClass(_:type:)")
        }
        store.persistentStoreCoordinator = self
        try lock.withLock {
            var migrated = false
            if type == .sqlite, let url, !store.isReadOnly {
                if let staged = options[StoreOption.stagedMigrationManager] {
                    guard let staged = staged as? StagedMigrationManager else {
                        throw PersistenceError.invalidRequest("StoreOption.stagedMigrationManager takes a StagedMigrationManager, not \(Swift.type(of: staged))")
                    }
                    migrated = try staged.migrateStore(at: url, to: managedObjectModel, options: options)
                } else if options[StoreOption.migratePersistentStoresAutomatically] as? Bool == true {
                    migrated = try MigrationManager.migrateIfNeeded(storeAt: url, to: managedObjectModel, options: options)
                }
            }
            try store.loadStore()
            // Entities may have been renamed or removed: bring the markers in line with the store.
            if migrated, store.externalRecordsConfiguration != nil {
                do {
                    _ = try store.rebuildExternalRecords()
                } catch {
                    store.close()
                    throw error
                }
            }
            stores.append(store)
            hasIncrementalStores = hasIncrementalStores || store is IncrementalStore
        }
        if options[StoreOption.remoteChangeNotificationPost] as? Bool == true {
            do {
                try watchForRemoteChanges(store)
            } catch {
                remove(store)
                throw error
            }
        }
        postStoresDidChange(added: [store], removed: [])
        return store
    }

    /// Finishes pending marker work: a process that saved and lets the coordinator go has its
    /// markers on disk.
    deinit {
        for watcher in remoteChangeWatchers.values { watcher.stop() }
        for store in stores { store.drainExternalRecords() }
    }

    /// Waits until the marker files of every save made before the call are on disk and durable.
    ///
    /// Why it exists: `save()` journals marker work and returns; a background writer per store
    /// writes the files soon after. A caller that hands markers to someone else (a tool about to
    /// exit, a test, an indexer run right after a save) calls this first. Throws when a records
    /// folder cannot be written; the work then stays journaled and a later pass or the next open
    /// finishes it.
    public func flushExternalRecords() throws {
        let stores = lock.withLock { persistentStores }
        for store in stores { try store.flushExternalRecords() }
    }

    /// Removes a store after finishing its pending marker work, and closes it. Observers hear of
    /// it before (`willRemoveStoreNotification`) and after (`storesDidChangeNotification`).
    public func remove(_ store: PersistentStore) {
        let isMine = lock.withLock { persistentStores.contains { $0 === store } }
        if isMine { NotificationCenter.default.post(name: Self.willRemoveStoreNotification, object: store) }
        lock.withLock {
            remoteChangeWatchers.removeValue(forKey: ObjectIdentifier(store))?.stop()
            store.close()   // closing finishes the store's pending marker work first
            stores.removeAll { $0 === store }
            hasIncrementalStores = stores.contains { $0 is IncrementalStore }
            // Its IDs name no store from now on (`ManagedObjectID.persistentStore`).
            if isMine { store.reference.detach() }
        }
        if isMine { postStoresDidChange(added: [], removed: [store]) }
    }

    public func persistentStore(for url: URL) -> PersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The ID named by an `x-coredata://` URI, if it belongs to one of this coordinator's stores.
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        managedObjectID(for: try? ManagedObjectID.parse(uri: uri))
    }

    /// `managedObjectID(forURIRepresentation:)` for a URI held as text, without making a `URL` of it.
    public func managedObjectID(forURIString text: String) -> ManagedObjectID? {
        managedObjectID(for: try? ManagedObjectID.parse(uriString: text))
    }

    private func managedObjectID(for parts: ManagedObjectID.URIParts?) -> ManagedObjectID? {
        guard let parts,
              let store = persistentStores.first(where: { $0.identifier == parts.storeIdentifier }),
              let entity = managedObjectModel.entity(named: parts.entityName) else { return nil }
        return store.objectID(entity: entity, primaryKey: parts.primaryKey)
    }

    /// Reads a store's metadata without adding it. `options` are accepted for Core Data's
    /// signature; reading metadata needs none of them.
    public static func metadataForPersistentStore(type: StoreType, at url: URL, options: [String: any Sendable]? = nil) throws -> [String: Any] {
        if type == .sqlite { return try SQLiteStore.readMetadata(at: url) }
        if let storeClass = StoreClassRegistry.shared.storeClass(for: type) { return try storeClass.metadataForPersistentStore(with: url) }
        return [:]
    }

    // MARK: Routing

    func store(for id: ManagedObjectID) throws -> PersistentStore {
        // An ID made by another coordinator names an entity of another model: its rows cannot be
        // read through this one's schema, so say how to translate it instead of "not found".
        guard id.entity.managedObjectModel === managedObjectModel else {
            throw PersistenceError.invalidRequest("\(id) belongs to another coordinator's model; "
                + "translate it with managedObjectID(forURIRepresentation:) on this coordinator")
        }
        if let storeID = id.storeIdentifier, let store = persistentStores.first(where: { $0.identifier == storeID }) {
            return store
        }
        throw PersistenceError.noStore("the store of \(id) is not added to this coordinator")
    }

    /// The store new objects of `entity` are saved into: the first whose configuration has it.
    func store(forNew entity: EntityDescription) throws -> PersistentStore {
        let candidates = persistentStores.filter { !$0.isReadOnly }
        if let match = candidates.first(where: { store in
            managedObjectModel.entities(forConfiguration: store.configurationName).contains { $0 === entity }
        }) { return match }
        throw PersistenceError.noStore("no writable store takes entity \(entity.name)")
    }

    func stores(for request: FetchSpecification) -> [PersistentStore] {
        request.affectedStores.isEmpty ? persistentStores : request.affectedStores
    }

    func withStores<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }
}
