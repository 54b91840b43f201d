import Foundation

extension EntityDescription {
    /// A 32-byte digest of what makes stored data fit this entity, computed as Core Data computes
    /// it, so a store records the same hashes under `NSStoreModelVersionHashes` whichever framework
    /// wrote it, and each framework can tell which model version made the other's stores.
    ///
    /// SHA-256 over the entity's name, whether it is abstract, its parent's hash, the digest of each
    /// stored (non-transient) attribute and relationship, its own and inherited, by name, its
    /// version hash modifier, and its uniqueness constraints. A property's digest covers its name,
    /// flags and modifier; an attribute's adds its type and storage options; a relationship's its
    /// destination, inverse, counts and ordering. Class names, defaults, user info, indexes, delete
    /// rules and Spotlight settings take no part, as in Core Data.
    public var versionHash: Data {
        var bytes = Array(name.utf8)
        bytes.append(isAbstract ? 1 : 0)
        if let superentity { bytes += superentity.versionHash }
        let all = properties.isEmpty ? ownProperties : properties
        for property in all.sorted(by: { $0.name < $1.name }) where !property.isTransient {
            switch property {
            case let attribute as AttributeDescription: bytes += Self.digest(of: attribute)
            case let relationship as RelationshipDescription: bytes += Self.digest(of: relationship)
            default: continue
            }
        }
        if let versionHashModifier { bytes += versionHashModifier.utf8 }
        let constraints = uniquenessConstraints.map { $0.joined(separator: ".") }.filter { !$0.isEmpty }
        for constraint in constraints.sorted() { bytes += constraint.utf8 }
        return SHA256.hash(Data(bytes))
    }

    /// The common part: the name, the flags as a 16-bit little-endian word (optional, transient,
    /// read-only), the modifier.
    private static func digest(ofProperty property: PropertyDescription) -> [UInt8] {
        var bytes = Array(property.name.utf8)
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0)
        bytes += [UInt8(flags & 0xFF), UInt8(flags >> 8)]
        if let modifier = property.versionHashModifier { bytes += modifier.utf8 }
        return Array(SHA256.hash(Data(bytes)))
    }

    private static func digest(of attribute: AttributeDescription, depth: Int = 0) -> [UInt8] {
        var bytes = digest(ofProperty: attribute)
        bytes += littleEndian(Int32(attribute.attributeType.code))
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        // A composite folds in the digest of each element, by name, so adding, removing,
        // retyping or renaming an element changes the entity's hash as such a change of an
        // attribute does. Core Data documents no more than that the composite counts; these
        // bytes follow this framework's attribute digests and are not verified against its.
        if let composite = attribute as? CompositeAttributeDescription, depth < CompositeAttributeDescription.maximumDepth {
            for element in composite.elements.sorted(by: { $0.name < $1.name }) { bytes += digest(of: element, depth: depth + 1) }
        }
        return Array(SHA256.hash(Data(bytes)))
    }

    private static func digest(of relationship: RelationshipDescription) -> [UInt8] {
        var bytes = digest(ofProperty: relationship)
        bytes += (relationship.destinationEntity?.name ?? relationship.destinationEntityName).utf8
        // A relationship that is its own inverse does not name itself.
        if let inverse = relationship.inverseRelationship {
            if inverse !== relationship { bytes += inverse.name.utf8 }
        } else if let inverseName = relationship.inverseName,
                  !(inverseName == relationship.name && relationship.destinationEntityName == relationship.entity?.name) {
            bytes += inverseName.utf8
        }
        bytes += littleEndian(Int32(truncatingIfNeeded: relationship.isToMany ? relationship.maxCount : 1))
        bytes += littleEndian(Int32(truncatingIfNeeded: relationship.minCount))
        if relationship.isOrdered { bytes += [1, 0] }
        return Array(SHA256.hash(Data(bytes)))
    }

    private static func littleEndian(_ value: Int32) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// The digest earlier versions of this framework recorded in the stores they made: SHA-256 of
    /// a text of its own, kept so those stores are still known for the version they were made with.
    var earlierLimelightVersionHash: Data {
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

extension ManagedObjectModel {
    /// The digest Core Data records beside the hashes (`NSStoreModelVersionHashesDigest`): SHA-512
    /// over each entity's name and hash, by name, in Base64.
    static func versionHashesDigest(_ hashes: [String: Data]) -> String {
        var bytes = Data()
        for (name, hash) in hashes.sorted(by: { $0.key < $1.key }) {
            bytes += Data(name.utf8)
            bytes += hash
        }
        return SHA512.hash(bytes).base64EncodedString()
    }

    /// A short text naming this version of the model, as Core Data's `versionChecksum` does: what
    /// a `LightweightMigrationStage` lists and a `ManagedObjectModelReference` can be checked by.
    ///
    /// SHA-256 over each entity's name (UTF-8) followed by its 32-byte `versionHash`, entities in
    /// name order, in Base64 (44 characters). Two models have the same checksum exactly when a
    /// store records the same version hashes for them, so it names what a store can tell apart.
    /// It is computed from this framework's version hashes, which are Core Data's; Core Data does
    /// not document how it forms its own checksum, so the text may differ from the one Xcode
    /// shows for the same model. A model still editable is hashed as it stands: resolve it first.
    public var versionChecksum: String {
        var bytes = Data()
        for (name, hash) in entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
            bytes += Data(name.utf8)
            bytes += hash
        }
        return SHA256.hash(bytes).base64EncodedString()
    }

    /// Whether `hashes`, as a store recorded them, are this model's: Core Data's hashes, or the
    /// ones earlier versions of this framework wrote.
    func isRecorded(in hashes: [String: Data]?) -> Bool {
        guard let hashes else { return false }
        return hashes == entityVersionHashesByName
            || hashes == Dictionary(entities.map { ($0.name, $0.earlierLimelightVersionHash) }, uniquingKeysWith: { a, _ in a })
    }
}
