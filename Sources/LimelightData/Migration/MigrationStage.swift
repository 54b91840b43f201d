import Foundation

/// One step of a staged migration, Core Data's `NSMigrationStage`: a `LightweightMigrationStage`
/// or a `CustomMigrationStage`, given in order to a `StagedMigrationManager`.
///
/// Stages exist so that a store several versions behind is brought forward one known step at a
/// time, with the application's own code run where an inferred mapping alone would lose or
/// refuse data (a value split in two, duplicates removed before a uniqueness constraint).
public class MigrationStage: @unchecked Sendable, CustomStringConvertible {
    /// Names the stage in errors; when empty, the stage is named by its kind and position.
    public var label: String = ""

    init() {}

    /// The model versions a store may be at for this stage to take it (by version checksum).
    var sourceChecksums: [String] { [] }

    public var description: String { label }
}

/// Migrates by inferred mapping, Core Data's `NSLightweightMigrationStage`: a store at any of the
/// listed model versions moves straight to the model the next stage starts from (a custom
/// stage's `currentModel`, the first version a lightweight stage lists) or, for the last stage,
/// the coordinator's model, as a lightweight migration does.
///
/// The checksums (`ManagedObjectModel.versionChecksum`) name versions; the models themselves are
/// found among the models of the custom stages, the coordinator's model and the versions given in
/// `StoreOption.migrationSourceModels`.
public final class LightweightMigrationStage: MigrationStage, @unchecked Sendable {
    /// The model versions this stage migrates from.
    public let versionChecksums: [String]

    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
    }

    override var sourceChecksums: [String] { versionChecksums }
}
