import Foundation

/// Writes a model as the keyed archive Core Data keeps in a store's `Z_MODELCACHE` (and in `.mom`
/// files): the classes and keys `CompiledModelReader` reads, laid out as Core Data lays them out.
///
/// What the archive holds is what a store's layout depends on: entities with their inheritance,
/// attributes, relationships, flags, constraints and indexes. Fetched properties and fetch request
/// templates compute results and leave the store as it is; they are left out.
struct CompiledModelWriter {
    private var objects: [Any] = ["$null"]
    private var entityIndices: [ObjectIdentifier: Int] = [:]
    /// Property objects by (entity, property): each entity lists its inherited properties as
    /// copies of its own, as Core Data's archives do.
    private var propertyIndices: [String: Int] = [:]
    private var classIndices: [String: Int] = [:]

    /// The archive of `model`, compressed as a store keeps it.
    static func modelCache(for model: ManagedObjectModel) throws -> Data {
        do {
            return try Deflate.compress(archive(of: model))
        } catch {
            throw ModelError("cannot compress the model: \(error)", at: "Z_MODELCACHE")
        }
    }

    /// The keyed archive of `model`, a `.mom` file's contents. The model must be resolved.
    static func archive(of model: ManagedObjectModel) throws -> Data {
        var writer = CompiledModelWriter()
        let root = writer.reserve()
        var fields: [String: Any] = ["$class": writer.classReference("NSManagedObjectModel")]
        let entities = model.entities.sorted { $0.name < $1.name }
        for entity in entities { writer.entityIndices[ObjectIdentifier(entity)] = writer.reserve() }
        for entity in entities { writer.writeEntity(entity, root: root) }
        fields["NSEntities"] = writer.dictionary(entities.map { ($0.name, writer.uid(writer.entityIndices[ObjectIdentifier($0)] ?? 0)) })
        fields["NSVersionIdentifiers"] = writer.object("NSSet", ["NS.objects": model.versionIdentifiers.sorted().map { writer.string($0) }])
        if !model.configurations.isEmpty {
            fields["NSConfigurations"] = writer.dictionary(model.configurations.sorted { $0.key < $1.key }.map { name, members in
                let references = members.sorted().compactMap { member in model.entity(named: member).flatMap { writer.entityIndices[ObjectIdentifier($0)] }.map(writer.uid) }
                return (name, writer.object("NSSet", ["NS.objects": references]))
            })
        }
        writer.objects[root] = fields
        let plist: [String: Any] = ["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": PropertyListUID(UInt64(root))],
                                    "$objects": writer.objects]
        do {
            return try PropertyListWriter.data(plist, format: .binary)
        } catch {
            throw ModelError("cannot archive the model: \(error)", at: "Z_MODELCACHE")
        }
    }

    // MARK: Entities and properties

    private mutating func writeEntity(_ entity: EntityDescription, root: Int) {
        guard let index = entityIndices[ObjectIdentifier(entity)] else { return }
        var fields: [String: Any] = [
            "$class": classReference("NSEntityDescription"),
            "NSEntityName": string(entity.name),
            "NSClassNameForEntity": string(entity.managedObjectClassName ?? "NSManagedObject"),
            "NSRenamingIdentifier": string(entity.renamingIdentifier ?? entity.name),
            "NSManagedObjectModel": uid(root),
            "NSUserInfo": dictionary(entity.userInfo.sorted { $0.key < $1.key }.map { ($0.key, string($0.value)) }),
            "NSSubentities": dictionary(entity.subentities.sorted { $0.name < $1.name }.compactMap { child in
                entityIndices[ObjectIdentifier(child)].map { (child.name, uid($0)) }
            }),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = true }
        if let parent = entity.superentity, let parentIndex = entityIndices[ObjectIdentifier(parent)] { fields["NSSuperentity"] = uid(parentIndex) }
        if let modifier = entity.versionHashModifier { fields["NSVersionHashModifier"] = string(modifier) }
        if !entity.uniquenessConstraints.isEmpty {
            fields["NSUniqueTuples"] = array(entity.uniquenessConstraints.map { array($0.map { string($0) }, mutable: true) }, mutable: true)
        }
        if !entity.fetchIndexes.isEmpty { fields["NSFetchIndexDescriptions"] = array(entity.fetchIndexes.map { fetchIndex($0, entity: index) }) }
        let stored = (entity.properties.isEmpty ? entity.ownProperties : entity.properties).filter { !($0 is FetchedPropertyDescription) }
        fields["NSProperties"] = dictionary(stored.sorted { $0.name < $1.name }.map { ($0.name, property($0, entity: entity, index: index)) })
        objects[index] = fields
    }

    private mutating func property(_ property: PropertyDescription, entity: EntityDescription, index: Int) -> PropertyListUID {
        let key = "\(entity.name).\(property.name)"
        if let known = propertyIndices[key] { return uid(known) }
        let propertyIndex = reserve()
        propertyIndices[key] = propertyIndex
        var fields: [String: Any] = [
            "NSPropertyName": string(property.name),
            "NSEntity": uid(index),
            "NSRenamingIdentifier": string(property.renamingIdentifier ?? property.name),
        ]
        // The flag word, and which optional keys are absent (0x10 validation predicates, 0x20
        // warnings, 0x40 user info, 0x80 version hash modifier), as Core Data packs it.
        var flags = 0x1
        if property.isOptional { flags |= 0x2 }
        if property.isTransient { flags |= 0x8 }
        if property.isIndexedBySpotlight { flags |= 0x100 }
        if property.isStoredInExternalRecord { flags |= 0x200 }
        var predicates: [PropertyListUID] = []
        if let attribute = property as? AttributeDescription, let pattern = attribute.regularExpression {
            predicates.append(matchingPredicate(pattern))
        }
        if predicates.isEmpty { flags |= 0x10 | 0x20 } else {
            fields["NSValidationPredicates"] = array(predicates)
            // NSValidationStringPatternMatchingError, the error a failed pattern reports.
            fields["NSValidationWarnings"] = array(predicates.map { _ in number(1_680) })
        }
        if property.userInfo.isEmpty { flags |= 0x40 } else {
            fields["NSUserInfo"] = dictionary(property.userInfo.sorted { $0.key < $1.key }.map { ($0.key, string($0.value)) })
        }
        if let modifier = property.versionHashModifier { fields["NSVersionHashModifier"] = string(modifier) } else { flags |= 0x80 }
        switch property {
        case let attribute as AttributeDescription:
            fields["$class"] = classReference("NSAttributeDescription", parents: ["NSPropertyDescription"])
            attributeFields(attribute, into: &fields)
        case let relationship as RelationshipDescription:
            fields["$class"] = classReference("NSRelationshipDescription", parents: ["NSPropertyDescription"])
            if relationship.isOrdered { flags |= 0x400 }
            relationshipFields(relationship, into: &fields)
        default:
            break
        }
        fields["_P"] = flags
        objects[propertyIndex] = fields
        return uid(propertyIndex)
    }

    private mutating func attributeFields(_ attribute: AttributeDescription, into fields: inout [String: Any]) {
        fields["NSAttributeType"] = attribute.attributeType.code
        if let className = attribute.attributeType == .transformable ? attribute.customClassName : Self.valueClassNames[attribute.attributeType] {
            fields["NSAttributeValueClassName"] = string(className)
        }
        if let transformer = attribute.valueTransformerName { fields["NSValueTransformerName"] = string(transformer) }
        if let value = attribute.defaultValue, let archived = defaultValue(value) { fields["NSDefaultValue"] = archived }
        if attribute.isIndexed { fields["NSIsIndexed"] = true }
        var flags = 0
        if attribute.allowsExternalBinaryDataStorage { flags |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { flags |= 0x10 }
        if let maximum = attribute.maxValue { flags |= 0x1; fields["NSMaxValueName"] = bound(maximum, type: attribute.attributeType) }
        if let minimum = attribute.minValue { flags |= 0x2; fields["NSMinValueName"] = bound(minimum, type: attribute.attributeType) }
        fields["NSFlagsKey"] = flags
    }

    private mutating func relationshipFields(_ relationship: RelationshipDescription, into fields: inout [String: Any]) {
        if let destination = relationship.destinationEntity, let index = entityIndices[ObjectIdentifier(destination)] {
            fields["NSDestinationEntity"] = uid(index)
        }
        fields["_NSDestinationEntityName"] = string(relationship.destinationEntityName)
        if let inverse = relationship.inverseRelationship, let owner = relationship.destinationEntity {
            fields["NSInverseRelationship"] = property(inverse, entity: owner, index: entityIndices[ObjectIdentifier(owner)] ?? 0)
        }
        if let inverseName = relationship.inverseName { fields["_NSInverseRelationshipName"] = string(inverseName) }
        fields["NSMaxCount"] = relationship.isToMany ? relationship.maxCount : 1
        fields["NSMinCount"] = relationship.minCount
        fields["NSDeleteRule"] = relationship.deleteRule.code
    }

    private mutating func fetchIndex(_ index: FetchIndexDescription, entity: Int) -> PropertyListUID {
        let indexObject = reserve()
        let elements = index.elements.map { element in
            object("NSFetchIndexElementDescription", ["NSPropertyName": string(element.property), "NSAscending": element.ascending,
                                                      "NSFetchIndexElementType": index.kind.code, "NSFetchIndexDescription": uid(indexObject)])
        }
        objects[indexObject] = ["$class": classReference("NSFetchIndexDescription"), "NSIndexName": string(index.name),
                                "NSIndexElements": array(elements), "NSEntity": uid(entity)] as [String: Any]
        return uid(indexObject)
    }

    /// `SELF MATCHES pattern`, as Core Data keeps an attribute's pattern.
    private mutating func matchingPredicate(_ pattern: String) -> PropertyListUID {
        let matching = object("NSComparisonPredicateOperator", ["NSOperatorType": 6, "NSModifier": 0, "NSVariant": 0, "NSOptions": 0])
        let subject = object("NSSelfExpression", ["NSExpressionType": 1])
        let constant = object("NSConstantValueExpression", ["NSConstantValue": string(pattern), "NSExpressionType": 0])
        return object("NSComparisonPredicate", ["NSPredicateOperator": matching, "NSLeftExpression": subject, "NSRightExpression": constant])
    }

    /// The Foundation class Core Data names for each attribute type's values.
    private static let valueClassNames: [AttributeType: String] = [
        .integer16: "NSNumber", .integer32: "NSNumber", .integer64: "NSNumber", .decimal: "NSDecimalNumber", .double: "NSNumber",
        .float: "NSNumber", .string: "NSString", .boolean: "NSNumber", .date: "NSDate", .binaryData: "NSData", .uuid: "NSUUID",
        .uri: "NSURL",
    ]

    private mutating func defaultValue(_ value: Any) -> Any? {
        switch value {
        case let flag as Bool: return number(flag)
        case let text as String: return string(text)
        case let date as Date: return object("NSDate", ["NS.time": date.timeIntervalSinceReferenceDate])
        case let data as Data: return object("NSData", ["NS.data": data])
        case let uuid as UUID: return object("NSUUID", ["NS.uuidbytes": withUnsafeBytes(of: uuid.uuid) { Data($0) }])
        case let url as URL: return object("NSURL", ["NS.relative": string(url.absoluteString), "NS.base": uid(0)])
        case let decimal as Decimal: return string(decimal.description)
        default:
            if let integer = AttributeValueCoercion.integer(value) { return number(integer) }
            if let real = AttributeValueCoercion.double(value) { return number(real) }
            return nil
        }
    }

    /// A bound as Core Data archives it: a whole number for integers and string lengths. A bound
    /// no `Int64` holds (infinite, not a number, beyond its range; a model file may say so) is
    /// archived as the real number it is rather than converted, which would trap.
    private mutating func bound(_ value: Double, type: AttributeType) -> Any {
        guard [.integer16, .integer32, .integer64, .string].contains(type), let whole = Int64(exactly: value.rounded(.towardZero)) else {
            return number(value)
        }
        return number(whole)
    }

    // MARK: Archive objects

    private mutating func reserve() -> Int {
        objects.append("")
        return objects.count - 1
    }

    private func uid(_ index: Int) -> PropertyListUID { PropertyListUID(UInt64(index)) }

    private mutating func string(_ text: String) -> PropertyListUID {
        objects.append(text)
        return uid(objects.count - 1)
    }

    private mutating func number(_ value: Any) -> PropertyListUID {
        objects.append(value)
        return uid(objects.count - 1)
    }

    private mutating func object(_ className: String, _ fields: [String: Any]) -> PropertyListUID {
        var fields = fields
        fields["$class"] = classReference(className)
        objects.append(fields)
        return uid(objects.count - 1)
    }

    private mutating func array(_ elements: [PropertyListUID], mutable: Bool = false) -> PropertyListUID {
        object(mutable ? "NSMutableArray" : "NSArray", ["NS.objects": elements])
    }

    private mutating func dictionary(_ entries: [(String, PropertyListUID)]) -> PropertyListUID {
        let keys = entries.map { string($0.0) }
        return object("NSMutableDictionary", ["NS.keys": keys, "NS.objects": entries.map(\.1)])
    }

    private mutating func classReference(_ name: String, parents: [String] = []) -> PropertyListUID {
        if let known = classIndices[name] { return uid(known) }
        let chain: [String]
        switch name {
        case "NSMutableDictionary": chain = [name, "NSDictionary", "NSObject"]
        case "NSMutableArray": chain = [name, "NSArray", "NSObject"]
        default: chain = [name] + parents + ["NSObject"]
        }
        objects.append(["$classname": name, "$classes": chain] as [String: Any])
        classIndices[name] = objects.count - 1
        return uid(objects.count - 1)
    }
}
