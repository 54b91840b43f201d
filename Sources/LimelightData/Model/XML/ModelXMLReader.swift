import Foundation

extension ManagedObjectModel {
    /// Reads an Xcode model: a `.xcdatamodeld` bundle (its current version, named by
    /// `.xccurrentversion`), one `.xcdatamodel` folder, or a `contents` file; or a compiled one, a
    /// `.momd` bundle or `.mom` file, as `NSManagedObjectModel(contentsOf:)` takes them.
    public convenience init(contentsOf url: URL) throws {
        if Self.isCompiledModel(url) {
            try self.init(compiledModelAt: url)
            return
        }
        let file = try Self.contentsFile(for: url)
        try self.init(xmlData: ModelError.contents(of: file), source: file.path)
    }

    /// Reads model XML; `source` names it in errors.
    public convenience init(xmlData data: Data, source: String) throws {
        self.init()
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(data)
        } catch {
            throw ModelError("malformed model XML at \(error)", at: source)
        }
        guard root.name == "model" else {
            throw ModelError("the root element is not <model>", at: source)
        }
        try ModelXMLReader(source: source).read(root, into: self)
        do {
            try resolve()
        } catch let error as ModelError {
            throw ModelError(error.reason, at: "\(source): \(error.location)")
        }
    }

    /// The versions in a `.xcdatamodeld` bundle, in the order Xcode numbers them (`Model`,
    /// `Model 2` … `Model 10`; see `ModelVersionOrder`).
    public static func versions(inBundle url: URL) throws -> [(name: String, url: URL)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        let versions = names.filter { $0.hasSuffix(".xcdatamodel") }
            .map { (name: String($0.dropLast(".xcdatamodel".count)), file: $0) }
            .sorted { ModelVersionOrder.precedes($0.name, $1.name) }
        guard !versions.isEmpty else { throw ModelError("no .xcdatamodel versions in the bundle", at: url.path) }
        return versions.map { ($0.name, url.appendingPathComponent($0.file)) }
    }

    static func contentsFile(for url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError("no such model file or bundle", at: url.path)
        }
        guard isDirectory.boolValue else { return url }
        if url.pathExtension == "xcdatamodeld" {
            let current = url.appendingPathComponent(".xccurrentversion")
            if let data = try? Data(contentsOf: current),
               let plist = try? PropertyListReader.read(data) as? [String: Any],
               let name = plist["_XCCurrentVersionName"] as? String {
                return url.appendingPathComponent(name).appendingPathComponent("contents")
            }
            guard let last = try versions(inBundle: url).last else { throw ModelError("empty model bundle", at: url.path) }
            return last.url.appendingPathComponent("contents")
        }
        let contents = url.appendingPathComponent("contents")
        if !FileManager.default.fileExists(atPath: contents.path),
           FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path) {
            // Xcode 3 kept models as binary "elements" and "layout" archives; Xcode 4 and later
            // convert them to the contents XML when the model is opened and saved.
            throw ModelError("this .xcdatamodel is in the Xcode 3 format (an elements file, no contents); "
                             + "open it in Xcode 4 or later and save it to convert it", at: url.path)
        }
        return contents
    }
}

/// Turns `<model>` XML into model objects, keeping attributes it does not interpret.
struct ModelXMLReader {
    let source: String
    /// The model's `<composite>` definitions, which composite attributes name.
    let composites = CompositeDefinitions()

    init(source: String) {
        self.source = source
    }

    func read(_ root: XMLTreeElement, into model: ManagedObjectModel) throws {
        model.extraXMLAttributes = root.attributeDictionary
        if let identifier = model.extraXMLAttributes["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
            model.versionIdentifiers = [identifier]
        }
        try composites.collect(from: root, source: source)
        for element in root.children {
            switch element.name {
            case _ where CompositeDefinitions.elementNames.contains(element.name):
                // Read where an attribute names it; one no attribute names is kept as it is.
                continue
            case "entity": model.addEntity(try entity(element))
            case "fetchRequest":
                let template = try FetchRequestTemplate(xmlAttributes: element.attributeDictionary, source: source)
                model.fetchRequestTemplates[template.name] = template
            case "configuration":
                var attributes = element.attributeDictionary
                guard let name = attributes.removeValue(forKey: "name") else { throw ModelError("<configuration> needs a name", at: source) }
                model.configurations[name] = element.children.compactMap { $0.attributeDictionary["name"] }
                if !attributes.isEmpty { model.configurationXMLAttributes[name] = attributes }
            default: model.extraXMLElements.append(element.xmlString)
            }
        }
        model.extraXMLElements += composites.unused.map(\.xmlString)
    }

    private func entity(_ element: XMLTreeElement) throws -> EntityDescription {
        var attrs = element.attributeDictionary
        guard let name = attrs.removeValue(forKey: "name"), !name.isEmpty else {
            throw ModelError("an <entity> has no name", at: source)
        }
        let entity = EntityDescription(name: name, parent: attrs.removeValue(forKey: "parentEntity"))
        entity.managedObjectClassName = attrs.removeValue(forKey: "representedClassName")
        entity.isAbstract = flag("isAbstract", in: &attrs, explicit: &entity.explicitXMLAttributes)
        entity.renamingIdentifier = attrs.removeValue(forKey: "elementID")
        entity.versionHashModifier = attrs.removeValue(forKey: "versionHashModifier")
        entity.extraXMLAttributes = attrs
        for (position, child) in element.children.enumerated() {
            let location = "\(source): entity '\(name)' \(child.name) #\(position + 1)"
            switch child.name {
            case "attribute": entity.addProperty(try attribute(child, location: location))
            case "relationship": entity.addProperty(try relationship(child, location: location))
            case "fetchedProperty": entity.addProperty(try fetchedProperty(child, location: location))
            case "userInfo": entity.userInfo = userInfo(child)
            case "uniquenessConstraints":
                entity.uniquenessConstraints = child.children.map { constraint in
                    constraint.children.compactMap { $0.attributeDictionary["value"] }
                }
            case "compoundIndexes":
                entity.compoundIndexes = child.children.map { index in index.children.compactMap { $0.attributeDictionary["value"] } }
            case "fetchIndex":
                let indexName = child.attributeDictionary["name"] ?? "index"
                let items = child.children.filter { $0.attributeDictionary["property"] != nil }
                let kinds = Set(items.map { FetchIndexDescription.Kind(xmlType: $0.attributeDictionary["type"]) })
                guard kinds.count <= 1 else {
                    throw ModelError("the fetch index '\(indexName)' mixes R-tree and binary elements, which Core Data refuses too", at: location)
                }
                entity.fetchIndexes.append(FetchIndexDescription(name: indexName, elements: items.compactMap { item in
                    let a = item.attributeDictionary
                    return a["property"].map { ($0, a["order"] != "descending") }
                }, kind: kinds.first ?? .binary))
            default: entity.extraXMLElements.append(child.xmlString)
            }
        }
        return entity
    }

    /// A YES/NO attribute; one written out at NO is remembered so it is written back.
    private func flag(_ key: String, in attrs: inout [String: String], explicit: inout Set<String>) -> Bool {
        guard let text = attrs.removeValue(forKey: key) else { return false }
        if text != "YES" { explicit.insert(key) }
        return text == "YES"
    }

    private func common(_ property: PropertyDescription, _ attrs: inout [String: String]) {
        property.isOptional = flag("optional", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.isTransient = flag("transient", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.isIndexedBySpotlight = flag("spotlightIndexingEnabled", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.isStoredInExternalRecord = flag("storedInTruthFile", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.isIndexed = flag("indexed", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.renamingIdentifier = attrs.removeValue(forKey: "elementID")
        property.versionHashModifier = attrs.removeValue(forKey: "versionHashModifier")
    }

    /// Keeps a property's children other than `<userInfo>` as XML text.
    private func keepChildren(of element: XMLTreeElement, in property: PropertyDescription, except known: Set<String> = ["userInfo"]) {
        for child in element.children {
            if child.name == "userInfo" { property.userInfo = userInfo(child) }
            if !known.contains(child.name) { property.extraXMLElements.append(child.xmlString) }
        }
    }

    /// An `<attribute>` of an entity, or an element of a composite; `composites` is the chain of
    /// composite definitions being read around it (to refuse one that contains itself).
    func attribute(_ element: XMLTreeElement, location: String, composites chain: [String] = []) throws -> AttributeDescription {
        var attrs = element.attributeDictionary
        guard let name = attrs.removeValue(forKey: "name"), !name.isEmpty else { throw ModelError("missing name", at: location) }
        guard let typeName = attrs.removeValue(forKey: "attributeType") else { throw ModelError("attribute '\(name)': missing attributeType", at: location) }
        guard let type = AttributeType(rawValue: typeName) else {
            throw ModelError("attribute '\(name)': unknown attributeType '\(typeName)'", at: location)
        }
        let attribute = type == .composite
            ? try composite(named: name, definition: attrs.removeValue(forKey: "composite"), location: location, chain: chain)
            : AttributeDescription(name: name, type: type)
        common(attribute, &attrs)
        if let text = attrs.removeValue(forKey: "defaultValueString") {
            guard let value = AttributeDefaultValue.parse(text, type: type) else {
                throw ModelError("attribute '\(name)': default '\(text)' is not a valid \(typeName)", at: location)
            }
            attribute.defaultValue = value
            attribute.originalXMLText["defaultValueString"] = text
        }
        if let text = attrs.removeValue(forKey: "defaultDateTimeInterval") {
            // Xcode writes a date attribute's default as seconds since 2001-01-01 under this name.
            guard type == .date, let seconds = Double(text) else {
                throw ModelError("attribute '\(name)': defaultDateTimeInterval '\(text)' is not seconds since 2001-01-01 on a Date attribute", at: location)
            }
            attribute.defaultValue = Date(timeIntervalSinceReferenceDate: seconds)
            attribute.originalXMLText["defaultDateTimeInterval"] = text
        }
        attribute.valueTransformerName = attrs.removeValue(forKey: "valueTransformerName")
        attribute.customClassName = attrs.removeValue(forKey: "customClassName")
        attribute.usesScalarValueType = flag("usesScalarValueType", in: &attrs, explicit: &attribute.explicitXMLAttributes)
        attribute.allowsExternalBinaryDataStorage = flag("allowsExternalBinaryDataStorage", in: &attrs, explicit: &attribute.explicitXMLAttributes)
        attribute.preservesValueInHistoryOnDeletion = flag("preserveAfterDeletion", in: &attrs, explicit: &attribute.explicitXMLAttributes)
        for key in ["minValueString", "maxValueString"] {
            guard let text = attrs.removeValue(forKey: key) else { continue }
            guard let bound = Double(text) ?? AttributeDefaultValue.isoDate(text) else {
                throw ModelError("attribute '\(name)': \(key) '\(text)' is not a number", at: location)
            }
            if key == "minValueString" { attribute.minValue = bound } else { attribute.maxValue = bound }
            attribute.originalXMLText[key] = text
        }
        attribute.regularExpression = attrs.removeValue(forKey: "regularExpressionString")
        let derived = flag("derived", in: &attrs, explicit: &attribute.explicitXMLAttributes)
        if let text = attrs.removeValue(forKey: "derivationExpression") {
            var parser = PredicateParser(format: text, arguments: [])
            do {
                if derived { attribute.derivationExpression = try parser.parseExpressionToEnd() }
            } catch {
                throw ModelError("attribute '\(name)': derivation expression '\(text)' does not parse: \(error)", at: location)
            }
            attribute.originalXMLText["derivationExpression"] = text
        }
        keepChildren(of: element, in: attribute)
        attribute.extraXMLAttributes = attrs
        return attribute
    }

    private func relationship(_ element: XMLTreeElement, location: String) throws -> RelationshipDescription {
        var attrs = element.attributeDictionary
        guard let name = attrs.removeValue(forKey: "name"), !name.isEmpty else { throw ModelError("missing name", at: location) }
        guard let destination = attrs.removeValue(forKey: "destinationEntity") else {
            throw ModelError("relationship '\(name)': missing destinationEntity", at: location)
        }
        var explicit: Set<String> = []
        let toMany = flag("toMany", in: &attrs, explicit: &explicit)
        let relationship = RelationshipDescription(name: name, destination: destination, inverse: attrs.removeValue(forKey: "inverseName"), toMany: toMany)
        attrs["inverseEntity"] = nil
        relationship.explicitXMLAttributes = explicit
        common(relationship, &attrs)
        if let rule = attrs.removeValue(forKey: "deletionRule") {
            guard let parsed = DeleteRule(rawValue: rule) else { throw ModelError("relationship '\(name)': unknown deletionRule '\(rule)'", at: location) }
            relationship.deleteRule = parsed
        }
        for key in ["minCount", "maxCount"] {
            guard let text = attrs.removeValue(forKey: key) else { continue }
            guard let count = Int(text), count >= 0 else {
                throw ModelError("relationship '\(name)': \(key) '\(text)' is not a count", at: location)
            }
            if key == "minCount" { relationship.minCount = count } else { relationship.maxCount = count }
            relationship.explicitXMLAttributes.insert(key)
        }
        relationship.isOrdered = flag("ordered", in: &attrs, explicit: &relationship.explicitXMLAttributes)
        keepChildren(of: element, in: relationship)
        relationship.extraXMLAttributes = attrs
        return relationship
    }

    private func fetchedProperty(_ element: XMLTreeElement, location: String) throws -> FetchedPropertyDescription {
        var attrs = element.attributeDictionary
        guard let name = attrs.removeValue(forKey: "name") else { throw ModelError("missing name", at: location) }
        guard let request = element.children.first(where: { $0.name == "fetchRequest" }) else {
            throw ModelError("fetched property '\(name)': missing <fetchRequest entity=…>", at: location)
        }
        var requestAttrs = request.attributeDictionary
        guard let entity = requestAttrs.removeValue(forKey: "entity") else {
            throw ModelError("fetched property '\(name)': missing <fetchRequest entity=…>", at: location)
        }
        let property = FetchedPropertyDescription(name: name, destinationEntityName: entity,
                                                  predicateFormat: requestAttrs.removeValue(forKey: "predicateString"))
        property.fetchRequestName = requestAttrs.removeValue(forKey: "name") ?? property.fetchRequestName
        property.fetchRequestXMLAttributes = requestAttrs
        property.isOptional = flag("optional", in: &attrs, explicit: &property.explicitXMLAttributes)
        property.versionHashModifier = attrs.removeValue(forKey: "versionHashModifier")
        property.renamingIdentifier = attrs.removeValue(forKey: "elementID")
        keepChildren(of: element, in: property, except: ["userInfo", "fetchRequest"])
        property.extraXMLAttributes = attrs
        return property
    }

    private func userInfo(_ element: XMLTreeElement) -> [String: String] {
        var result: [String: String] = [:]
        for entry in element.children {
            let a = entry.attributeDictionary
            if let key = a["key"] { result[key] = a["value"] ?? "" }
        }
        return result
    }
}

/// Default values as Xcode writes them (`defaultValueString`), in the attribute's Swift type.
enum AttributeDefaultValue {
    static func parse(_ text: String, type: AttributeType) -> Any? {
        // A Boolean attribute changed to a number in Xcode's editor keeps its default as Xcode
        // wrote it, "NO" or "YES"; Core Data reads the model, so numbers take them as 0 and 1.
        let text = type.isNumeric ? (text == "NO" ? "0" : text == "YES" ? "1" : text) : text
        switch type {
        case .integer16: return Int16(text) ?? Double(text).flatMap { Int16(exactly: $0) }
        case .integer32: return Int32(text) ?? Double(text).flatMap { Int32(exactly: $0) }
        case .integer64: return Int64(text) ?? Double(text).flatMap { Int64(exactly: $0) }
        case .double: return Double(text)
        case .float: return Float(text)
        case .decimal: return Decimal(string: text)
        case .boolean: return text == "YES" || text == "1" || text.lowercased() == "true"
        case .string: return text
        case .date: return Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .uuid: return UUID(uuidString: text)
        case .uri: return URL(string: text)
        default: return text
        }
    }

    /// Date bounds in models written by some Xcode versions are ISO 8601 text.
    static func isoDate(_ text: String) -> Double? {
        ISO8601Timestamp.date(from: text)?.timeIntervalSinceReferenceDate
    }

    static func format(_ value: Any, type: AttributeType) -> String? {
        switch value {
        case let bool as Bool where type == .boolean: return bool ? "YES" : "NO"
        case let date as Date: return String(date.timeIntervalSinceReferenceDate)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        default: return "\(value)"
        }
    }
}
