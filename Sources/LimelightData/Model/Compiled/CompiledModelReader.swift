import Foundation
import Logging

/// Turns a keyed archive of `NSManagedObjectModel` (a `.mom` file, or a store's model cache) into
/// model objects, with the meaning Core Data gives each archived key.
///
/// An archived entity lists every property it has, its parent's included (as copies, or as proxies
/// to the parent's), so a property belongs to an entity when its parent has no property of that
/// name. Archives keep properties in dictionaries, in no particular order; they are declared here
/// by name, the order Xcode writes them in.
struct CompiledModelReader {
    let archive: KeyedArchive
    private static let logger = Logger(label: "limelight.model")

    /// An entity as archived, before its properties are split into its own and inherited ones.
    private struct ArchivedEntity {
        let entity: EntityDescription
        let object: KeyedArchive.Object
        /// Every property the archive lists for the entity, by name.
        let properties: [(name: String, object: KeyedArchive.Object)]
        let parentName: String?
    }

    func read(into model: ManagedObjectModel) throws {
        let root = try archive.topObject()
        guard try archive.classChain(of: root).contains("NSManagedObjectModel") else {
            throw ModelError("the archive holds a \(try archive.className(of: root)), not a managed object model", at: archive.source)
        }
        var archived: [ArchivedEntity] = []
        for (key, value) in try archive.entries(root.fields["NSEntities"]) {
            guard let object = try archive.object(value) else { continue }
            archived.append(try entity(object, key: try archive.string(key)))
        }
        let byName = Dictionary(archived.map { ($0.entity.name, $0) }, uniquingKeysWith: { first, _ in first })
        for item in archived.sorted(by: { $0.entity.name < $1.entity.name }) {
            let inherited = Set(item.parentName.flatMap { byName[$0] }?.properties.map(\.name) ?? [])
            for (name, object) in item.properties.sorted(by: { $0.name < $1.name }) where !inherited.contains(name) {
                if let property = try property(object, name: name, in: item.entity.name) { item.entity.addProperty(property) }
            }
            model.addEntity(item.entity)
        }
        for (key, value) in try archive.entries(root.fields["NSConfigurations"]) {
            guard let name = try archive.string(key) else { continue }
            model.configurations[name] = try archive.elements(value).compactMap { try entityName($0) }.sorted()
        }
        for (key, value) in try archive.entries(root.fields["NSFetchRequestTemplates"]) {
            guard let name = try archive.string(key), let request = try archive.object(value) else { continue }
            if let template = try template(request, name: name) { model.fetchRequestTemplates[name] = template }
        }
        model.versionIdentifiers = Set(try archive.elements(root.fields["NSVersionIdentifiers"]).compactMap { try archive.string($0) })
    }

    // MARK: Entities

    private func entity(_ object: KeyedArchive.Object, key: String?) throws -> ArchivedEntity {
        guard let name = try archive.string(object.fields["NSEntityName"]) ?? key, !name.isEmpty else {
            throw ModelError("entity object \(object.index) has no name", at: archive.source)
        }
        let entity = EntityDescription(name: name)
        if let className = try archive.string(object.fields["NSClassNameForEntity"]), className != "NSManagedObject" {
            entity.managedObjectClassName = className
        }
        entity.isAbstract = object.fields["NSIsAbstract"] as? Bool ?? false
        entity.renamingIdentifier = try renamingIdentifier(object, name: name)
        entity.versionHashModifier = try archive.string(object.fields["NSVersionHashModifier"])
        entity.userInfo = try archive.stringDictionary(object.fields["NSUserInfo"])
        entity.uniquenessConstraints = try archive.elements(object.fields["NSUniqueTuples"]).map { tuple in
            try archive.elements(tuple).compactMap { try constraintName($0) }
        }
        entity.fetchIndexes = try archive.elements(object.fields["NSFetchIndexDescriptions"]).compactMap { try fetchIndex($0) }
        var properties: [(name: String, object: KeyedArchive.Object)] = []
        for (key, value) in try archive.entries(object.fields["NSProperties"]) {
            guard let property = try archive.object(value) else { continue }
            guard let name = try archive.string(key) ?? propertyName(property) else {
                throw ModelError("a property of \(name) has no name", at: archive.source)
            }
            properties.append((name, property))
        }
        let parent = try archive.object(object.fields["NSSuperentity"]).flatMap { try archive.string($0.fields["NSEntityName"]) }
        entity.superentityName = parent
        return ArchivedEntity(entity: entity, object: object, properties: properties, parentName: parent)
    }

    private func entityName(_ reference: Any) throws -> String? {
        switch try archive.value(reference) {
        case let name as String: return name
        case let object as KeyedArchive.Object: return try archive.string(object.fields["NSEntityName"])
        default: return nil
        }
    }

    /// A uniqueness constraint's element: a property name, or (in older archives) the property.
    private func constraintName(_ reference: Any) throws -> String? {
        switch try archive.value(reference) {
        case let name as String: return name
        case let object as KeyedArchive.Object: return try propertyName(object)
        default: return nil
        }
    }

    private func fetchIndex(_ reference: Any) throws -> FetchIndexDescription? {
        guard let index = try archive.object(reference), let name = try archive.string(index.fields["NSIndexName"]) else { return nil }
        var kinds: Set<FetchIndexDescription.Kind> = []
        let elements = try archive.elements(index.fields["NSIndexElements"]).compactMap { reference -> (property: String, ascending: Bool)? in
            guard let element = try archive.object(reference), let property = try archive.string(element.fields["NSPropertyName"]) else { return nil }
            let code = element.fields["NSFetchIndexElementType"] as? Int ?? 0
            guard let kind = FetchIndexDescription.Kind(code: code) else {
                throw ModelError("the fetch index '\(name)' has an element over '\(property)' of unknown type \(code) (0 is binary, 1 R-tree)", at: archive.source)
            }
            kinds.insert(kind)
            return (property, element.fields["NSAscending"] as? Bool ?? true)
        }
        guard kinds.count <= 1 else {
            throw ModelError("the fetch index '\(name)' mixes R-tree and binary elements, which Core Data refuses too", at: archive.source)
        }
        return FetchIndexDescription(name: name, elements: elements, kind: kinds.first ?? .binary)
    }

    // MARK: Properties

    /// The property an archived object describes; `nil` for a fetched property whose request this
    /// reader cannot express (logged), which only computes values and leaves the store's layout as is.
    private func property(_ object: KeyedArchive.Object, name: String, in entityName: String, proxies: Int = 0) throws -> PropertyDescription? {
        let location = "\(archive.source): \(entityName).\(name)"
        let classes = try archive.classChain(of: object)
        // A proxy stands for a parent's property; in an entity's own list it is read through.
        if classes.first?.hasPrefix("_NSPropertyDescriptionProxy") == true {
            guard let underlying = try archive.object(object.fields["NSUnderlyingProperty"]), proxies < 16 else {
                throw ModelError("a property proxy that leads to no property", at: location)
            }
            return try property(underlying, name: name, in: entityName, proxies: proxies + 1)
        }
        let property: PropertyDescription
        if classes.contains("NSFetchedPropertyDescription") {
            guard let fetched = try fetchedProperty(object, name: name, location: location) else { return nil }
            property = fetched
        } else if classes.contains("NSRelationshipDescription") {
            property = try relationship(object, name: name)
        } else if classes.contains("NSAttributeDescription") {
            property = try attribute(object, name: name, location: location)
        } else {
            throw ModelError("unknown kind of property (\(classes.first ?? "no class"))", at: location)
        }
        try readCommon(object, into: property, name: name)
        return property
    }

    private func propertyName(_ object: KeyedArchive.Object) throws -> String? {
        try archive.string(object.fields["NSPropertyName"])
    }

    /// What every kind of property archives: flags, names, user info.
    private func readCommon(_ object: KeyedArchive.Object, into property: PropertyDescription, name: String) throws {
        if let packed = object.fields["_P"] as? Int, packed != 0 {
            property.isOptional = packed & 0x2 != 0
            property.isTransient = packed & 0x8 != 0
            property.isIndexedBySpotlight = packed & 0x100 != 0
            property.isStoredInExternalRecord = packed & 0x200 != 0
            if let relationship = property as? RelationshipDescription { relationship.isOrdered = packed & 0x400 != 0 }
        } else {
            property.isOptional = object.fields["NSIsOptional"] as? Bool ?? false
            property.isTransient = object.fields["NSIsTransient"] as? Bool ?? false
            property.isIndexedBySpotlight = object.fields["NSIndexedBySpotlight"] as? Bool ?? false
            property.isStoredInExternalRecord = object.fields["NSIsStoredInTruth"] as? Bool ?? false
            if let relationship = property as? RelationshipDescription { relationship.isOrdered = object.fields["NSIsOrdered"] as? Bool ?? false }
        }
        if property is FetchedPropertyDescription { property.isTransient = true }
        property.renamingIdentifier = try renamingIdentifier(object, name: name)
        property.versionHashModifier = try archive.string(object.fields["NSVersionHashModifier"])
        property.userInfo = try archive.stringDictionary(object.fields["NSUserInfo"])
    }

    /// An archive repeats the name as the renaming identifier when none was given: that is no
    /// rename, and the model keeps none.
    private func renamingIdentifier(_ object: KeyedArchive.Object, name: String) throws -> String? {
        guard let identifier = try archive.string(object.fields["NSRenamingIdentifier"]), identifier != name else { return nil }
        return identifier
    }

    private func attribute(_ object: KeyedArchive.Object, name: String, location: String) throws -> AttributeDescription {
        let code = object.fields["NSAttributeType"] as? Int ?? 0
        // How Core Data archives a composite's elements is not documented, and no compiled model
        // with one was at hand to learn it from: such a model is refused rather than guessed at.
        guard let type = AttributeType(code: code), type != .composite else {
            let what = code == AttributeType.composite.code
                ? "composite attributes are not supported in compiled models (.mom, a store's model cache); use the Xcode model (.xcdatamodeld)"
                : "unknown attribute type \(code)"
            throw ModelError(what, at: location)
        }
        let attribute = AttributeDescription(name: name, type: type)
        if let value = try archive.value(object.fields["NSDefaultValue"]), !(value is KeyedArchive.Object) {
            attribute.defaultValue = Self.defaultValue(value, type: type)
        }
        attribute.valueTransformerName = try archive.string(object.fields["NSValueTransformerName"])
        if type == .transformable { attribute.customClassName = try archive.string(object.fields["NSAttributeValueClassName"]) }
        attribute.isIndexed = object.fields["NSIsIndexed"] as? Bool ?? false
        let flags = object.fields["NSFlagsKey"] as? Int ?? 0
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        if flags & 0x1 != 0 { attribute.maxValue = try bound(object.fields["NSMaxValueName"]) }
        if flags & 0x2 != 0 { attribute.minValue = try bound(object.fields["NSMinValueName"]) }
        // Newer archives keep bounds and patterns as validation predicates; any other predicate
        // is kept as one, with its warning.
        let warnings = try archive.elements(object.fields["NSValidationWarnings"])
        var predicates: [QueryPredicate] = []
        var predicateWarnings: [String] = []
        for (index, reference) in try archive.elements(object.fields["NSValidationPredicates"]).enumerated() {
            guard let predicate = try archive.object(reference) else { continue }
            let reader = ArchivedPredicate(archive: archive)
            switch try? reader.validationRule(predicate) {
            case .minimum(let value)?: attribute.minValue = value
            case .maximum(let value)?: attribute.maxValue = value
            case .pattern(let pattern)?: attribute.regularExpression = pattern
            case nil:
                let format: String
                do {
                    format = try reader.format(predicate)
                    var parser = PredicateParser(format: format, arguments: [])
                    predicates.append(try parser.parsePredicateToEnd())
                } catch {
                    // As with fetched properties: a rule that cannot be read is left out, named,
                    // rather than the whole model refused; saves are then less strict, never lossy.
                    Self.logger.warning("\(location): a validation predicate of attribute '\(name)' left out: it cannot be read (\(error))")
                    continue
                }
                let warning = index < warnings.count ? try archive.value(warnings[index]) : nil
                predicateWarnings.append((warning as? String) ?? (warning as? Int).map { "does not satisfy \(format) (error \($0))" }
                    ?? "does not satisfy \(format)")
            }
        }
        if !predicates.isEmpty { attribute.setValidationPredicates(predicates, withValidationWarnings: predicateWarnings) }
        // A derived attribute's expression, archived as an NSExpression: read back as its format.
        if let archived = try archive.object(object.fields["NSDerivationExpression"]) {
            let text: String
            do {
                text = try ArchivedPredicate(archive: archive).expressionFormat(archived)
            } catch {
                throw ModelError("attribute '\(name)': its derivation expression cannot be read (\(error))", at: location)
            }
            var parser = PredicateParser(format: text, arguments: [])
            attribute.derivationExpression = try parser.parseExpressionToEnd()
        }
        return attribute
    }

    private func bound(_ field: Any?) throws -> Double? {
        switch try archive.value(field) {
        case let number as Int: return Double(number)
        case let number as Double: return number
        case let date as Date: return date.timeIntervalSinceReferenceDate
        default: return nil
        }
    }

    private func relationship(_ object: KeyedArchive.Object, name: String) throws -> RelationshipDescription {
        let destination = try archive.object(object.fields["NSDestinationEntity"]).flatMap { try archive.string($0.fields["NSEntityName"]) }
            ?? archive.string(object.fields["_NSDestinationEntityName"])
        guard let destination else { throw ModelError("relationship '\(name)' has no destination entity", at: archive.source) }
        let inverse = try archive.object(object.fields["NSInverseRelationship"]).flatMap { try propertyName($0) }
            ?? archive.string(object.fields["_NSInverseRelationshipName"])
        let maxCount = object.fields["NSMaxCount"] as? Int ?? 1
        let relationship = RelationshipDescription(name: name, destination: destination, inverse: inverse, toMany: maxCount != 1)
        relationship.maxCount = maxCount
        relationship.minCount = object.fields["NSMinCount"] as? Int ?? 0
        relationship.deleteRule = DeleteRule(code: object.fields["NSDeleteRule"] as? Int ?? 1) ?? .nullify
        return relationship
    }

    private func fetchedProperty(_ object: KeyedArchive.Object, name: String, location: String) throws -> FetchedPropertyDescription? {
        let request = try archive.object(object.fields["NSFetchRequest"])
        let entity = try request.flatMap { try entityName($0.fields["NSEntity"] as Any) } ?? archive.string(object.fields["_NSFetchRequestEntityName"])
        guard let entity else { throw ModelError("fetched property without an entity to fetch", at: location) }
        guard let format = try predicateFormat(of: request, location: location, leftOut: "fetched property") else { return nil }
        return FetchedPropertyDescription(name: name, destinationEntityName: entity, predicateFormat: format)
    }

    private func template(_ request: KeyedArchive.Object, name: String) throws -> FetchRequestTemplate? {
        let location = "\(archive.source): fetch request \(name)"
        guard let entity = try entityName(request.fields["NSEntity"] as Any) else {
            throw ModelError("fetch request template without an entity", at: location)
        }
        guard let format = try predicateFormat(of: request, location: location, leftOut: "template") else { return nil }
        var template = FetchRequestTemplate(name: name, entityName: entity, predicateFormat: format)
        template.fetchLimit = request.fields["NSFetchLimit"] as? Int ?? 0
        template.fetchBatchSize = request.fields["NSBatchSize"] as? Int ?? 0
        if request.fields["NSHasFetchRequestFlags"] as? Bool == true, let flags = request.fields["NSFetchRequestFlags"] as? Int {
            template.returnsDistinctResults = flags & 0x1 != 0
            template.includesSubentities = flags & 0x2 != 0
            template.includesPropertyValues = flags & 0x4 != 0
            template.returnsObjectsAsFaults = flags & 0x8 != 0
            template.includesPendingChanges = flags & 0x10 != 0
        }
        return template
    }

    /// A fetch request's predicate as a format string: `.some(nil)` for none, `nil` (logged) for
    /// one this framework cannot express, which leaves out what holds the request.
    private func predicateFormat(of request: KeyedArchive.Object?, location: String, leftOut what: String) throws -> String?? {
        guard let predicate = try request.flatMap({ try archive.object($0.fields["NSPredicate"]) }) else { return .some(nil) }
        do {
            return .some(try ArchivedPredicate(archive: archive).format(predicate))
        } catch {
            Self.logger.warning("\(location): \(what) left out: its predicate cannot be read (\(error))")
            return nil
        }
    }

    // MARK: Codes

    /// An archived default value in the attribute's Swift type.
    static func defaultValue(_ value: Any, type: AttributeType) -> Any? {
        switch value {
        case let flag as Bool: return AttributeDefaultValue.parse(flag ? "1" : "0", type: type)
        case let number as Int: return AttributeDefaultValue.parse(String(number), type: type)
        case let number as Double: return AttributeDefaultValue.parse(String(number), type: type)
        case let text as String: return AttributeDefaultValue.parse(text, type: type)
        case let date as Date: return type == .date ? date : nil
        case let data as Data: return type == .binaryData ? data : nil
        default: return value
        }
    }
}
