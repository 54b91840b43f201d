import Foundation

/// Migrates stores from one model version to another, Core Data's `NSMigrationManager`.
///
/// Two ways: `migrateStore(at:)` migrates an SQLite store in place with the inferred
/// (lightweight) mapping, in SQL; `migrateStore(from:sourceType:options:with:toDestinationURL:
/// destinationType:destinationOptions:)` migrates object by object with any mapping model,
/// entity migration policies and value expressions included (a "heavyweight" migration), into a
/// new store. Use it directly to migrate explicitly (and to show the mapping first), or let the
/// coordinator do it: `addPersistentStore` with `StoreOption.migratePersistentStoresAutomatically`,
/// the model versions in `StoreOption.migrationSourceModels`, and either
/// `StoreOption.inferMappingModelAutomatically` or mapping models in `StoreOption.mappingModels`.
///
/// One manager runs one migration at a time, on the calling thread; it is not `Sendable`.
public final class MigrationManager {
    /// The version the store was made with.
    public let sourceModel: ManagedObjectModel
    /// The version the store moves to.
    public let destinationModel: ManagedObjectModel
    /// The mapping: the inferred one until an object-level migration runs with another.
    public internal(set) var mappingModel: MappingModel
    /// Called with the name of each step before it runs ("copy Car", "replace the store" …);
    /// throwing from it cancels the migration and leaves the store as it was.
    public var progress: ((String) throws -> Void)?
    /// While an object-level migration runs: a context on the source store (opened read-only).
    public internal(set) var sourceContext: ManagedObjectContext?
    /// While an object-level migration runs: the context the destination objects are made in,
    /// saved once at the end.
    public internal(set) var destinationContext: ManagedObjectContext?
    /// How far the object-level migration is, from 0 to 1 (1 once it has finished); read it in
    /// `progress`, which is called at every step, as Core Data's is observed.
    public internal(set) var migrationProgress: Float = 0
    /// The entity mapping being run, while an object-level migration runs.
    public internal(set) var currentEntityMapping: EntityMapping?
    /// Whatever the application keeps here for its policies.
    public var userInfo: [AnyHashable: Any]?
    /// The property mapping whose value expression is being evaluated.
    var currentPropertyMapping: PropertyMapping?
    var associations = MigrationAssociations()
    var cancellation: (any Error)?
    /// Each entity mapping's attribute and relationship mappings, split once per migration.
    var mappingCache: [String: (attributes: [PropertyMapping], relationships: [PropertyMapping])] = [:]

    /// Infers the mapping between the two versions; nothing is written yet.
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) throws {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        mappingModel = try MappingModel(inferringFrom: sourceModel, to: destinationModel)
    }

    /// Migrates the SQLite store at `url`, made with the source model, to the destination model.
    /// When the mapping has unmappable changes, throws `MigrationError.unmappable` listing them
    /// all and the file is not touched; any other failure also leaves the old store in place.
    public func migrateStore(at url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MigrationError.failed(path: url.path, reason: "no such store")
        }
        guard mappingModel.unmappableChanges.isEmpty else {
            throw MigrationError.unmappable(path: url.path, changes: mappingModel.unmappableChanges)
        }
        try SQLiteStore.checkHeader(url.path)
        guard FileManager.default.isWritableFile(atPath: url.path) else {
            throw MigrationError.failed(path: url.path, reason: "the store file is not writable")
        }
        try Self.resolveIfEditable(destinationModel)
        var migrator = SQLiteMigrator(storeURL: url, source: sourceModel, destination: destinationModel, mapping: mappingModel)
        migrator.progress = progress
        try migrator.migrate()
    }

    /// Whether the store at `url` was made with a model other than `model`, by its version hashes.
    public static func storeNeedsMigration(at url: URL, for model: ManagedObjectModel) throws -> Bool {
        let metadata = try SQLiteStore.readMetadata(at: url)
        try resolveIfEditable(model)
        return !model.isRecorded(in: metadata["NSStoreModelVersionHashes"] as? [String: Data])
    }

    /// The model among `candidates` the store at `url` was made with.
    ///
    /// The store's version hashes decide: Core Data's, which this framework computes alike, or
    /// those earlier versions of this framework wrote. A Core Data store whose hashes no candidate
    /// has (a model with features that hash differently here) is matched by its version identifier
    /// (`NSStoreModelVersionIdentifiers`), and failing that by the one model whose entities, tables
    /// and columns are exactly the store's.
    public static func sourceModel(forStoreAt url: URL, among candidates: [ManagedObjectModel]) throws -> ManagedObjectModel? {
        let metadata = try SQLiteStore.readMetadata(at: url)
        for candidate in candidates { try resolveIfEditable(candidate) }
        if let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Data],
           let match = candidates.first(where: { $0.isRecorded(in: hashes) }) {
            return match
        }
        if metadata["LimelightVersion"] != nil { return nil }
        let identifiers = Set(metadata["NSStoreModelVersionIdentifiers"] as? [String] ?? [])
        if !identifiers.isEmpty {
            let matches = candidates.filter { $0.versionIdentifiers == identifiers }
            if matches.count == 1 { return matches[0] }
        }
        let fitting = try candidates.filter { try SQLiteSchemaCheck.fitsExactly(model: $0, storeAt: url) }
        return fitting.count == 1 ? fitting[0] : nil
    }

    /// The model the store keeps of itself (`Z_MODELCACHE`), when it is the one the store's hashes
    /// name: what Core Data's lightweight migration falls back on when no version given made it.
    static func cachedSourceModel(ofStoreAt url: URL) -> ManagedObjectModel? {
        guard let metadata = try? SQLiteStore.readMetadata(at: url),
              let cached = try? ManagedObjectModel(cachedInStoreAt: url),
              cached.isRecorded(in: metadata["NSStoreModelVersionHashes"] as? [String: Data]) else { return nil }
        return cached
    }

    static func resolveIfEditable(_ model: ManagedObjectModel) throws {
        // A frozen model is resolved already and shared between threads: leave it alone.
        if model.isEditable { try model.resolve() }
    }

    /// What `addPersistentStore` does before opening an SQLite store when automatic migration is
    /// on: nothing when the store fits, a migration when it does not. Returns whether it migrated.
    static func migrateIfNeeded(storeAt url: URL, to destination: ManagedObjectModel, options: [String: any Sendable]) throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path),
              let metadata = try? SQLiteStore.readMetadata(at: url), !metadata.isEmpty else { return false }
        if destination.isRecorded(in: metadata["NSStoreModelVersionHashes"] as? [String: Data]) { return false }
        let writtenHere = metadata["LimelightVersion"] != nil
        let candidates = options[StoreOption.migrationSourceModels] as? [ManagedObjectModel] ?? []
        guard let source = try sourceModel(forStoreAt: url, among: candidates + [destination]) ?? cachedSourceModel(ofStoreAt: url) else {
            guard writtenHere else { return false } // Core Data's hashes: the open path compares tables instead.
            throw MigrationError.noSourceModel(path: url.path, reason: candidates.isEmpty
                ? "the store was made with another model version; give the versions in StoreOption.migrationSourceModels"
                : "none of the \(candidates.count) model versions given has the store's version hashes")
        }
        let manager = try MigrationManager(sourceModel: source, destinationModel: destination)
        // A Core Data store made with this very model keeps Apple's hashes: nothing to rewrite.
        if source === destination || (!writtenHere && manager.mappingModel.isIdentity) { return false }
        if let mapping = MappingModel(from: options[StoreOption.mappingModels] as? [MappingModel] ?? [],
                                      forSourceModel: source, destinationModel: destination) {
            try manager.migrateStore(at: url, with: mapping, options: options)
            return true
        }
        guard options[StoreOption.inferMappingModelAutomatically] as? Bool == true else {
            throw MigrationError.notAllowed(path: url.path, reason: "the store was made with another model version and needs migrating; "
                + "set StoreOption.inferMappingModelAutomatically to infer the mapping, or give one in StoreOption.mappingModels")
        }
        try manager.migrateStore(at: url)
        return true
    }
}

extension PersistentStoreCoordinator {
    /// Migrates the SQLite store at `url` to this coordinator's model, from whichever of
    /// `versions` the store was made with; returns the mapping used (empty when the store
    /// already fit). The store must not be added to a coordinator while it migrates.
    @discardableResult
    public func migratePersistentStore(at url: URL, from versions: [ManagedObjectModel]) throws -> MappingModel {
        if persistentStore(for: url) != nil {
            throw MigrationError.notAllowed(path: url.path, reason: "the store is added to this coordinator; remove it before migrating")
        }
        if try !MigrationManager.storeNeedsMigration(at: url, for: managedObjectModel) {
            return MappingModel(entityMappings: [], unmappableChanges: [])
        }
        guard let source = try MigrationManager.sourceModel(forStoreAt: url, among: versions) ?? MigrationManager.cachedSourceModel(ofStoreAt: url) else {
            throw MigrationError.noSourceModel(path: url.path, reason: "none of the \(versions.count) model versions given made this store, and it keeps no model of its own")
        }
        let manager = try MigrationManager(sourceModel: source, destinationModel: managedObjectModel)
        try lock.withLock { try manager.migrateStore(at: url) }
        return manager.mappingModel
    }
}
