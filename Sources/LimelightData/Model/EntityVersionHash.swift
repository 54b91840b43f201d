import Foundation

extension EntityDescription {
    /// A 32-byte digest of what makes stored data fit this entity.
    ///
    /// Apple documents the inputs but not the algorithm, so this is our own: SHA-256 over a
    /// canonical text made of the entity's name, its parent's name, abstractness, the version hash
    /// modifier, and for every non-transient own and inherited property, sorted by name, its name,
    /// optionality, kind and type (attribute type; relationship destination, to-many flag, min/max
    /// counts, ordering) and its modifier. Class names, user info, defaults and validation rules do
    /// not take part, as in Core Data. Stores written by Core Data carry Apple's hashes; the store
    /// then compares tables and columns instead (see `SQLiteSchemaCheck`).
    public var versionHash: Data {
        var parts = ["entity:\(name)", "parent:\(superentity?.name ?? superentityName ?? "")",
                     "abstract:\(isAbstract)", "modifier:\(versionHashModifier ?? "")"]
        let stored = (superentity.map { _ in properties } ?? (properties.isEmpty ? ownProperties : properties))
            .filter { !$0.isTransient }
            .sorted { $0.name < $1.name }
        for property in stored {
            var line = "\(property.name)|\(property.isOptional)|\(property.versionHashModifier ?? "")"
            if let attribute = property as? AttributeDescription {
                line += "|A|\(attribute.attributeType.rawValue)"
            } else if let relationship = property as? RelationshipDescription {
                line += "|R|\(relationship.destinationEntityName)|\(relationship.isToMany)|\(relationship.minCount)|\(relationship.maxCount)|\(relationship.isOrdered)"
            } else {
                continue
            }
            parts.append(line)
        }
        return SHA256.hash(Data(parts.joined(separator: "\n").utf8))
    }
}
