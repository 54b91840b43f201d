import Foundation

/// A mapping model read from a file names an entity migration policy class that was not given.
///
/// Files name policies by class name (`MyApp.NoteToNotePolicy`); there is no Objective-C runtime
/// to look a class up by its name, so the classes come from the caller (`policies:`) and are
/// matched by name, with or without the module prefix. A file naming one the caller did not give
/// cannot be migrated with as written: running the mapping without the policy would migrate the
/// objects differently.
public struct MissingMigrationPolicyError: Error, CustomStringConvertible, Equatable {
    /// The class name the file gives.
    public let className: String
    /// The entity mapping that runs it.
    public let entityMapping: String
    /// The mapping model file.
    public let file: String
    /// Whether several of the classes given have the name without its module prefix.
    public let isAmbiguous: Bool

    public var description: String {
        "\(file): entity mapping \(entityMapping) runs the policy class \(className), which is not among the policies given"
            + (isAmbiguous ? " (several have its name)" : "")
    }

    /// The class among `policies` that `className` names; `nil` for none named, or for Core Data's
    /// own `NSEntityMigrationPolicy` (the default policy, which every mapping runs anyway).
    static func policy(named className: String?, among policies: [EntityMigrationPolicy.Type],
                       mapping: String, file: String) throws -> EntityMigrationPolicy.Type? {
        guard let className, !className.isEmpty, !isDefaultPolicy(className) else { return nil }
        func unqualified(_ name: String) -> Substring { name.split(separator: ".").last ?? Substring(name) }
        if let exact = policies.first(where: { String(reflecting: $0) == className }) { return exact }
        let matches = policies.filter { unqualified(String(reflecting: $0)) == unqualified(className) }
        guard matches.count == 1, let match = matches.first else {
            throw MissingMigrationPolicyError(className: className, entityMapping: mapping, file: file, isAmbiguous: !matches.isEmpty)
        }
        return match
    }

    /// Core Data's default policy class, by the names files give it.
    static func isDefaultPolicy(_ className: String) -> Bool {
        ["NSEntityMigrationPolicy", "EntityMigrationPolicy", "LimelightData.EntityMigrationPolicy"].contains(className)
    }
}
