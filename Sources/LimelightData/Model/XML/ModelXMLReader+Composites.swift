import Foundation

/// The `<composite name="Magnitude">` definitions of a model's XML, siblings of its entities,
/// which composite attributes name (`<attribute name="magnitude" attributeType="Composite"
/// composite="Magnitude"/>`).
///
/// A class so the reader, a value passed around while reading, can note which ones were used.
final class CompositeDefinitions {
    /// Xcode writes `<composite>`; `<compositeAttribute>` is read as the same.
    static let elementNames: Set<String> = ["composite", "compositeAttribute"]

    private(set) var byName: [String: XMLTreeElement] = [:]
    private var order: [String] = []
    private var used: Set<String> = []

    func collect(from root: XMLTreeElement, source: String) throws {
        for (position, element) in root.children.enumerated() where Self.elementNames.contains(element.name) {
            guard let name = element.attributeDictionary["name"], !name.isEmpty else {
                throw ModelError("the <\(element.name)> #\(position + 1) of the model has no name", at: source)
            }
            guard byName[name] == nil else { throw ModelError("the composite '\(name)' is defined twice", at: source) }
            byName[name] = element
            order.append(name)
        }
    }

    func use(_ name: String) -> XMLTreeElement? {
        guard let definition = byName[name] else { return nil }
        used.insert(name)
        return definition
    }

    /// The definitions no attribute named, in file order: kept so writing the model loses none.
    var unused: [XMLTreeElement] { order.filter { !used.contains($0) }.compactMap { byName[$0] } }
}

extension ModelXMLReader {
    /// A composite attribute whose elements are those of the definition `definition` names, read
    /// afresh for this attribute (an element belongs to one composite). `chain` is the
    /// definitions being read around it.
    func composite(named name: String, definition: String?, location: String, chain: [String]) throws -> CompositeAttributeDescription {
        guard let definition, !definition.isEmpty else {
            throw ModelError("attribute '\(name)': a Composite attribute needs composite=\"…\" naming its <composite> definition",
                             at: location)
        }
        guard !chain.contains(definition) else {
            throw ModelError("attribute '\(name)': the composite '\(definition)' contains itself (\((chain + [definition]).joined(separator: " → ")))",
                             at: location)
        }
        guard let element = composites.use(definition) else {
            throw ModelError("attribute '\(name)': the composite '\(definition)' is not defined in the model (no <composite name=\"\(definition)\">)",
                             at: location)
        }
        let composite = CompositeAttributeDescription(name: name)
        composite.compositeName = definition
        for (position, child) in element.children.enumerated() {
            let here = "\(location) → composite '\(definition)' \(child.name) #\(position + 1)"
            switch child.name {
            case "attribute":
                composite.elements.append(try attribute(child, location: here, composites: chain + [definition]))
            case "relationship", "fetchedProperty":
                throw ModelError("attribute '\(name)': a <\(child.name)> cannot be an element of the composite '\(definition)'; its elements are attributes",
                                 at: here)
            default:
                throw ModelError("attribute '\(name)': the composite '\(definition)' has an element <\(child.name)>, which is no attribute", at: here)
            }
        }
        guard !composite.elements.isEmpty else {
            throw ModelError("attribute '\(name)': the composite '\(definition)' has no elements", at: location)
        }
        return composite
    }
}
