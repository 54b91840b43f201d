import Foundation

/// Why a store could not be migrated. The store file is left as it was, except after a stage of
/// a staged migration: it is then left at the model of the last step completed.
public enum MigrationError: Error, CustomStringConvertible {
    /// The mapping needs changes a lightweight migration cannot infer; every one is listed.
    case unmappable(path: String, changes: [String])
    /// None of the given model versions is the one the store was made with.
    case noSourceModel(path: String, reason: String)
    /// The store needs migrating but the options do not allow it.
    case notAllowed(path: String, reason: String)
    /// Copying the objects failed (a constraint the old data breaks, a full disk, a cancelled run).
    case failed(path: String, reason: String)
    /// A stage of a staged migration failed: a handler threw `error`, or the stage's migration
    /// did. Steps before it stay done; the store opens at `reachedChecksum`'s model version.
    case stageFailed(path: String, stage: String, reachedChecksum: String, error: any Error)
    /// An object-level migration stopped in an entity mapping: its policy, a value expression or
    /// `cancelMigrationWithError(_:)` gave `error` in `stage` ("create instances", "create
    /// relationships", "validate"). Nothing was written to the destination.
    case mappingFailed(path: String, entityMapping: String, stage: String, error: any Error)

    public var description: String {
        switch self {
        case .unmappable(let path, let changes):
            return "\(path): the mapping cannot be inferred:\n" + changes.map { "  - \($0)" }.joined(separator: "\n")
        case .noSourceModel(let path, let reason): return "\(path): no source model for the migration: \(reason)"
        case .notAllowed(let path, let reason): return "\(path): \(reason)"
        case .failed(let path, let reason): return "\(path): migration failed, the store is unchanged: \(reason)"
        case .stageFailed(let path, let stage, let reached, let error):
            return "\(path): migration stage '\(stage)' failed: \(error); the store stays at model version \(reached)"
        case .mappingFailed(let path, let mapping, let stage, let error):
            return "\(path): migration failed in entity mapping \(mapping) (\(stage)), nothing was written: \(error)"
        }
    }
}
