/// Why the entity a `ManagedObject` subclass represents cannot be told (`entity()`,
/// `entity(inModelOf:)`, `init(context:)`): where Core Data stops the program, this is thrown.
public struct EntityLookupError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Equatable, Sendable {
        /// No entity of the models searched is represented by the class.
        case noEntity
        /// Several entities of one model are, named here.
        case severalEntities([String])
        /// Several models in use have each an entity the class represents, named here: the
        /// entities are not interchangeable (an object inserted into a context must be of its
        /// model's entity), so none is the answer.
        case severalModels([String])
    }

    /// The class asked about.
    public let className: String
    public let reason: Reason
    /// The sentence saying what was searched and what to do.
    public let description: String

    init(_ type: ManagedObject.Type, _ reason: Reason, _ description: String) {
        className = String(describing: type)
        self.reason = reason
        self.description = description
    }
}
