import Foundation

/// A property whose value is the result of a fetch, evaluated lazily (`$FETCH_SOURCE` refers to the
/// object the property belongs to).
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    public var destinationEntityName: String
    /// The predicate as written in the model; parsed when the property is evaluated.
    public var predicateFormat: String?
    /// The name of the inner `<fetchRequest>` element, and its other attributes, as the model wrote them.
    public var fetchRequestName = "fetchedPropertyFetchRequest"
    public var fetchRequestXMLAttributes: [String: String] = [:]

    public init(name: String, destinationEntityName: String, predicateFormat: String?) {
        self.destinationEntityName = destinationEntityName
        self.predicateFormat = predicateFormat
        super.init(name: name)
        self.isTransient = true
    }
}
