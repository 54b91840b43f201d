import Foundation

extension MappingModel {
    /// Infers the mapping Core Data's lightweight migration would use between two model versions.
    ///
    /// Entities and properties are matched by their renaming identifier (`elementID`) or, without
    /// one, by name, so a destination entity whose identifier is the source entity's old name is a
    /// rename. Models still editable are resolved first; neither is changed otherwise.
    public init(inferringFrom source: ManagedObjectModel, to destination: ManagedObjectModel) throws {
        try MigrationManager.resolveIfEditable(source)
        try MigrationManager.resolveIfEditable(destination)
        let entityMap = MappingInference.entityMap(source: source, destination: destination)
        var mappings: [EntityMapping] = []
        var problems: [String] = []
        var feeders: [String: Set<String>] = [:]
        for entity in destination.entities.sorted(by: { $0.name < $1.name }) {
            guard let from = entityMap[ObjectIdentifier(entity)] else {
                mappings.append(EntityMapping(kind: .add, sourceEntityName: nil, destinationEntityName: entity.name,
                                              propertyMappings: MappingInference.addedProperties(of: entity)))
                continue
            }
            feeders["Z" + entity.rootEntity.name.uppercased(), default: []].insert("Z" + from.rootEntity.name.uppercased())
            var properties: [PropertyMapping] = []
            for property in entity.ownProperties where MappingInference.isStored(property) {
                properties.append(MappingInference.propertyMapping(property, from: from, entityMap: entityMap, problems: &problems))
            }
            let used = Set(entity.properties.compactMap { MappingInference.sourceProperty(for: $0, in: from) }.map(ObjectIdentifier.init))
            for property in from.ownProperties where MappingInference.isStored(property) && !used.contains(ObjectIdentifier(property)) {
                properties.append(PropertyMapping(kind: .remove, sourceName: property.name, destinationName: nil,
                                                  detail: MappingInference.typeText(property)))
            }
            mappings.append(EntityMapping(kind: from.name == entity.name ? .copy : .rename, sourceEntityName: from.name,
                                          destinationEntityName: entity.name, propertyMappings: properties,
                                          otherChanges: MappingInference.entityChanges(entity, from: from, entityMap: entityMap)))
        }
        let mapped = Set(entityMap.values.map(ObjectIdentifier.init))
        for entity in source.entities.sorted(by: { $0.name < $1.name }) where !mapped.contains(ObjectIdentifier(entity)) {
            mappings.append(EntityMapping(kind: .remove, sourceEntityName: entity.name, destinationEntityName: nil))
        }
        for (table, sources) in feeders.sorted(by: { $0.key < $1.key }) where sources.count > 1 {
            problems.append("table \(table) would take the objects of several tables (\(sources.sorted().joined(separator: ", "))): their primary keys may collide")
        }
        self.init(entityMappings: mappings, unmappableChanges: problems)
    }
}

/// The matching rules shared by inference and by the migrator.
enum MappingInference {
    static func isStored(_ property: PropertyDescription) -> Bool {
        !property.isTransient && !(property is FetchedPropertyDescription)
    }

    static func identifier(of entity: EntityDescription) -> String { entity.renamingIdentifier ?? entity.name }
    static func identifier(of property: PropertyDescription) -> String { property.renamingIdentifier ?? property.name }

    /// Destination entity → source entity. A renaming identifier wins over a same-named entity;
    /// each source entity feeds at most one destination entity.
    static func entityMap(source: ManagedObjectModel, destination: ManagedObjectModel) -> [ObjectIdentifier: EntityDescription] {
        var result: [ObjectIdentifier: EntityDescription] = [:]
        var taken: Set<ObjectIdentifier> = []
        let byIdentifier = Dictionary(source.entities.map { (identifier(of: $0), $0) }, uniquingKeysWith: { a, _ in a })
        for entity in destination.entities {
            if let match = byIdentifier[identifier(of: entity)], taken.insert(ObjectIdentifier(match)).inserted {
                result[ObjectIdentifier(entity)] = match
            }
        }
        for entity in destination.entities where result[ObjectIdentifier(entity)] == nil {
            if let match = source.entity(named: entity.name), taken.insert(ObjectIdentifier(match)).inserted {
                result[ObjectIdentifier(entity)] = match
            }
        }
        return result
    }

    /// The stored property of `entity` (own or inherited) the destination `property` takes its values from.
    static func sourceProperty(for property: PropertyDescription, in entity: EntityDescription) -> PropertyDescription? {
        guard isStored(property) else { return nil }
        let stored = entity.properties.filter(isStored)
        return stored.first { identifier(of: $0) == identifier(of: property) } ?? stored.first { $0.name == property.name }
    }

    static func typeText(_ property: PropertyDescription) -> String {
        switch property {
        case let attribute as AttributeDescription: return attribute.attributeType.rawValue
        case let relationship as RelationshipDescription:
            return "\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destinationEntityName)"
        default: return ""
        }
    }

    /// A new entity has no objects yet, so even required properties without defaults are fine.
    static func addedProperties(of entity: EntityDescription) -> [PropertyMapping] {
        entity.ownProperties.filter(isStored).map {
            var mapping = PropertyMapping(kind: .add, sourceName: nil, destinationName: $0.name, detail: typeText($0))
            mapping.isRelationship = $0 is RelationshipDescription
            return mapping
        }
    }

    /// The value expression Core Data's inference gives a property read from the source: the
    /// source's value of an attribute; for a relationship, the destination objects made from the
    /// source's related objects (`destinationInstancesForSourceRelationshipNamed:sourceInstances:`).
    static func valueExpression(from old: PropertyDescription) -> QueryExpression {
        let read = QueryExpression.keyPathOf(.variable("source"), old.name)
        guard old is RelationshipDescription else { return read }
        return .function("FUNCTION", [.variable("manager"), .value("destinationInstancesForSourceRelationshipNamed:sourceInstances:"),
                                      .value(old.name), read])
    }

    /// Whether stored values of type `from` convert to `to` without loss.
    static func converts(_ from: AttributeType, to: AttributeType) -> Bool {
        if from == to { return true }
        let integers: [AttributeType] = [.boolean, .integer16, .integer32, .integer64]
        if let a = integers.firstIndex(of: from), let b = integers.firstIndex(of: to) { return a <= b }
        if integers.contains(from) || from == .float { return [.double, .decimal].contains(to) || (from != .integer64 && to == .float) }
        return false
    }

    static func propertyMapping(_ property: PropertyDescription, from entity: EntityDescription,
                                entityMap: [ObjectIdentifier: EntityDescription], problems: inout [String]) -> PropertyMapping {
        let location = "\(property.entity?.name ?? "?").\(property.name)"
        guard let old = sourceProperty(for: property, in: entity) else {
            // A new required attribute without a default, or a new required to-one, leaves
            // existing objects without a value: as in Core Data, that is the data's problem, not
            // the mapping's, and the migration checks the rows (`MigrationContext.missingRequiredValues`).
            if let attribute = property as? AttributeDescription {
                var detail = typeText(attribute) + (attribute.defaultValue.map { ", default \($0)" } ?? "")
                if !attribute.isOptional && attribute.defaultValue == nil { detail += ", required: existing objects must have one" }
                return PropertyMapping(kind: .add, sourceName: nil, destinationName: property.name, detail: detail)
            }
            var detail = typeText(property)
            if let relationship = property as? RelationshipDescription {
                // A required to-many may be empty; only a minimum count asks existing objects
                // for related objects they cannot have yet.
                if relationship.isToMany, relationship.minCount > 0 {
                    problems.append("\(location): new relationship with a minimum of \(relationship.minCount) objects")
                } else if !relationship.isToMany, !relationship.isOptional {
                    detail += ", required: existing objects must have one"
                }
            }
            var added = PropertyMapping(kind: .add, sourceName: nil, destinationName: property.name, detail: detail)
            added.isRelationship = property is RelationshipDescription
            return added
        }
        let renamed = old.name != property.name
        var kind: PropertyMapping.Kind = renamed ? .rename : .copy
        var detail = ""
        switch (old, property) {
        case let (oldAttribute as AttributeDescription, attribute as AttributeDescription):
            if oldAttribute.attributeType != attribute.attributeType {
                if converts(oldAttribute.attributeType, to: attribute.attributeType) {
                    kind = .retype
                    detail = "\(oldAttribute.attributeType.rawValue) -> \(attribute.attributeType.rawValue)"
                } else {
                    problems.append("\(location): type changes from \(oldAttribute.attributeType.rawValue) to \(attribute.attributeType.rawValue)")
                }
            }
            if let oldComposite = oldAttribute as? CompositeAttributeDescription, let composite = attribute as? CompositeAttributeDescription {
                let changes = elementChanges(composite, from: oldComposite, location: location, problems: &problems)
                if !changes.isEmpty {
                    // The element columns change: not a plain copy of the attribute's column.
                    kind = .retype
                    detail = "elements: " + changes.joined(separator: ", ")
                }
            }
            if oldAttribute.isOptional && !attribute.isOptional {
                if let value = attribute.defaultValue {
                    if kind == .copy { kind = .required }
                    detail += (detail.isEmpty ? "" : ", ") + "missing values become \(value)"
                } else {
                    if kind == .copy { kind = .required }
                    detail += (detail.isEmpty ? "" : ", ") + "every object must have a value"
                }
            }
        case let (oldRelationship as RelationshipDescription, relationship as RelationshipDescription):
            if let destination = relationship.destinationEntity, let oldDestination = oldRelationship.destinationEntity {
                let fits = entityMap[ObjectIdentifier(destination)].map { $0.isKind(of: oldDestination) || oldDestination.isKind(of: $0) } ?? false
                if !fits {
                    problems.append("\(location): destination changes from \(oldDestination.name) to \(destination.name)")
                }
            }
            let before = storage(of: oldRelationship), after = storage(of: relationship)
            if before != after || oldRelationship.isToMany != relationship.isToMany {
                if after == .column && before != .column {
                    problems.append("\(location): changes from to-many to to-one (related objects would be lost)")
                } else {
                    kind = .cardinality
                    detail = "\(typeText(oldRelationship)) -> \(typeText(relationship))"
                }
            }
            if oldRelationship.isOptional && !relationship.isOptional && !relationship.isToMany {
                detail += (detail.isEmpty ? "" : ", ") + "every object must have one"
            }
            if relationship.isToMany, relationship.minCount > oldRelationship.minCount {
                problems.append("\(location): minimum of \(relationship.minCount) objects, more than before")
            }
        default:
            problems.append("\(location): changes between attribute and relationship")
        }
        if renamed { detail = "was \(old.name)" + (detail.isEmpty ? "" : ", " + detail) }
        var mapping = PropertyMapping(kind: kind, sourceName: old.name, destinationName: property.name, detail: detail)
        mapping.isRelationship = property is RelationshipDescription
        mapping.valueExpression = valueExpression(from: old)
        return mapping
    }

    /// Where a relationship's links live in the store.
    enum Storage: Equatable {
        /// A foreign-key column in the source entity's table.
        case column
        /// A join table.
        case joinTable
        /// Nothing on this side: the inverse's foreign-key column holds the links.
        case inverseColumn
    }

    static func storage(of relationship: RelationshipDescription) -> Storage {
        if !relationship.isToMany { return .column }
        return SQLiteSchema.usesJoinTable(relationship) ? .joinTable : .inverseColumn
    }

    static func entityChanges(_ entity: EntityDescription, from old: EntityDescription,
                              entityMap: [ObjectIdentifier: EntityDescription]) -> [String] {
        var changes: [String] = []
        let newParent = entity.superentity.flatMap { entityMap[ObjectIdentifier($0)] }?.name
        if newParent != old.superentity?.name || (entity.superentity != nil && newParent == nil) {
            changes.append("parent changes from \(old.superentity?.name ?? "none") to \(entity.superentity?.name ?? "none")")
        }
        func names(_ constraint: [String], in owner: EntityDescription) -> [String] {
            constraint.map { name in owner.property(named: name).map { identifier(of: $0) } ?? name }
        }
        let oldConstraints = old.uniquenessConstraints.map { names($0, in: old) }
        for constraint in entity.uniquenessConstraints where !oldConstraints.contains(names(constraint, in: entity)) {
            changes.append("new uniqueness constraint (\(constraint.joined(separator: ", "))): existing objects must not repeat it")
        }
        let newConstraints = entity.uniquenessConstraints.map { names($0, in: entity) }
        for constraint in old.uniquenessConstraints where !newConstraints.contains(names(constraint, in: old)) {
            changes.append("uniqueness constraint (\(constraint.joined(separator: ", "))) removed")
        }
        for index in entity.fetchIndexes where !old.fetchIndexes.contains(index) {
            changes.append("new fetch index \(index.name) (\(index.elements.map(\.property).joined(separator: ", ")))")
        }
        for index in old.fetchIndexes where !entity.fetchIndexes.contains(index) {
            changes.append("fetch index \(index.name) removed")
        }
        for index in entity.compoundIndexes where !old.compoundIndexes.contains(index) {
            changes.append("new compound index (\(index.joined(separator: ", ")))")
        }
        for index in old.compoundIndexes where !entity.compoundIndexes.contains(index) {
            changes.append("compound index (\(index.joined(separator: ", "))) removed")
        }
        if entity.isAbstract != old.isAbstract { changes.append(entity.isAbstract ? "becomes abstract" : "is no longer abstract") }
        return changes
    }
}
