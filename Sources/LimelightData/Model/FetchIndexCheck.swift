import Foundation

/// Refuses R-tree fetch indexes a store could not keep.
///
/// SQLite's R-tree holds numbers only: a string, a blob or a boolean handed to it is stored as
/// some number (or refused), so an index over such an attribute would answer range queries
/// wrongly. Core Data lets any attribute in and leaves that to the application; here the model is
/// refused when it is resolved, naming the index and the attribute, before any store is made
/// from it. Numbers and dates (seconds since 2001 in the store) are what an R-tree is for.
enum FetchIndexCheck {
    static func checkRTreeIndexes(of entity: EntityDescription) throws {
        for index in entity.fetchIndexes where index.kind == .rTree {
            let location = "\(entity.name).\(index.name)"
            guard !index.elements.isEmpty else {
                throw ModelError("the R-tree fetch index '\(index.name)' has no elements", at: location)
            }
            for element in index.elements {
                guard let attribute = attribute(at: element.property, of: entity) else {
                    throw ModelError("the R-tree fetch index '\(index.name)' names '\(element.property)', which is not an attribute of \(entity.name)",
                                     at: location)
                }
                guard attribute.attributeType.isNumeric || attribute.attributeType == .date, !attribute.isTransient else {
                    throw ModelError("the R-tree fetch index '\(index.name)' is over '\(element.property)', a \(attribute.attributeType.rawValue) "
                                     + "attribute\(attribute.isTransient ? " that is transient" : ""); an R-tree holds only stored numbers and dates",
                                     at: location)
                }
            }
        }
    }

    /// The attribute an element names: a property, or an element of a composite by its key path
    /// (`location.latitude`).
    private static func attribute(at keyPath: String, of entity: EntityDescription) -> AttributeDescription? {
        let parts = keyPath.split(separator: ".").map(String.init)
        guard let first = parts.first, let property = entity.property(named: first) else { return nil }
        if parts.count == 1 { return (property as? AttributeDescription).flatMap { $0.attributeType == .composite ? nil : $0 } }
        return (property as? CompositeAttributeDescription)?.element(atPath: parts.dropFirst())
    }
}
