import Foundation

extension StoreRow {
    /// A row of values a custom store keeps by property name (an atomic store's cache node, an
    /// incremental store's node): attributes converted to their types, nil and `NSNull` left
    /// empty, transient properties left out; the store says how it holds relationships.
    init(id: ManagedObjectID, version: Int64, value: (PropertyDescription) -> Any?,
         toOne: (Any?) -> ManagedObjectID?, toMany: (RelationshipDescription, Any?) -> ToManySlot) {
        var values = id.entity.emptyValues
        for (index, property) in id.entity.properties.enumerated() where !property.isTransient {
            let held = value(property)
            if let relationship = property as? RelationshipDescription {
                if relationship.isToMany {
                    values[index] = .toMany(toMany(relationship, held))
                } else if let destination = toOne(held) {
                    values[index] = .objectID(destination)
                }
            } else if let composite = property as? CompositeAttributeDescription, let held, !(held is NSNull) {
                values[index] = CompositeValues.stored(StoredValue(held), for: composite)
            } else if let attribute = property as? AttributeDescription, let held, !(held is NSNull) {
                values[index] = StoredValue(AttributeValueCoercion.coerce(held, to: attribute.attributeType) ?? held)
            }
        }
        self.init(id: id, version: version, values: values)
    }
}
