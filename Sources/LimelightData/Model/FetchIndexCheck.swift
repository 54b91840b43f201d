import Foundation

/// Refuses R-tree fetch indexes a store could not make: one with no elements, or an element that
/// is no stored attribute of the entity (a transient has no column for the triggers to copy).
///
/// An R-tree over a string, a blob or a boolean is accepted, as Core Data accepts it: SQLite's
/// R-tree turns every such value into 0, so the table and its triggers work, but the tree says
/// nothing of those values. Queries therefore narrow by an R-tree only over numbers and dates
/// (`SQLPredicateTranslator.rTreeIndex(named:over:in:)`), and a model that Core Data loads loads here too.
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
                guard !attribute.isTransient else {
                    throw ModelError("the R-tree fetch index '\(index.name)' is over '\(element.property)', a transient attribute, "
                                     + "which the store has no column for", at: location)
                }
            }
        }
    }

    /// The attribute an element names: a property, or an element of a composite by its key path
    /// (`location.latitude`).
    static func attribute(at keyPath: String, of entity: EntityDescription) -> AttributeDescription? {
        let parts = keyPath.split(separator: ".").map(String.init)
        guard let first = parts.first, let property = entity.property(named: first) else { return nil }
        if parts.count == 1 { return (property as? AttributeDescription).flatMap { $0.attributeType == .composite ? nil : $0 } }
        return (property as? CompositeAttributeDescription)?.element(atPath: parts.dropFirst())
    }
}
