import Foundation

/// Turns a batch insert's dictionaries into the rows the store writes. What depends on the entity
/// alone (which keys name stored attributes, the values a new row starts with, which attributes
/// are required) is worked out once per request, so a dictionary costs a look-up and a
/// classification per value.
struct BatchInsertRows {
    let entity: EntityDescription
    /// The entity's table of property names, held here rather than read through the entity for
    /// every key.
    private let keys: PropertyKeyTable
    /// Per property, its attribute's type when a dictionary may give it a value (a stored
    /// attribute), read here rather than from the attribute for every value.
    private let types: [AttributeType?]
    /// A new row's values before its dictionary is applied: empty slots, defaults, empty to-manys.
    private let startingValues: [StoredValue]
    /// The slots of the attributes a row may not leave empty, with their names for the error.
    private let required: [(index: Int, name: String)]

    init(entity: EntityDescription) {
        self.entity = entity
        keys = entity.propertyKeys
        types = entity.properties.map { property in
            guard let attribute = property as? AttributeDescription, !attribute.isTransient else { return nil }
            return attribute.attributeType
        }
        var values = entity.emptyValues
        for (index, value) in entity.layout.initialValues { values[index] = value }
        startingValues = values
        required = entity.properties.compactMap { property in
            guard let attribute = property as? AttributeDescription, !attribute.isOptional, !attribute.isTransient,
                  let index = entity.index(of: attribute.name) else { return nil }
            return (index, attribute.name)
        }
    }

    /// The values of the row for dictionary number `row`, converted to their attributes' types;
    /// when `given` is not nil, the slots the dictionary gave are appended to it.
    func values(of dictionary: [String: Any], row: Int, given: inout [Int]?) throws -> [StoredValue] {
        // Built by appending to a reserved array: a copy of the starting array would go through
        // the standard library's unspecialised code, a call through a witness per slot.
        var values: [StoredValue] = []
        values.reserveCapacity(startingValues.count)
        for value in startingValues { values.append(value) }
        for (key, value) in dictionary {
            guard let index = keys.index(of: key), let type = types[index] else {
                throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): '\(key)' is not a stored attribute")
            }
            values[index] = try stored(value, as: type, key: key, row: row)
            given?.append(index)
        }
        for (index, name) in required where values[index].isNull {
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): '\(name)' is required")
        }
        return values
    }

    /// `value` in the attribute's canonical form; `NSNull` is no value.
    private func stored(_ value: Any, as type: AttributeType, key: String, row: Int) throws -> StoredValue {
        let stored = StoredValue(present: value)
        // Only a value of a type the classifier does not know can be an `NSNull`. Asking every
        // value `is NSNull` made the runtime bridge each number into an `NSNumber` to compare
        // its class, some 1,300 instructions a value.
        if case .other = stored, value is NSNull { return .null }
        if AttributeValueCoercion.isCanonical(stored, for: type) { return stored }
        guard let coerced = AttributeValueCoercion.coerce(stored, to: type), AttributeValueCoercion.isCanonical(coerced, for: type) else {
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): \(Swift.type(of: value)) is no \(type.rawValue) for '\(key)'")
        }
        return coerced
    }
}
