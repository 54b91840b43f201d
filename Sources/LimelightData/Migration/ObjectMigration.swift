import Foundation

extension MigrationManager {
    /// Migrates the store at `sourceURL`, made with `sourceModel`, object by object with `mappings`
    /// into a new SQLite store at `dURL` made with `destinationModel`, Core Data's
    /// `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`.
    /// `nil` mappings: the inferred mapping model.
    ///
    /// The source store is opened read-only and never written. The destination is built in a
    /// temporary file beside `dURL` and moved there only once every stage ran and the objects
    /// saved (validated against the destination model); any error (from a policy, a value
    /// expression, `cancelMigrationWithError(_:)`, `progress`, the save) removes it and is thrown
    /// as `MigrationError.mappingFailed` or `.failed`. To migrate a store in place, migrate to
    /// another URL, then `coordinator.replacePersistentStore(at: old, withPersistentStoreFrom: new)`
    /// and `destroyPersistentStore(at: new)`, as with Core Data; `addPersistentStore` does it by
    /// itself given `StoreOption.mappingModels`.
    ///
    /// Memory: entity mappings run one after the other, each fetching its own source objects, which
    /// the source context releases once nothing holds them. What stays until the end is every
    /// destination object (in `destinationContext`, saved once, as Core Data's migration saves) and
    /// the associations (source object IDs to destination objects). A store too large for that is
    /// migrated in several passes, as with Core Data: one mapping model per group of entities.
    ///
    /// Differences from Core Data: the destination must not exist yet (Core Data would add to
    /// it), and must be an SQLite store; marker files and remote-change options are not applied
    /// to it, only `timeout`, `sqlitePragmas` and `persistentHistoryTracking`.
    public func migrateStore(from sourceURL: URL, sourceType: StoreType = .sqlite, options sourceOptions: [String: any Sendable]? = nil,
                             with mappings: MappingModel?, toDestinationURL dURL: URL, destinationType: StoreType = .sqlite,
                             destinationOptions: [String: any Sendable]? = nil) throws {
        guard destinationType == .sqlite else {
            throw MigrationError.notAllowed(path: dURL.path, reason: "an object-level migration writes SQLite stores, not \(destinationType.rawValue)")
        }
        guard FileManager.default.fileExists(atPath: sourceURL.path) else { throw MigrationError.failed(path: sourceURL.path, reason: "no such store") }
        guard sourceURL.standardizedFileURL != dURL.standardizedFileURL else {
            throw MigrationError.notAllowed(path: dURL.path, reason: "the destination is the source store: migrate to another URL, then replace the store")
        }
        guard !FileManager.default.fileExists(atPath: dURL.path) else {
            throw MigrationError.notAllowed(path: dURL.path, reason: "a file exists at the destination; an object-level migration writes a new store")
        }
        try Self.resolveIfEditable(sourceModel)
        try Self.resolveIfEditable(destinationModel)
        let mapping = try mappings ?? MappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        let problems = mapping.problems(sourceModel: sourceModel, destinationModel: destinationModel)
        guard problems.isEmpty else { throw MigrationError.unmappable(path: sourceURL.path, changes: problems) }
        mappingModel = mapping
        let folder = dURL.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(dURL.deletingPathExtension().lastPathComponent).migrating-\(UUID().uuidString).\(dURL.pathExtension)")
        // Opening a store read-only leaves SQLite's empty log files behind: the source is to
        // look exactly as it did.
        let sideFiles = ["-wal", "-shm"].map { sourceURL.path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        defer {
            finishObjectMigration()
            let log = (try? FileManager.default.attributesOfItem(atPath: sourceURL.path + "-wal"))?[.size] as? NSNumber
            if sideFiles.count == 2, log?.intValue ?? 0 == 0 { for file in sideFiles { try? FileManager.default.removeItem(atPath: file) } }
        }
        do {
            try runStages(mapping, from: sourceURL, type: sourceType, options: sourceOptions ?? [:], into: temporary, options: destinationOptions ?? [:])
            try progress?("move the new store into place")
            try Self.moveStore(from: temporary, to: dURL)
            migrationProgress = 1
        } catch {
            Self.removeStoreFiles(at: temporary)
            if error is MigrationError { throw error }
            throw MigrationError.failed(path: sourceURL.path, reason: "\(error)")
        }
    }

    /// The same migration under the newer name Core Data gives it,
    /// `migrateStore(from:type:options:mapping:to:type:options:)`.
    public func migrateStore(from sourceURL: URL, type sourceType: StoreType, options sourceOptions: [String: any Sendable]? = nil,
                             mapping: MappingModel, to destinationURL: URL, type destinationType: StoreType,
                             options destinationOptions: [String: any Sendable]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType, options: sourceOptions, with: mapping,
                         toDestinationURL: destinationURL, destinationType: destinationType, destinationOptions: destinationOptions)
    }

    /// Migrates the SQLite store at `url` with `mapping` into a new file beside it, then puts that
    /// file in its place (atomically, as a lightweight migration does); on any failure the store
    /// is as it was. The store keeps its UUID (its marker files stay where they are, rebuilt for
    /// the new objects) and what the application recorded in its metadata. What
    /// `addPersistentStore` does given `StoreOption.mappingModels`; the store must not be added to
    /// a coordinator meanwhile. `nil` mapping: the inferred one, run object by object.
    public func migrateStore(at url: URL, with mapping: MappingModel?, options: [String: any Sendable] = [:]) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent).mapped-\(UUID().uuidString).\(url.pathExtension)")
        do {
            let metadata = try SQLiteStore.readMetadata(at: url)
            try migrateStore(from: url, options: options, with: mapping, toDestinationURL: temporary, destinationOptions: options)
            try Self.carryOver(metadata, to: temporary)
            try progress?("replace the store")
            try SQLiteMigrator.replace(storeAt: url, with: temporary)
        } catch {
            Self.removeStoreFiles(at: temporary)
            throw error
        }
    }

    /// Gives the store at `url` the old store's UUID and the metadata keys only the old one has
    /// (the application's); the new store's own keys (model hashes and the like) stay.
    private static func carryOver(_ old: [String: Any], to url: URL) throws {
        guard let uuid = old["NSStoreUUID"] as? String else { return }
        var metadata = old.merging(try SQLiteStore.readMetadata(at: url)) { _, new in new }
        metadata["NSStoreUUID"] = nil
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        defer { db.close() }
        try db.run("UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1",
                   [.text(uuid), .blob(try PropertyListWriter.data(metadata, format: .binary))])
    }

    /// The three stages, with both stores open; the stores are closed again before it returns.
    private func runStages(_ mapping: MappingModel, from sourceURL: URL, type: StoreType, options: [String: any Sendable],
                           into temporary: URL, options destinationOptions: [String: any Sendable]) throws {
        let kept = [StoreOption.timeout, StoreOption.sqlitePragmas]
        var readOptions = options.filter { kept.contains($0.key) }
        readOptions[StoreOption.readOnly] = true
        let sourceCoordinator = try PersistentStoreCoordinator(managedObjectModel: sourceModel)
        do {
            try sourceCoordinator.addPersistentStore(type: type, at: sourceURL, options: readOptions)
        } catch {
            throw MigrationError.failed(path: sourceURL.path, reason: "cannot open the store with the source model: \(error)")
        }
        defer { for store in sourceCoordinator.persistentStores { sourceCoordinator.remove(store) } }
        // Bytes a transformer cannot decode read as nil elsewhere; a migration would copy that nil
        // into the store that replaces this one, losing them, so here they stop it, named.
        for case let store as SQLiteStore in sourceCoordinator.persistentStores { store.refusesUndecodableValues = true }
        let destinationCoordinator = try PersistentStoreCoordinator(managedObjectModel: destinationModel)
        let writeOptions = destinationOptions.filter { (kept + [StoreOption.persistentHistoryTracking]).contains($0.key) }
        try destinationCoordinator.addPersistentStore(type: .sqlite, at: temporary, options: writeOptions)
        defer { for store in destinationCoordinator.persistentStores { destinationCoordinator.remove(store) } }
        let source = ManagedObjectContext(concurrencyType: .privateQueue)
        source.persistentStoreCoordinator = sourceCoordinator
        let destination = ManagedObjectContext(concurrencyType: .privateQueue)
        destination.persistentStoreCoordinator = destinationCoordinator
        destination.undoManager = nil
        sourceContext = source
        destinationContext = destination
        migrationProgress = 0

        let mappings = mapping.entityMappings
        let steps = Float(3 * mappings.count + 1)
        var policies: [EntityMigrationPolicy] = []
        for (index, entityMapping) in mappings.enumerated() {
            let policy = entityMapping.entityMigrationPolicy?.init() ?? EntityMigrationPolicy()
            policy.entityMappingName = entityMapping.name
            policies.append(policy)
            try stage("create instances", entityMapping, of: sourceURL.path, at: Float(index) / steps) {
                try policy.begin(entityMapping, with: self)
                let objects = try sourceObjects(of: entityMapping, policy: policy)
                for (number, object) in objects.enumerated() {
                    try policy.createDestinationInstances(forSource: object, in: entityMapping, manager: self)
                    try checkCancellation()
                    migrationProgress = (Float(index) + Float(number + 1) / Float(objects.count)) / steps
                }
                try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
            }
        }
        for (index, entityMapping) in mappings.enumerated() {
            let policy = policies[index]
            try stage("create relationships", entityMapping, of: sourceURL.path, at: Float(mappings.count + index) / steps) {
                let made = destinationInstances(forEntityMappingName: entityMapping.name, sourceInstances: nil)
                for (number, object) in made.enumerated() {
                    try policy.createRelationships(forDestination: object, in: entityMapping, manager: self)
                    try checkCancellation()
                    migrationProgress = (Float(mappings.count + index) + Float(number + 1) / Float(made.count)) / steps
                }
                try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
            }
        }
        for (index, entityMapping) in mappings.enumerated() {
            let policy = policies[index]
            try stage("validate", entityMapping, of: sourceURL.path, at: Float(2 * mappings.count + index) / steps) {
                try policy.performCustomValidation(forMapping: entityMapping, manager: self)
                try policy.end(entityMapping, manager: self)
            }
        }
        currentEntityMapping = nil
        migrationProgress = Float(3 * mappings.count) / steps
        try progress?("save the migrated objects")
        do {
            try destination.save()
        } catch {
            throw MigrationError.failed(path: sourceURL.path, reason: "the migrated objects cannot be saved: \(error)")
        }
    }

    /// Runs one stage of one entity mapping; its errors name both.
    private func stage(_ name: String, _ mapping: EntityMapping, of path: String, at progressValue: Float, _ body: () throws -> Void) throws {
        currentEntityMapping = mapping
        migrationProgress = max(migrationProgress, progressValue)
        do {
            try progress?("\(name) \(mapping.name)")
            try checkCancellation()
            try body()
            try checkCancellation()
        } catch {
            throw MigrationError.mappingFailed(path: path, entityMapping: mapping.name, stage: name, error: cancellation ?? error)
        }
    }

    private func checkCancellation() throws {
        if let cancellation { throw cancellation }
    }

    /// The source objects a mapping migrates: its source expression's, or every object of exactly
    /// its source entity. Added and removed entities have none.
    private func sourceObjects(of mapping: EntityMapping, policy: EntityMigrationPolicy) throws -> [ManagedObject] {
        guard mapping.mappingType != .add, mapping.mappingType != .remove, let context = sourceContext else { return [] }
        guard let expression = mapping.sourceExpression else {
            guard let name = mapping.sourceEntityName else { return [] }
            let request = FetchRequest<ManagedObject>(entityName: name)
            request.includesSubentities = false
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }
        let value = try evaluate(expression, source: nil, policy: policy, mapping: mapping, property: nil)
        if let request = value as? FetchRequest<ManagedObject> { return try context.fetch(request) }
        if let object = value as? ManagedObject { return [object] }
        guard let items = PredicateValues.elements(value) else {
            throw MappingValueError("\(mapping.name): the source expression \(expression) gave \(PredicateValues.describe(value)), not source objects")
        }
        return items.compactMap { $0 as? ManagedObject }
    }

    /// Forgets the finished (or failed) migration's contexts, objects and associations.
    private func finishObjectMigration() {
        sourceContext = nil
        destinationContext = nil
        currentEntityMapping = nil
        currentPropertyMapping = nil
        associations = MigrationAssociations()
        mappingCache = [:]
        cancellation = nil
    }

    /// Moves a closed store and its support folder to `destination`, which does not exist yet.
    static func moveStore(from temporary: URL, to destination: URL) throws {
        let manager = FileManager.default
        try manager.moveItem(at: temporary, to: destination)
        // Closing the store normally folds its log into the file; one left over goes along.
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: temporary.path + suffix) {
            try manager.moveItem(atPath: temporary.path + suffix, toPath: destination.path + suffix)
        }
        for (from, to) in zip(SQLiteStoreFiles.supportFolders(temporary), SQLiteStoreFiles.supportFolders(destination))
        where manager.fileExists(atPath: from.path) {
            try? manager.removeItem(at: to)
            try manager.moveItem(at: from, to: to)
        }
    }

    static func removeStoreFiles(at url: URL) {
        for file in SQLiteStoreFiles.databaseFiles(url) + SQLiteStoreFiles.supportFolders(url) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
