import Foundation

/// The objects of an `xcmapping.xml`, the file inside an Xcode mapping model (`.xcmappingmodel`)
/// that Xcode compiles to a `.cdm`.
///
/// The file is a Core Data XML store of Xcode's own editing objects: a `<database>` with a
/// `<databaseInfo>` and one `<object type="…" id="z…">` per object, each holding
/// `<attribute name="…" type="…">value</attribute>` and
/// `<relationship name="…" idrefs="z1 z2">` elements. The types are `XDDEVMAPPINGMODEL` (one per
/// file), `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING` and `XDDEVRELATIONSHIPMAPPING`. Those
/// objects belong to a model of Xcode's, not the application's, so the file is read as the XML
/// it is rather than opened as a store. Objects Xcode keeps after a mapping was deleted (their
/// `entitymapping` relationship is empty) are in the file too; readers follow relationships from
/// the mapping model down and so never meet them.
struct XcodeMappingDocument {
    /// One `<object>`: its type (upper-cased, as Xcode writes it), id, attributes and relationships.
    struct Object {
        let type: String
        let id: String
        /// Attribute name (lower-cased) → its `type` attribute and text.
        let attributes: [String: (type: String, text: String)]
        /// Relationship name (lower-cased) → the ids it refers to, in file order.
        let relationships: [String: [String]]
        let line: Int

        func string(_ name: String) -> String? { attributes[name]?.text }

        /// A `bool` attribute: Xcode writes 1 or 0.
        func flag(_ name: String) -> Bool? {
            guard let text = attributes[name]?.text.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
            switch text.lowercased() {
            case "1", "yes", "true": return true
            case "0", "no", "false": return false
            default: return nil
            }
        }
    }

    let objects: [String: Object]
    /// Names the file in errors.
    let source: String

    init(data: Data, source: String) throws(ModelError) {
        self.source = source
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(data)
        } catch {
            throw ModelError("malformed mapping model XML at \(error)", at: source)
        }
        guard root.name == "database" else {
            throw ModelError("the root element is <\(root.name)>, not the <database> of an xcmapping.xml", at: source)
        }
        var objects: [String: Object] = [:]
        for element in root.children where element.name == "object" {
            guard let id = element[attribute: "id"], !id.isEmpty else {
                throw ModelError("line \(element.line): an <object> without an id", at: source)
            }
            guard objects[id] == nil else { throw ModelError("line \(element.line): a second object with the id \(id)", at: source) }
            var attributes: [String: (type: String, text: String)] = [:]
            var relationships: [String: [String]] = [:]
            for child in element.children {
                guard let name = child[attribute: "name"]?.lowercased() else { continue }
                switch child.name {
                case "attribute": attributes[name] = (child[attribute: "type"] ?? "string", child.text)
                case "relationship":
                    relationships[name] = (child[attribute: "idrefs"] ?? "").split(separator: " ").map(String.init)
                default: continue
                }
            }
            objects[id] = Object(type: (element[attribute: "type"] ?? "").uppercased(), id: id, attributes: attributes,
                                 relationships: relationships, line: element.line)
        }
        self.objects = objects
    }

    /// The one `XDDEVMAPPINGMODEL` object.
    func mappingModel() throws(ModelError) -> Object {
        let models = objects.values.filter { $0.type == "XDDEVMAPPINGMODEL" }
        guard let model = models.first else { throw ModelError("no XDDEVMAPPINGMODEL object: not a mapping model", at: source) }
        guard models.count == 1 else {
            throw ModelError("\(models.count) XDDEVMAPPINGMODEL objects (\(models.map(\.id).sorted().joined(separator: ", "))); a mapping model has one",
                             at: source)
        }
        return model
    }

    /// The objects `relationship` of `object` refers to, each checked to be of `type`.
    func related(_ object: Object, _ relationship: String, type: String) throws(ModelError) -> [Object] {
        var result: [Object] = []
        for id in object.relationships[relationship] ?? [] {
            guard let target = objects[id] else {
                throw ModelError("object \(object.id) (\(object.type)): its \(relationship) name object \(id), which the file does not have", at: source)
            }
            guard target.type == type else {
                throw ModelError("object \(object.id) (\(object.type)): its \(relationship) name object \(id), a \(target.type) where a \(type) belongs",
                                 at: source)
            }
            result.append(target)
        }
        return result
    }

    /// The bytes of a `binary` attribute: base64, broken into lines as Xcode writes it.
    func data(_ object: Object, _ name: String, place: String) throws(ModelError) -> Data? {
        guard let text = object.string(name) else { return nil }
        let compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard !compact.isEmpty else { return nil }
        guard let data = Data(base64Encoded: compact) else {
            throw ModelError("\(place): the attribute \(name) is not base64 data", at: source)
        }
        return data
    }
}
