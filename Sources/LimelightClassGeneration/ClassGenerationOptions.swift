import Foundation

/// What the class generator writes besides what the model says.
public struct ClassGenerationOptions: Sendable, Equatable {
    /// The access level of the generated declarations.
    public enum AccessLevel: String, Sendable, CaseIterable {
        /// Visible in the module the code is compiled into: an application's own target.
        case `internal`
        /// Visible to modules importing it: a library that offers its model's classes.
        case `public`
    }

    public var accessLevel: AccessLevel
    /// Generates a class for every entity whose codegen is "Manual/None" too, for models whose
    /// classes were written by hand and are not at hand (Xcode generates only the entities set to
    /// "Class Definition" or "Category/Extension").
    public var generatesAllEntities: Bool
    /// The name of the enum whose `register(in:)` registers the classes; `nil` for
    /// `<ModelName>ModelClasses`.
    public var registrationTypeName: String?

    public init(accessLevel: AccessLevel = .internal, generatesAllEntities: Bool = false, registrationTypeName: String? = nil) {
        self.accessLevel = accessLevel
        self.generatesAllEntities = generatesAllEntities
        self.registrationTypeName = registrationTypeName
    }
}
