import Foundation

/// Why a store could not be migrated. In every case the store file is left as it was.
public enum MigrationError: Error, CustomStringConvertible {
    /// The mapping needs changes a lightweight migration cannot infer; every one is listed.
    case unmappable(path: String, changes: [String])
    /// None of the given model versions is the one the store was made with.
    case noSourceModel(path: String, reason: String)
    /// The store needs migrating but the options do not allow it.
    case notAllowed(path: String, reason: String)
    /// Copying the objects failed (a constraint the old data breaks, a full disk, a cancelled run).
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unmappable(let path, let changes):
            return "\(path): the mapping cannot be inferred:\n" + changes.map { "  - \($0)" }.joined(separator: "\n")
        case .noSourceModel(let path, let reason): return "\(path): no source model for the migration: \(reason)"
        case .notAllowed(let path, let reason): return "\(path): \(reason)"
        case .failed(let path, let reason): return "\(path): migration failed, the store is unchanged: \(reason)"
        }
    }
}
