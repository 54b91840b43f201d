import Foundation

extension MigrationContext {
    /// The required properties the migrated rows lack values for, one line each naming the entity,
    /// the property and how many objects: a property that is new and required without a default
    /// value, or was optional and is required now without one.
    ///
    /// Core Data infers such a mapping and its lightweight migration fails only when objects in
    /// the store have no value ("missing attribute values on mandatory destination attribute",
    /// error 134110); a store whose objects all have one migrates. So the rows are checked here,
    /// after they are copied and before anything is committed, rather than the mapping refused.
    func missingRequiredValues() throws -> [String] {
        var missing: [String] = []
        for entity in newSchema.model.entities.sorted(by: { $0.name < $1.name }) {
            guard let from = source(of: entity), let table = newSchema.table(for: entity) else { continue }
            for property in entity.ownProperties where Self.needsCheck(property, from: from) {
                let column = newSchema.column(for: property)
                guard table.columnIndex[column] != nil else { continue }
                let count = try db.scalarInt("""
                    SELECT count(*) FROM main.\(table.name) WHERE Z_ENT IN (\(numbers(entity, in: newSchema))) AND \(column) IS NULL
                    """) ?? 0
                guard count > 0 else { continue }
                let change = MappingInference.sourceProperty(for: property, in: from) == nil ? "new and required" : "required now"
                missing.append("\(entity.name).\(property.name): \(count) object\(count == 1 ? " has" : "s have") no value "
                               + "(it is \(change), with no default value)")
            }
        }
        return missing
    }

    /// Whether rows may lack a value `property` requires: an attribute without a default or a
    /// to-one, stored in the row, required in the destination and new or optional in `from`.
    private static func needsCheck(_ property: PropertyDescription, from: EntityDescription) -> Bool {
        guard !property.isOptional, SQLiteSchema.isStoredInRow(property), !(property is CompositeAttributeDescription) else { return false }
        if let attribute = property as? AttributeDescription, attribute.defaultValue != nil { return false }
        guard let old = MappingInference.sourceProperty(for: property, in: from) else { return true }
        return old.isOptional
    }
}
