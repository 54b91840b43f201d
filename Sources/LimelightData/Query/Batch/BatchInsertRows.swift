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
    /// The slots of stored attributes with their types, for checking an object's values.
    private let attributes: [(index: Int, type: AttributeType)]
    /// The slots of relationships, which an object of a handler must leave as they start.
    private let relationships: [Int]
    /// The slots of composite attributes, whose values are checked against their elements.
    private let compositeSlots: [Int]

    init(entity: EntityDescription) {
        self.entity = entity
        keys = entity.propertyKeys
        let types = entity.properties.map { property -> AttributeType? in
            guard let attribute = property as? AttributeDescription, !attribute.isTransient else { return nil }
            return attribute.attributeType
        }
        self.types = types
        var values = entity.emptyValues
        for (index, value) in entity.layout.initialValues { values[index] = value }
        startingValues = values
        attributes = types.enumerated().compactMap { index, type in type.map { (index, $0) } }
        relationships = entity.properties.indices.filter { entity.properties[$0] is RelationshipDescription }
        compositeSlots = types.indices.filter { types[$0] == .composite }
        required = entity.properties.compactMap { property in
            guard let attribute = property as? AttributeDescription, !attribute.isOptional, !attribute.isTransient,
                  let index = entity.index(of: attribute.name) else { return nil }
            return (index, attribute.name)
        }
    }

    /// The values of the row for dictionary number `row`, converted to their attributes' types;
    /// when `given` is not nil, the slots the dictionary gave are appended to it.
    func values(of dictionary: [String: Any], row: Int, given: inout [Int]?) throws -> [StoredValue] {
        var values: [StoredValue] = []
        try fill(&values, from: dictionary, row: row, given: &given)
        return values
    }

    /// Sets `values` to the row for dictionary number `row` (see `values(of:row:given:)`), in
    /// place: a streaming insert hands the same array to every row, so no row allocates one.
    func fill(_ values: inout [StoredValue], from dictionary: [String: Any], row: Int, given: inout [Int]?) throws {
        reset(&values)
        for (key, value) in dictionary {
            guard let index = keys.index(of: key), let type = types[index] else {
                throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): '\(key)' is not a stored attribute")
            }
            values[index] = type == .composite ? try compositeValue(value, slot: index, key: key, row: row)
                : try stored(value, as: type, key: key, row: row)
            given?.append(index)
        }
        try checkRequired(values, row: row)
    }

    /// Sets `values` back to a new row's starting values, in place when it has their count.
    func reset(_ values: inout [StoredValue]) {
        if values.count == startingValues.count {
            // Through buffers: no uniqueness or bounds check per slot.
            values.withUnsafeMutableBufferPointer { target in
                startingValues.withUnsafeBufferPointer { source in
                    for index in source.indices { target[index] = source[index] }
                }
            }
            return
        }
        // Built by appending to a reserved array: a copy of the starting array would go through
        // the standard library's unspecialised code, a call through a witness per slot.
        values.removeAll(keepingCapacity: true)
        values.reserveCapacity(startingValues.count)
        for value in startingValues { values.append(value) }
    }

    /// Checks the values a managed-object handler set on object number `row`: each attribute's in
    /// its type (a typed `@Managed` setter makes it so; `setValue(_:forKey:)` keeps a value it
    /// cannot convert), no relationship set (a batch insert writes attributes only), and the
    /// required attributes given.
    func check(_ values: [StoredValue], row: Int) throws {
        // Read in place through the buffer: a value copied out of the array costs a call to the
        // enum's copy function, for every slot of every object.
        let mistyped = values.withUnsafeBufferPointer { buffer -> (index: Int, type: AttributeType)? in
            for (index, type) in attributes {
                // The common case by its case alone, binding nothing.
                if type == .integer64, case .int64 = buffer[index] { continue }
                // A composite's value is checked below, against its description.
                if type == .composite { continue }
                if !AttributeValueCoercion.isCanonical(buffer[index], for: type) { return (index, type) }
            }
            return nil
        }
        if let (index, type) = mistyped {
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): "
                + "\(values[index].value.map { "\(Swift.type(of: $0))" } ?? "nil") is no \(type.rawValue) for '\(entity.properties[index].name)'")
        }
        for index in compositeSlots {
            if let value = values[index].value { _ = try compositeValue(value, slot: index, key: entity.properties[index].name, row: row) }
        }
        for index in relationships where !StoredValue.same(values[index], startingValues[index]) {
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): "
                + "'\(entity.properties[index].name)' is a relationship, which a batch insert does not set")
        }
        try checkRequired(values, row: row)
    }

    /// The slots where `values` differ from a new row's: what an object of a handler gave, as
    /// far as can be told (a value set to its default counts as not given).
    func givenSlots(_ values: [StoredValue]) -> [Int] {
        values.indices.filter { types[$0] != nil && !StoredValue.same(values[$0], startingValues[$0]) }
    }

    private func checkRequired(_ values: [StoredValue], row: Int) throws {
        for (index, name) in required where values[index].isNull {
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): '\(name)' is required")
        }
    }

    /// `value` as the canonical dictionary of the composite in slot `slot`; `NSNull` is no value.
    private func compositeValue(_ value: Any, slot: Int, key: String, row: Int) throws -> StoredValue {
        if value is NSNull { return .null }
        guard let composite = entity.properties[slot] as? CompositeAttributeDescription else { return StoredValue(present: value) }
        do {
            return StoredValue(present: try CompositeValues.canonical(value, for: composite))
        } catch {
            let at = ([key] + error.path).joined(separator: ".")
            throw PersistenceError.invalidRequest("batch insert into \(entity.name), object \(row): '\(at)': \(error.reason)")
        }
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
