import Foundation

/// Migrates a store through a sequence of stages, Core Data's `NSStagedMigrationManager`: given
/// to `addPersistentStore` under `StoreOption.stagedMigrationManager`.
///
/// The store's model version is found among the stages' models by its version hashes (as
/// `MigrationManager.sourceModel(forStoreAt:among:)` finds it), and the stages run in order from
/// there: a `LightweightMigrationStage` migrates by inferred mapping; a `CustomMigrationStage`
/// runs its `willMigrateHandler` on the store at its source model, migrates by inferred mapping,
/// then runs its `didMigrateHandler` on the store at its destination model. While a handler runs,
/// `container` is a container open on the store at that model.
///
/// Each migration is all or nothing (`MigrationManager` builds the new file beside the old one),
/// so a failure leaves the store at the model of the last step completed, never half written:
/// a `willMigrateHandler` that throws leaves it at the stage's source model, with what the handler
/// saved before throwing; a `didMigrateHandler` that throws, at the stage's destination model.
/// The error, `MigrationError.stageFailed`, names the stage and what went wrong. A store at the
/// coordinator's model already runs no stage and no handler.
///
/// ```swift
/// let split = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2),
///                                  to: ManagedObjectModelReference(model: v3))
/// split.didMigrateHandler = { manager, _ in /* fill the new attributes with manager.container?.viewContext */ }
/// let manager = StagedMigrationManager([LightweightMigrationStage([v1.versionChecksum]), split])
/// try coordinator.addPersistentStore(type: .sqlite, at: url, options: [
///     StoreOption.stagedMigrationManager: manager, StoreOption.migrationSourceModels: [v1]])
/// ```
///
/// One manager runs one migration at a time; a second store given the same manager waits.
public final class StagedMigrationManager: @unchecked Sendable {
    /// The stages, in the order a store goes through them.
    public let stages: [MigrationStage]
    /// While a handler runs: a container on the store, at the stage's source model in
    /// `willMigrateHandler` and its destination model in `didMigrateHandler`. `nil` otherwise.
    public private(set) var container: PersistentContainer?
    private let running = NSLock()

    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }

    /// What `addPersistentStore` does with this manager before opening the SQLite store at `url`:
    /// nothing for a new store or one at `destination` already, else every stage from the store's
    /// model on. Returns whether the store was migrated.
    func migrateStore(at url: URL, to destination: ManagedObjectModel, options: [String: any Sendable]) throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path),
              let metadata = try? SQLiteStore.readMetadata(at: url), !metadata.isEmpty else { return false }
        if destination.isRecorded(in: metadata["NSStoreModelVersionHashes"] as? [String: Data]) { return false }
        return try running.withLock {
            let plan = try StagedMigrationPlan(stages: stages, storeAt: url, destination: destination,
                                               sourceModels: options[StoreOption.migrationSourceModels] as? [ManagedObjectModel] ?? [])
            var reached = plan.storeModel.versionChecksum
            for step in plan.steps {
                switch step {
                case .inferred(let name, let from, let to):
                    try migrate(url, from: from, to: to, stage: name, reached: reached)
                    reached = to.versionChecksum
                case .custom(let stage, let name, let from, let to):
                    if let handler = stage.willMigrateHandler {
                        try run(handler, of: stage, named: name, onStoreAt: url, model: from, options: options, reached: reached)
                    }
                    try migrate(url, from: from, to: to, stage: name, reached: reached)
                    reached = to.versionChecksum
                    if let handler = stage.didMigrateHandler {
                        try run(handler, of: stage, named: name, onStoreAt: url, model: to, options: options, reached: reached)
                    }
                }
            }
            return !plan.steps.isEmpty
        }
    }

    /// One migration by inferred mapping, the same as a lightweight migration's.
    private func migrate(_ url: URL, from: ManagedObjectModel, to: ManagedObjectModel, stage: String, reached: String) throws {
        guard from.versionChecksum != to.versionChecksum else { return }
        do {
            try MigrationManager(sourceModel: from, destinationModel: to).migrateStore(at: url)
        } catch {
            throw MigrationError.stageFailed(path: url.path, stage: stage, reachedChecksum: reached, error: error)
        }
    }

    /// Opens the store at `model` in a container of its own, runs `handler` with it as `container`,
    /// and closes the store again (the next migration needs it closed).
    private func run(_ handler: CustomMigrationStage.Handler, of stage: CustomMigrationStage, named name: String,
                     onStoreAt url: URL, model: ManagedObjectModel, options: [String: any Sendable], reached: String) throws {
        do {
            let container = try PersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
            let description = PersistentStoreDescription(url: url)
            description.shouldMigrateStoreAutomatically = false
            description.shouldInferMappingModelAutomatically = false
            // History records what the handlers change, as it records any save; marker files are
            // rebuilt once the whole migration is done, so they are left off here.
            if let history = options[StoreOption.persistentHistoryTracking] {
                description.setOption(history, forKey: StoreOption.persistentHistoryTracking)
            }
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let coordinator = container.persistentStoreCoordinator
            defer {
                self.container = nil
                for store in coordinator.persistentStores { coordinator.remove(store) }
            }
            self.container = container
            try handler(self, stage)
        } catch {
            throw MigrationError.stageFailed(path: url.path, stage: name, reachedChecksum: reached, error: error)
        }
    }
}
