import Foundation

extension ManagedObjectModel {
    /// The model as Xcode-style XML: entities and properties sorted by name, only non-default
    /// settings written, and every attribute the reader kept written back, so nothing is lost.
    public func xmlData() throws -> Data {
        for entity in entities {
            for case let composite as CompositeAttributeDescription in entity.ownProperties where composite.containsItself {
                throw ModelError("the composite contains itself and cannot be written", at: "\(entity.name).\(composite.name)")
            }
        }
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        var modelAttributes = extraXMLAttributes
        modelAttributes["type"] = modelAttributes["type"] ?? "com.apple.IDECoreDataModeler.DataModel"
        modelAttributes["documentVersion"] = modelAttributes["documentVersion"] ?? "1.0"
        if let identifier = versionIdentifiers.sorted().first { modelAttributes["userDefinedModelVersionIdentifier"] = identifier }
        lines.append("<model\(ModelXMLWriter.attributeText(modelAttributes, order: ["type", "documentVersion"]))>")
        var composites = CompositeDefinitionWriter()
        for entity in entities.sorted(by: { $0.name < $1.name }) { lines += ModelXMLWriter.entity(entity, composites: &composites) }
        lines += composites.lines
        for template in fetchRequestTemplates.values.sorted(by: { $0.name < $1.name }) {
            lines.append("    <fetchRequest\(ModelXMLWriter.attributeText(template.xmlAttributes, order: ["name", "entity", "predicateString"]))/>")
        }
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
            var attributes = configurationXMLAttributes[name] ?? [:]
            attributes["name"] = name
            lines.append("    <configuration\(ModelXMLWriter.attributeText(attributes, order: ["name"]))>")
            for member in members { lines.append("        <memberEntity name=\"\(ModelXMLWriter.escape(member))\"/>") }
            lines.append("    </configuration>")
        }
        lines += extraXMLElements.map { "    " + $0 }
        lines.append("</model>")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Writes a `.xcdatamodeld` bundle (with `.xccurrentversion`) or a `.xcdatamodel` folder,
    /// depending on the extension of `url`; any other name gets the XML itself.
    public func write(to url: URL) throws {
        let fileManager = FileManager.default
        let data = try xmlData()
        switch url.pathExtension {
        case "xcdatamodeld":
            let name = url.deletingPathExtension().lastPathComponent
            let version = url.appendingPathComponent("\(name).xcdatamodel")
            try fileManager.createDirectory(at: version, withIntermediateDirectories: true)
            try data.write(to: version.appendingPathComponent("contents"), options: .atomic)
            let plist = try PropertyListWriter.data(["_XCCurrentVersionName": "\(name).xcdatamodel"], format: .xml)
            try plist.write(to: url.appendingPathComponent(".xccurrentversion"), options: .atomic)
        case "xcdatamodel":
            try fileManager.createDirectory(at: url, withIntermediateDirectories: true)
            try data.write(to: url.appendingPathComponent("contents"), options: .atomic)
        default:
            try data.write(to: url, options: .atomic)
        }
    }
}

enum ModelXMLWriter {
    static func entity(_ entity: EntityDescription, composites: inout CompositeDefinitionWriter) -> [String] {
        var attrs = entity.extraXMLAttributes
        attrs["name"] = entity.name
        if let className = entity.managedObjectClassName { attrs["representedClassName"] = className }
        if let parent = entity.superentityName { attrs["parentEntity"] = parent }
        if entity.isAbstract || entity.explicitXMLAttributes.contains("isAbstract") { attrs["isAbstract"] = entity.isAbstract ? "YES" : "NO" }
        if let id = entity.renamingIdentifier { attrs["elementID"] = id }
        if let modifier = entity.versionHashModifier { attrs["versionHashModifier"] = modifier }
        var lines = ["    <entity\(attributeText(attrs, order: ["name", "representedClassName", "parentEntity"]))>"]
        for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) { lines += self.property(property, composites: &composites) }
        // Where Xcode writes them: before the uniqueness constraints.
        lines += nameLists(entity.compoundIndexes, in: "compoundIndexes", list: "compoundIndex", item: "index")
        lines += nameLists(entity.uniquenessConstraints, in: "uniquenessConstraints", list: "uniquenessConstraint", item: "constraint")
        for index in entity.fetchIndexes {
            lines.append("        <fetchIndex name=\"\(escape(index.name))\">")
            for element in index.elements {
                lines.append("            <fetchIndexElement property=\"\(escape(element.property))\" type=\"\(index.kind.xmlType)\" order=\"\(element.ascending ? "ascending" : "descending")\"/>")
            }
            lines.append("        </fetchIndex>")
        }
        lines += entity.extraXMLElements.map { "        " + $0 }
        lines += userInfo(entity.userInfo, indent: "        ")
        lines.append("    </entity>")
        return lines
    }

    /// The lines of a property; a composite attribute's definition goes to `composites`.
    static func property(_ property: PropertyDescription, composites: inout CompositeDefinitionWriter, indent: String = "        ") -> [String] {
        var attrs = property.extraXMLAttributes
        attrs["name"] = property.name
        if property.isOptional { attrs["optional"] = "YES" }
        if property.isTransient, !(property is FetchedPropertyDescription) { attrs["transient"] = "YES" }
        if property.isIndexedBySpotlight { attrs["spotlightIndexingEnabled"] = "YES" }
        if property.isStoredInExternalRecord { attrs["storedInTruthFile"] = "YES" }
        if property.isIndexed { attrs["indexed"] = "YES" }
        if let id = property.renamingIdentifier { attrs["elementID"] = id }
        if let modifier = property.versionHashModifier { attrs["versionHashModifier"] = modifier }
        let order = ["name", "optional", "transient", "attributeType", "composite"]
        // Flags the file wrote at their default are written back the same way.
        for key in property.explicitXMLAttributes where attrs[key] == nil {
            switch key {
            case "minCount": attrs[key] = String((property as? RelationshipDescription)?.minCount ?? 0)
            case "maxCount": attrs[key] = String((property as? RelationshipDescription)?.maxCount ?? 0)
            default: attrs[key] = "NO"
            }
        }
        let children = property.extraXMLElements.map { indent + "    " + $0 } + userInfo(property.userInfo, indent: indent + "    ")
        func element(_ name: String, _ inner: [String]) -> [String] {
            let head = "\(indent)<\(name)\(attributeText(attrs, order: order))"
            return inner.isEmpty ? [head + "/>"] : [head + ">"] + inner + ["\(indent)</\(name)>"]
        }
        switch property {
        case let attribute as AttributeDescription:
            attrs["attributeType"] = attribute.attributeType.rawValue
            if let composite = attribute as? CompositeAttributeDescription {
                attrs["composite"] = composites.name(for: composite)
            }
            // A composite's default is its elements' defaults, written with them.
            if !(attribute is CompositeAttributeDescription), let value = attribute.defaultValue,
               let text = AttributeDefaultValue.format(value, type: attribute.attributeType) {
                // Dates go where Xcode puts them, unless the file said defaultValueString.
                let key = attribute.attributeType == .date && attribute.originalXMLText["defaultValueString"] == nil
                    ? "defaultDateTimeInterval" : "defaultValueString"
                let original = attribute.originalXMLText[key]
                let same = original.flatMap { AttributeDefaultValue.parse($0, type: attribute.attributeType) }.map { ValueEquality.same($0, value) } ?? false
                attrs[key] = same ? original : text
            }
            if let name = attribute.valueTransformerName { attrs["valueTransformerName"] = name }
            if let name = attribute.customClassName { attrs["customClassName"] = name }
            if attribute.usesScalarValueType { attrs["usesScalarValueType"] = "YES" }
            if attribute.allowsExternalBinaryDataStorage { attrs["allowsExternalBinaryDataStorage"] = "YES" }
            if attribute.preservesValueInHistoryOnDeletion { attrs["preserveAfterDeletion"] = "YES" }
            if let expression = attribute.derivationExpression {
                attrs["derived"] = "YES"
                // The text as the file had it when it still says the same, else the expression printed.
                let original = attribute.originalXMLText["derivationExpression"]
                var parser = original.map { PredicateParser(format: $0, arguments: []) }
                attrs["derivationExpression"] = (try? parser?.parseExpressionToEnd()) == expression ? original : expression.description
            }
            for (key, bound) in [("minValueString", attribute.minValue), ("maxValueString", attribute.maxValue)] {
                guard let bound else { continue }
                let original = attribute.originalXMLText[key]
                let same = original.flatMap { Double($0) ?? AttributeDefaultValue.isoDate($0) } == bound
                attrs[key] = same ? original : number(bound)
            }
            if let pattern = attribute.regularExpression { attrs["regularExpressionString"] = pattern }
            return element("attribute", children)
        case let relationship as RelationshipDescription:
            if relationship.isToMany { attrs["toMany"] = "YES" }
            if relationship.minCount > 0 { attrs["minCount"] = String(relationship.minCount) }
            if relationship.isToMany ? relationship.maxCount > 0 : true { attrs["maxCount"] = String(relationship.maxCount) }
            attrs["deletionRule"] = relationship.deleteRule.rawValue
            attrs["destinationEntity"] = relationship.destinationEntityName
            if let inverse = relationship.inverseName {
                attrs["inverseName"] = inverse
                attrs["inverseEntity"] = relationship.destinationEntityName
            }
            if relationship.isOrdered { attrs["ordered"] = "YES" }
            return element("relationship", children)
        case let fetched as FetchedPropertyDescription:
            var request = fetched.fetchRequestXMLAttributes
            request["name"] = fetched.fetchRequestName
            request["entity"] = fetched.destinationEntityName
            if let predicate = fetched.predicateFormat { request["predicateString"] = predicate }
            return element("fetchedProperty", ["\(indent)    <fetchRequest\(attributeText(request, order: ["name", "entity"]))/>"] + children)
        default:
            return []
        }
    }

    static func userInfo(_ info: [String: String], indent: String) -> [String] {
        guard !info.isEmpty else { return [] }
        return ["\(indent)<userInfo>"] + info.sorted(by: { $0.key < $1.key }).map {
            "\(indent)    <entry key=\"\(escape($0.key))\" value=\"\(escape($0.value))\"/>"
        } + ["\(indent)</userInfo>"]
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func attributeText(_ attrs: [String: String], order: [String]) -> String {
        let keys = order.filter { attrs[$0] != nil } + attrs.keys.filter { !order.contains($0) }.sorted()
        return keys.map { " \($0)=\"\(escape(attrs[$0] ?? ""))\"" }.joined()
    }

    static func escape(_ text: String) -> String { XMLEscaping.escaped(text, inAttribute: true) }

    /// An entity's lists of property names as Xcode nests them: `<compoundIndexes>` of
    /// `<compoundIndex>` of `<index value="…"/>`, and the same shape for uniqueness constraints.
    private static func nameLists(_ lists: [[String]], in container: String, list: String, item: String) -> [String] {
        guard !lists.isEmpty else { return [] }
        var lines = ["        <\(container)>"]
        for names in lists {
            lines.append("            <\(list)>")
            for name in names { lines.append("                <\(item) value=\"\(escape(name))\"/>") }
            lines.append("            </\(list)>")
        }
        lines.append("        </\(container)>")
        return lines
    }
}

/// The `<composite>` definitions of the composite attributes a model's XML names, one per
/// distinct set of elements: under the name the model read them by (or the attribute's name,
/// capitalised), numbered when two different composites would take the same name.
struct CompositeDefinitionWriter {
    private var definitions: [(name: String, body: [String])] = []

    /// The definition name `composite` is written under, its definition (and those of its nested
    /// composites) noted for `lines`.
    mutating func name(for composite: CompositeAttributeDescription) -> String {
        var body: [String] = []
        // Elements in their declared order: the order of a composite's elements is its own.
        for element in composite.elements { body += ModelXMLWriter.property(element, composites: &self, indent: "        ") }
        let base = composite.compositeName ?? (composite.name.prefix(1).uppercased() + composite.name.dropFirst())
        var name = base
        var number = 1
        while let known = definitions.first(where: { $0.name == name }) {
            if known.body == body { return name }
            number += 1
            name = "\(base)\(number)"
        }
        definitions.append((name, body))
        return name
    }

    /// The definitions as `<composite>` elements, by name.
    var lines: [String] {
        definitions.sorted { $0.name < $1.name }.flatMap { definition in
            ["    <composite name=\"\(ModelXMLWriter.escape(definition.name))\">"] + definition.body + ["    </composite>"]
        }
    }
}
