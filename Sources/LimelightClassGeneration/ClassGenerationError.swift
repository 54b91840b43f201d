import Foundation

/// Why a model's classes cannot be generated, naming the entity (and property) at fault.
public struct ClassGenerationError: Error, CustomStringConvertible, Equatable {
    /// The entity the problem is in.
    public var entityName: String
    /// What is wrong, in words.
    public var reason: String

    public init(entity entityName: String, _ reason: String) {
        self.entityName = entityName
        self.reason = reason
    }

    public var description: String { "entity \(entityName): \(reason)" }
}
