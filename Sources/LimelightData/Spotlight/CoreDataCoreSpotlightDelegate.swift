import Foundation
import Logging

/// Describes a store's objects to the Spotlight index in the application's own words, Core Data's
/// `NSCoreDataCoreSpotlightDelegate`: subclass it, override `attributeSet(for:)`, and start it.
///
/// Without a delegate the indexer reads an object's indexed properties from the store itself (or
/// asks an importer program registered for the marker's extension). With one, every save of an
/// object of an entity with indexed properties asks `attributeSet(for:)` on the saving context's
/// queue, and what it returns travels in the object's marker file: the index then holds exactly
/// that (title, description, text, keywords and attributes of the application's own) and shows
/// the hit by its `displayName`. No importer program is needed to shape what search finds.
///
/// ```swift
/// final class RecipeIndexing: CoreDataCoreSpotlightDelegate {
///     override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
///         guard let recipe = object as? Recipe else { return super.attributeSet(for: object) }
///         var set = SearchableItemAttributeSet(displayName: "Recipe: \(recipe.name ?? "")", title: recipe.name)
///         set.textContent = recipe.directions
///         set.keywords = recipe.ingredients.compactMap(\.name)
///         return set
///     }
/// }
/// let indexing = RecipeIndexing(forStoreWith: description, coordinator: coordinator)
/// try indexing.startSpotlightIndexing()
/// ```
///
/// The store must keep marker files (`StoreOption.externalRecordExtension`): they are how saves
/// reach `limelightd`. Core Data asks for persistent history instead; the marker journal is this
/// framework's equivalent. Only saves and batch requests made while the delegate indexes, in its
/// process, carry attribute sets; an object saved or batch-changed by a process without one is
/// indexed from its properties, as before.
open class CoreDataCoreSpotlightDelegate: @unchecked Sendable {
    /// The store the delegate describes, as given.
    public let storeDescription: PersistentStoreDescription
    public private(set) weak var coordinator: PersistentStoreCoordinator?
    private let state = NSLock()
    private var indexing = false
    private var index: URL?
    private let logger = Logger(label: "limelight.spotlight")

    public init(forStoreWith description: PersistentStoreDescription, coordinator: PersistentStoreCoordinator) {
        storeDescription = description
        self.coordinator = coordinator
    }

    /// Whether saves are described to the index by this delegate.
    public var isIndexingEnabled: Bool { state.withLock { indexing } }

    /// The index `deleteSpotlightIndex()` asks limelightd to change; `nil` (the default) is the
    /// user's index, `$XDG_DATA_HOME/limelight/index`, which limelightd keeps unless told otherwise.
    public var indexURL: URL? {
        get { state.withLock { index } }
        set { state.withLock { index = newValue } }
    }

    /// What the index holds of `object`; `nil` keeps the object out of the index altogether.
    ///
    /// Called on the saving context's queue with the object as it is being saved, for every
    /// inserted or changed object of an entity with indexed properties. It may read related
    /// objects. The default describes the object by its indexed properties: the display-name
    /// property (entity user-info `displayNameKey`) or else the first indexed string as title, the
    /// other indexed texts as text content.
    open func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
        SpotlightEntry.defaultAttributeSet(for: object)
    }

    /// Starts describing saves of the store to the index. The first time a delegate indexes a
    /// store, every object already saved is described too (see `reindexAllObjects()`), so the
    /// index does not keep older documents made without it.
    ///
    /// Throws when the coordinator is gone, it has no store at the description's URL, or the store
    /// keeps no marker files.
    public func startSpotlightIndexing() throws {
        let store = try indexedStore()
        let firstTime = !FileManager.default.fileExists(atPath: try SpotlightEntry.flagURL(of: store).path)
        state.withLock { indexing = true }
        store.spotlightDelegate = self
        if firstTime {
            try reindexAllObjects()
            try SpotlightEntry.markIndexed(store)
        }
    }

    /// Stops describing saves; objects saved from now on are indexed from their properties again
    /// (or not at all, while no daemon runs). What is in the index stays.
    public func stopSpotlightIndexing() {
        state.withLock { indexing = false }
        if let store = try? indexedStore(), store.spotlightDelegate === self { store.spotlightDelegate = nil }
    }

    /// Describes every saved object of the store's indexed entities anew and rewrites their
    /// markers, for the index to take: after `attributeSet(for:)` changed what it returns.
    /// Reads the objects in batches through a context of its own.
    public func reindexAllObjects() throws {
        guard isIndexingEnabled else {
            throw PersistenceError.invalidRequest("the Spotlight delegate is not indexing: call startSpotlightIndexing() first")
        }
        let store = try indexedStore()
        guard let coordinator, let journal = store.markerJournal else { return }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        for entity in store.model.entities where MarkerJournal.isMarked(entity) && entity.superentity.map(MarkerJournal.isMarked) != true {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            request.affectedStores = [store]
            let ids = try context.performAndWait { try context.fetchObjectIDs(request) }
            for start in stride(from: 0, to: ids.count, by: SpotlightEntry.reindexBatchSize) {
                let entries: [(ManagedObjectID, Data)] = try context.performAndWait {
                    defer { context.reset() }
                    let objects = try context.loadBatch(ids[start..<min(ids.count, start + SpotlightEntry.reindexBatchSize)],
                                                        prefetching: [], entity: entity)
                    return try objects.map { ($0.objectID, try SpotlightEntry.encode(self.describe($0))) }
                }
                try coordinator.withStores { try journal.journalEntries(entries, store: store) }
            }
        }
        try coordinator.flushExternalRecords()
    }

    /// `attributeSet(for:)`, with a set the index cannot take logged and left out.
    func describe(_ object: ManagedObject) -> SearchableItemAttributeSet? {
        guard let set = attributeSet(for: object) else { return nil }
        if let problem = set.problem() {
            logger.error("Spotlight: \(object.objectID.uriString) is indexed from its properties: \(problem)")
            return SpotlightEntry.defaultAttributeSet(for: object)
        }
        return set
    }

    /// The store at the description's URL, as the coordinator has it.
    func describedStore() throws -> PersistentStore {
        guard let coordinator else {
            throw PersistenceError.invalidRequest("the Spotlight delegate's coordinator is gone")
        }
        guard let url = storeDescription.url, let store = coordinator.persistentStore(for: url) else {
            throw PersistenceError.invalidRequest("the coordinator has no store at \(storeDescription.url?.path ?? "(no URL)")")
        }
        return store
    }

    private func indexedStore() throws -> SQLiteStore {
        let store = try describedStore()
        let url = store.url ?? URL(fileURLWithPath: "/")
        guard let sqlite = store as? SQLiteStore, sqlite.externalRecords != nil else {
            throw PersistenceError.store(path: url.path,
                                         reason: "the store keeps no marker files, which carry what Spotlight indexes: add it with StoreOption.externalRecordExtension")
        }
        guard !sqlite.isReadOnly else {
            throw PersistenceError.store(path: url.path, reason: "the store is read-only: its saves, which the delegate describes, cannot happen")
        }
        return sqlite
    }
}
