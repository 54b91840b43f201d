import Foundation

/// Writes an XML store's file as Core Data does: the DOCTYPE naming Core Data's DTD, the
/// `<databaseInfo>`, then each object with its attributes (those that have a value) and every
/// relationship (an empty one without `idrefs`).
struct XMLStoreWriter {
    let store: XMLStore
    let names: XMLStoreNames

    func document(uuid: String, version: String, nextObjectNumber: Int64, metadata: [String: Any],
                  nodes: [AtomicStoreCacheNode]) throws -> String {
        var out = """
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>\(version)</version>
                <UUID>\(escaped(uuid))</UUID>
                <nextObjectID>\(nextObjectNumber)</nextObjectID>
                <metadata>\(try Self.propertyList(metadata))</metadata>
            </databaseInfo>

        """
        out.reserveCapacity(out.utf8.count + nodes.count * 256)
        for node in nodes { try write(node, into: &out) }
        out += "</database>\n"
        return out
    }

    private func write(_ node: AtomicStoreCacheNode, into out: inout String) throws {
        let entity = node.objectID.entity
        let cache = node.propertyCache ?? [:]
        out += "    <object type=\"\(escaped(XMLStoreNames.entityName(entity)))\" id=\"\(escaped(store.fileID(of: node.objectID)))\">\n"
        for case let attribute as AttributeDescription in entity.properties where !attribute.isTransient {
            guard let value = cache[attribute.name], !(value is NSNull) else { continue }
            try write(attribute, value: value, name: XMLStoreNames.propertyName(attribute), indent: "        ", into: &out)
        }
        for case let relationship as RelationshipDescription in entity.properties where !relationship.isTransient {
            let destinations = AtomicStore.destinations(cache[relationship.name], ordered: relationship.isOrdered)
                + (relationship.isToMany ? [] : AtomicStore.destination(cache[relationship.name]).map { [$0] } ?? [])
            let destinationName = relationship.destinationEntity.map(XMLStoreNames.entityName) ?? relationship.destinationEntityName.uppercased()
            out += "        <relationship name=\"\(escaped(XMLStoreNames.propertyName(relationship)))\" type=\"\(relationship.isToMany ? "0/0" : "1/1")\" destination=\"\(escaped(destinationName))\""
            if !destinations.isEmpty {
                out += " idrefs=\"\(escaped(destinations.map(store.fileID).joined(separator: " ")))\""
            }
            out += "></relationship>\n"
        }
        out += "    </object>\n"
    }

    /// One `<attribute>`. A composite's holds an `<attribute>` per element with a value (nested
    /// for a nested composite), named as the model names the element: Core Data keeps composites
    /// in SQLite stores only, so this form is this framework's own.
    private func write(_ attribute: AttributeDescription, value: Any, name: String, indent: String, into out: inout String) throws {
        out += "\(indent)<attribute name=\"\(escaped(name))\" type=\"\(XMLStoreValues.label(attribute.attributeType))\">"
        if let composite = attribute as? CompositeAttributeDescription {
            guard let dictionary = CompositeValues.dictionary(value) else {
                throw PersistenceError.invalidRequest("\(attribute.entity?.name ?? "?").\(attribute.name): the XML store cannot write \(type(of: value)) as a composite")
            }
            out += "\n"
            for element in composite.elements {
                guard let elementValue = dictionary[element.name] else { continue }
                try write(element, value: elementValue, name: element.name, indent: indent + "    ", into: &out)
            }
            out += "\(indent)</attribute>\n"
            return
        }
        out += XMLEscaping.escaped(try XMLStoreValues.text(value, for: attribute), inAttribute: false)
        out += "</attribute>\n"
    }

    /// The metadata as the `<plist>` element Core Data puts inside `<metadata>`.
    static func propertyList(_ metadata: [String: Any]) throws -> String {
        let text = String(decoding: try PropertyListWriter.data(metadata, format: .xml), as: UTF8.self)
        guard let start = text.range(of: "<plist") else { return "" }
        return String(text[start.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func escaped(_ text: String) -> String { XMLEscaping.escaped(text, inAttribute: true) }
}
