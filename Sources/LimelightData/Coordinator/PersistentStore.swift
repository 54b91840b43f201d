import Foundation

/// Option keys for `addPersistentStore(type:configuration:at:options:)`, Core Data's names.
public enum StoreOption {
    /// Open without writing anything (`NSReadOnlyPersistentStoreOption`).
    public static let readOnly = "NSReadOnlyPersistentStoreOption"
    /// Keeps persistent history: every save recorded as a transaction of changes, in Core Data's
    /// tables (`NSPersistentHistoryTrackingKey`). A store that already has history keeps it
    /// without being asked.
    public static let persistentHistoryTracking = "NSPersistentHistoryTrackingKey"
    /// Turns marker files on: the file extension for this store's markers, e.g. `"recipe"`.
    public static let externalRecordExtension = "NSExternalRecordExtensionOption"
    /// Where marker files go (a path or file URL); default: a support folder next to the store.
    public static let externalRecordsDirectory = "NSExternalRecordsDirectoryOption"
    /// `"xml"` or `"binary"`: the property-list format of marker files.
    public static let externalRecordsFileFormat = "NSExternalRecordsFileFormatOption"
    /// Folder to register the store's records root in (default `$XDG_STATE_HOME/limelight/roots`),
    /// for applications and tests that keep their own registry.
    public static let recordsRegistryDirectory = "LimelightRecordsRegistryDirectory"
    /// `true`: a store made with another version of the model is migrated when it is added
    /// (`NSMigratePersistentStoresAutomaticallyOption`). Needs `inferMappingModelAutomatically`.
    public static let migratePersistentStoresAutomatically = "NSMigratePersistentStoresAutomaticallyOption"
    /// `true`: the mapping of an automatic migration is inferred (a lightweight migration,
    /// `NSInferMappingModelAutomaticallyOption`).
    public static let inferMappingModelAutomatically = "NSInferMappingModelAutomaticallyOption"
    /// `[ManagedObjectModel]`: the model versions a store may have been made with, e.g.
    /// `ManagedObjectModel.loadVersions(inBundle:)`; the store's version hashes pick the source.
    public static let migrationSourceModels = "LimelightMigrationSourceModels"
    /// A `StagedMigrationManager` whose stages bring a store made with an earlier model version
    /// to the coordinator's model when it is added (`NSPersistentStoreStagedMigrationManagerOptionKey`).
    /// It asks for the migration by itself: the two options above are not needed, and
    /// `migrationSourceModels` gives the models its lightweight stages name by checksum.
    public static let stagedMigrationManager = "NSPersistentStoreStagedMigrationManagerOptionKey"
    /// `true`: the coordinator posts `Notification.Name.persistentStoreRemoteChange` when another
    /// coordinator or process commits to the store (Core Data's
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`); SQLite stores only.
    public static let remoteChangeNotificationPost = "NSPersistentStoreRemoteChangeNotificationOptionKey"
    /// Path of the model file to copy into the support folder for readers without the app.
    public static let modelSourcePath = "LimelightModelSourcePath"
    /// `true`: `save()` returns only after the marker files of the save are written and flushed.
    /// Default `false`: a background writer per store writes them after `save()` returns (the
    /// work is journaled in the save's transaction, so nothing is lost); readers that need the
    /// files call `PersistentStoreCoordinator.flushExternalRecords()`.
    public static let externalRecordsWrittenSynchronously = "LimelightExternalRecordsWrittenSynchronously"
    /// How long, in seconds (a number), an SQLite store waits for another connection's lock
    /// before a read or write fails (`NSPersistentStoreTimeoutOption`); 5 when not given.
    public static let timeout = "NSPersistentStoreTimeoutOption"
    /// `[String: Any]`: SQLite pragmas run on the store's connection when it is opened, after the
    /// store's own (`NSSQLitePragmasOption`), e.g. `["synchronous": "NORMAL", "cache_size": -8000]`.
    /// Values are numbers or strings. `journal_mode` other than `WAL` keeps query generations from
    /// pinning the store.
    public static let sqlitePragmas = "NSSQLitePragmasOption"
    /// `true`: the SQLite store runs `ANALYZE` when it is added, so SQLite plans queries from
    /// fresh statistics (`NSSQLiteAnalyzeOption`).
    public static let sqliteAnalyze = "NSSQLiteAnalyzeOption"
    /// `true`: the SQLite store is rebuilt with `VACUUM` when it is added, giving free pages back
    /// (`NSSQLiteManualVacuumOption`).
    public static let sqliteManualVacuum = "NSSQLiteManualVacuumOption"

    /// A folder or file option given as a URL or as a path.
    static func url(_ value: (any Sendable)?) -> URL? {
        switch value {
        case let url as URL: url
        case let path as String: URL(fileURLWithPath: path)
        default: nil
        }
    }
}

/// A stored row: what a store knows of one object, before it becomes a managed object.
struct StoreRow {
    let id: ManagedObjectID
    let version: Int64
    /// One slot per property of the row's entity: attribute values, to-one IDs, to-many `.fault`.
    var values: [StoredValue]
}

/// One object as a save hands it to the store.
struct ObjectSnapshot {
    let id: ManagedObjectID
    let values: [StoredValue]
    /// The version the object was read at (`Z_OPT`), checked for optimistic locking.
    let version: Int64
    /// For updates: slots whose value changed since the last save.
    let changed: [Int]
    /// For updates: the values as last saved, so a to-many's join rows are written as a change
    /// (the rows added and removed) rather than all over again.
    var committedValues: [StoredValue]? = nil
}

/// Who made a save, as persistent history records it: the context's `transactionAuthor` and name.
struct SaveOrigin {
    var author: String?
    var contextName: String?
}

/// Everything one save writes, in one store transaction.
struct SaveChanges {
    var inserted: [ObjectSnapshot] = []
    var updated: [ObjectSnapshot] = []
    var deleted: [ObjectSnapshot] = []
    var origin = SaveOrigin()
    /// What a store's Core Spotlight delegate made of the inserted and updated objects, by the
    /// snapshot's ID (a new object's temporary one): an encoded `SpotlightEntry`.
    var spotlightEntries: [ManagedObjectID: Data] = [:]
    /// Unchanged objects whose versions must still be those they were read at
    /// (`detectConflicts(for:)`), for stores that check them in their write
    /// (`checksLockedVersionsInSave`); nothing is written for them.
    var locked: [ObjectSnapshot] = []
    /// The inserted, updated and deleted objects themselves, for stores that make their records
    /// from the objects (`needsPermanentIDsBeforeSave`: custom stores); empty for the others.
    var objects: [ManagedObject] = []
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Where objects are kept. The coordinator talks to stores through this class; subclasses are the
/// SQLite store, the in-memory store and `AtomicStore`, whose subclasses (the XML store, and an
/// application's own formats) keep every object in memory and read and write a whole file.
///
/// Open only so that `AtomicStore` can be: its initializer is the framework's own, so other
/// subclasses go through `AtomicStore`.
open class PersistentStore: @unchecked Sendable {
    public let type: StoreType
    /// Where the store is; an atomic store's changes with `setURL(_:for:)` on its coordinator.
    public internal(set) var url: URL?
    public let configurationName: String?
    public let options: [String: any Sendable]
    /// The store's UUID (`NSStoreUUID`), part of every object URI.
    public internal(set) var identifier: String {
        get { reference.identifier }
        set {
            // IDs made before name the old identifier, which is no longer this store's.
            reference.detach()
            reference = StoreReference(identifier: newValue)
            reference.attach(self)
        }
    }
    /// What this store's object IDs hold of it.
    private(set) var reference: StoreReference
    public internal(set) var metadata: [String: Any] = [:]
    public var isReadOnly: Bool { options[StoreOption.readOnly] as? Bool ?? false }
    let model: ManagedObjectModel
    /// The coordinator the store was added to.
    public internal(set) weak var persistentStoreCoordinator: PersistentStoreCoordinator?
    private let spotlightLock = NSLock()
    private var indexingDelegate: CoreDataCoreSpotlightDelegate?
    /// The Core Spotlight delegate describing this store's objects to the index, while it indexes.
    var spotlightDelegate: CoreDataCoreSpotlightDelegate? {
        get { spotlightLock.withLock { indexingDelegate } }
        set { spotlightLock.withLock { indexingDelegate = newValue } }
    }

    init(type: StoreType, url: URL?, configurationName: String?, options: [String: any Sendable], model: ManagedObjectModel) {
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.model = model
        self.reference = StoreReference(identifier: UUID().uuidString)
        reference.attach(self)
    }

    /// A store of a registered class (atomic or incremental): its type is the one the class is
    /// registered for, or the class's name.
    init(registered storeClass: any RegistrableStore.Type, coordinator: PersistentStoreCoordinator,
         configurationName: String?, url: URL, options: [String: any Sendable]) {
        self.type = StoreClassRegistry.shared.type(of: storeClass) ?? StoreType(rawValue: String(describing: storeClass))
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.model = coordinator.managedObjectModel
        self.reference = StoreReference(identifier: UUID().uuidString)
        self.persistentStoreCoordinator = coordinator
        reference.attach(self)
    }

    /// Whether `fetchRows` applies the request's predicate itself; when not, the context does.
    var evaluatesPredicates: Bool { true }
    /// Whether new objects must have permanent IDs before a save reaches the store, and the save
    /// must carry the objects themselves (`SaveChanges.objects`): atomic stores hand both to
    /// their subclasses' hooks.
    var needsPermanentIDsBeforeSave: Bool { false }

    func loadStore() throws {}
    func close() {}

    func fetchRows(_ request: StoreFetch) throws -> [StoreRow] { [] }
    /// `fetchRows`, handing over each row as it is read; a store that reads row by row (SQLite)
    /// overrides it, so a large fetch builds no array of rows and each row is still in the cache
    /// when it becomes an object.
    func fetchRows(_ request: StoreFetch, each body: (StoreRow) throws -> Void) throws {
        for row in try fetchRows(request) { try body(row) }
    }
    func fetchCount(_ request: StoreFetch) throws -> Int { try fetchRows(request).count }
    func fetchDictionaries(_ request: StoreFetch) throws -> [[String: Any]] {
        throw PersistenceError.invalidRequest("dictionary results are not supported by \(type.rawValue) stores")
    }
    /// Only the IDs of the matching objects, in the request's order; no values are read.
    func fetchIDs(_ request: StoreFetch) throws -> [ManagedObjectID] { try fetchRows(request).map(\.id) }
    /// Whether a fetch is answered with objects of the asking context that are faults, each asking
    /// the store for its values when it fires (`fetchFaults`), rather than with rows: incremental
    /// stores, as in Core Data.
    var fetchesFaults: Bool { false }
    /// For a store that `fetchesFaults`: the matching objects, in the request's order, registered
    /// in `context`.
    func fetchFaults(_ request: StoreFetch, into context: ManagedObjectContext) throws -> [ManagedObject] {
        context.objects(with: try fetchIDs(request))
    }
    func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] { [] }
    /// The saved object of `entity`'s inheritance tree whose `properties` hold `values` (a
    /// uniqueness constraint's), if there is one. Stores that do not keep constraints say none.
    func row(of entity: EntityDescription, matching properties: [PropertyDescription], values: [StoredValue]) throws -> StoreRow? { nil }
    /// The positions of those `values` that saved objects of `entity`'s tree hold in
    /// `attribute`; `nil` when the store cannot tell for all at once (ask `row` for each).
    func heldPositions(of entity: EntityDescription, attribute: AttributeDescription, among values: [StoredValue]) throws -> Set<Int>? { nil }
    /// `rows(for:)`, handing over each row as it is read (see `fetchRows(_:each:)`).
    func rows(for ids: [ManagedObjectID], each body: (StoreRow) throws -> Void) throws {
        for row in try rows(for: ids) { try body(row) }
    }
    /// For prefetching a to-many: the destination IDs per owner and the destinations' rows. Stores
    /// that can answer for all owners at once (SQLite: one query per relationship) override this.
    func relatedRows(_ relationship: RelationshipDescription, owners: [ManagedObjectID]) throws
        -> (related: [ManagedObjectID: [ManagedObjectID]], rows: [StoreRow]) {
        var related: [ManagedObjectID: [ManagedObjectID]] = [:]
        for owner in owners { related[owner] = try relatedIDs(of: owner, relationship: relationship) }
        return (related, try rows(for: Array(Set(related.values.joined()))))
    }
    func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] { [] }
    /// The rows of the objects on the other end of one object's to-many, handed over one by one:
    /// what batch faulting reads when it fires a relationship's faults all at once.
    func relatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, each body: (StoreRow) throws -> Void) throws {
        for row in try relatedRows(relationship, owners: [id]).rows { try body(row) }
    }
    /// `relatedRows(of:relationship:each:)` for batch faulting, whose caller holds the members'
    /// IDs (`members`, as `relatedIDs` listed them): each row comes with its member's position in
    /// `members` instead of an ID of its own, and rows of objects that are no member are left out.
    func relatedRows(of id: ManagedObjectID, relationship: RelationshipDescription, members: [ManagedObjectID],
                     each body: (_ position: Int, _ version: Int64, _ values: [StoredValue]) throws -> Void) throws {
        var positions = MemberPositions(members, store: reference)
        try relatedRows(of: id, relationship: relationship) { row in
            guard let key = row.id.primaryKey, let position = positions.position(of: key, rootIdentity: row.id.entity.rootIdentity) else { return }
            try body(position, row.version, row.values)
        }
    }
    /// Whether `save(_:)` checks `SaveChanges.locked` in its own transaction: a store other
    /// processes write to (SQLite) must, where the coordinator's lock covers every other writer.
    var checksLockedVersionsInSave: Bool { false }
    /// The IDs among `locked` whose row is gone or has another version than the one given.
    func versionConflicts(among locked: [ObjectSnapshot]) throws -> [ManagedObjectID] {
        let versions = Dictionary(try rows(for: locked.map(\.id)).map { ($0.id, $0.version) }, uniquingKeysWith: { first, _ in first })
        return locked.filter { versions[$0.id] != $0.version }.map(\.id)
    }
    /// Writes one save atomically; returns the permanent ID of each of `changes.inserted`, in
    /// order (by position, so a save of many new objects needs no dictionary of IDs).
    func save(_ changes: SaveChanges) throws -> [ManagedObjectID] { changes.inserted.map(\.id) }
    /// Reserves primary keys for new objects without saving them: the permanent ID of each of
    /// `ids`, in order (an ID already permanent is handed back as it is).
    func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] { ids }
    /// `obtainPermanentIDs(for:)` for the objects themselves, which stores that ask the object
    /// for its key (atomic stores) need.
    func permanentIDs(for objects: [ManagedObject]) throws -> [ManagedObjectID] {
        try obtainPermanentIDs(for: objects.map(\.objectID))
    }

    /// Saves the metadata dictionary (SQLite: `Z_METADATA`).
    public func setMetadata(_ metadata: [String: Any]) throws {
        self.metadata = metadata
    }

    /// Takes `metadata` as the store's, and its `NSStoreUUID` as the store's identifier: what
    /// custom stores do when they read their metadata, before any object ID is made.
    func adoptMetadata(_ metadata: [String: Any]) {
        self.metadata = metadata
        if let uuid = metadata["NSStoreUUID"] as? String, !uuid.isEmpty { identifier = uuid }
    }

    /// Waits until the marker files of every earlier save to this store are written and flushed;
    /// throws why not (e.g. the records folder is unusable; the work then stays journaled). Does
    /// nothing for a store without markers.
    public func flushExternalRecords() throws {}

    func objectID(entity: EntityDescription, primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, store: reference, primaryKey: primaryKey)
    }
}
