import Foundation

/// Migrates from one model version to the next with the application's code around the inferred
/// mapping, Core Data's `NSCustomMigrationStage`.
///
/// The store moves from `currentModel` to `nextModel` by inferred mapping, as a lightweight
/// migration would; `willMigrateHandler` runs first, on the store at `currentModel`, and
/// `didMigrateHandler` after, on the store at `nextModel`. Both reach the store through
/// `migrationManager.container` (its `viewContext`, or a background context), and what they
/// save is in the store before the next step. That is where data is prepared for a change the
/// mapping cannot make alone (duplicates removed before a uniqueness constraint is added) or
/// completed after it (a new attribute filled from old ones kept until then).
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    /// A handler of a custom stage. Throwing stops the migration; the error names the stage.
    public typealias Handler = (StagedMigrationManager, CustomMigrationStage) throws -> Void

    /// The version the stage migrates from.
    public let currentModel: ManagedObjectModelReference
    /// The version the stage migrates to.
    public let nextModel: ManagedObjectModelReference
    /// Runs with the store open at `currentModel`, before it migrates.
    public var willMigrateHandler: Handler?
    /// Runs with the store open at `nextModel`, after it migrated.
    public var didMigrateHandler: Handler?

    public init(migratingFrom currentModel: ManagedObjectModelReference, to nextModel: ManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
    }

    override var sourceChecksums: [String] { [currentModel.versionChecksum] }
}
