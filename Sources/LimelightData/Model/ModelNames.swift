import Foundation

/// Refuses names a store cannot carry. An entity's, a property's and an index's names become the
/// store's table, column, index and trigger names (`ZNOTE`, `ZTITLE`, `Z_Note_byTitle`), written
/// into its SQL as they are, as Core Data writes them; they are therefore held to what Core Data
/// and Xcode allow, an identifier: letters, digits and underscores, not starting with a digit.
///
/// Why here: a model is read from outside (model XML, a compiled model, the copy in a store's
/// records folder), and a name such as `Note (draft)` or `x); DROP TABLE ZNOTE; --` would
/// otherwise reach SQLite as a statement of its own when a store is made from the model. Every
/// model, however it was made, is resolved before a store uses it, so this is checked once for all.
enum ModelNames {
    /// Whether `name` can stand unquoted in SQL as a table, column or index name (characters
    /// beyond ASCII are letters or digits, which SQLite takes into identifiers).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                ? ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
                : scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
    }

    /// Throws naming the first name of `entity` that is not an identifier, and where it is.
    static func check(_ entity: EntityDescription) throws {
        guard isIdentifier(entity.name) else {
            throw ModelError("the entity name '\(entity.name)' is not a name a store can use (letters, digits and _, not starting with a digit)",
                             at: entity.name)
        }
        var seen: Set<ObjectIdentifier> = []
        func checkProperties(_ properties: [PropertyDescription], in place: String) throws {
            for property in properties {
                guard isIdentifier(property.name) else {
                    throw ModelError("the property name '\(property.name)' is not a name a store can use (letters, digits and _, not starting with a digit)",
                                     at: place)
                }
                // A composite's elements become columns too (`ZMAGNITUDE_RICHTER`); one that
                // contains itself is refused by the model's own check.
                if let composite = property as? CompositeAttributeDescription, seen.insert(ObjectIdentifier(composite)).inserted {
                    try checkProperties(composite.elements, in: "\(place).\(composite.name)")
                }
            }
        }
        try checkProperties(entity.ownProperties, in: entity.name)
        for index in entity.fetchIndexes where !isIdentifier(index.name) {
            throw ModelError("the fetch index name '\(index.name)' is not a name a store can use (letters, digits and _, not starting with a digit)",
                             at: entity.name)
        }
        let keyPaths = entity.uniquenessConstraints.flatMap { $0 } + entity.compoundIndexes.flatMap { $0 }
            + entity.fetchIndexes.flatMap { $0.elements.map(\.property) }
        for keyPath in keyPaths where !keyPath.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ isIdentifier(String($0)) }) {
            throw ModelError("'\(keyPath)' in a constraint or index is not a property name a store can use", at: entity.name)
        }
    }
}
