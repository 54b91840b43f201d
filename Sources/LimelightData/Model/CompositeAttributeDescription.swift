import Foundation

/// An attribute made of other attributes, Core Data's `NSCompositeAttributeDescription` (iOS 17,
/// macOS 14): a location of a latitude and a longitude, a magnitude of a value and a scale.
///
/// Its value is a `[String: Any]` dictionary keyed by the elements' names; a nested composite's
/// value is a nested dictionary, and an element without a value has no key. An optional
/// composite (or nested composite) none of whose elements has a value is no value (`nil`): a
/// store cannot tell it from one that was never set. A new object's composite starts with the
/// elements' default values, when any element has one. Elements are read
/// and set through the attribute (`value(forKey: "magnitude")`) or through namespaced key paths
/// (`value(forKeyPath: "magnitude.richter")`, `magnitude.richter > 4.5` in a predicate or a sort).
/// A change of one element is a change of the attribute.
///
/// An element is a plain attribute of any other type (with its own optionality, default and
/// validation rules) or a nested composite; Core Data refuses Undefined, ObjectID and binary data
/// kept outside the store as elements, and so does `ManagedObjectModel.resolve()`. An element
/// belongs to one composite: build a new one for each use.
public final class CompositeAttributeDescription: AttributeDescription, @unchecked Sendable {
    /// The attributes the composite is made of, in their declared order.
    public var elements: [AttributeDescription]
    /// The name of the model-level `<composite>` definition an Xcode model gave the elements
    /// under (`Magnitude`); a composite made in code gets its attribute's name, capitalised, when
    /// the model is written.
    public var compositeName: String?

    public init(name: String, elements: [AttributeDescription] = [], isOptional: Bool = true) {
        self.elements = elements
        super.init(name: name, type: .composite, isOptional: isOptional)
    }

    /// The elements by name.
    public var elementsByName: [String: AttributeDescription] {
        Dictionary(elements.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The element `path` names below this composite (`["coordinate", "latitude"]`), or `nil`.
    public func element(atPath path: some Collection<String>) -> AttributeDescription? {
        guard let first = path.first, let element = elements.first(where: { $0.name == first }) else { return nil }
        let rest = path.dropFirst()
        if rest.isEmpty { return element }
        return (element as? CompositeAttributeDescription)?.element(atPath: rest)
    }

    /// Every element that is not itself a composite, with its path below this composite, depth
    /// first in declared order: what a store keeps one column each for.
    public var leafElements: [(path: [String], attribute: AttributeDescription)] {
        var result: [(path: [String], attribute: AttributeDescription)] = []
        func walk(_ composite: CompositeAttributeDescription, _ prefix: [String], depth: Int) {
            // A composite that contains itself has no leaves to speak of; `resolve()` reports it.
            guard depth < Self.maximumDepth else { return }
            for element in composite.elements {
                if let nested = element as? CompositeAttributeDescription {
                    walk(nested, prefix + [element.name], depth: depth + 1)
                } else {
                    result.append((prefix + [element.name], element))
                }
            }
        }
        walk(self, [], depth: 0)
        return result
    }

    /// The dictionary a new object's composite starts with: the elements' default values (nested
    /// composites' too), or `nil` when no element has one.
    var elementDefaults: [String: Any]? { elementDefaults(depth: 0) }

    private func elementDefaults(depth: Int) -> [String: Any]? {
        guard depth < Self.maximumDepth else { return nil }
        var result: [String: Any] = [:]
        for element in elements {
            if let nested = element as? CompositeAttributeDescription {
                if let value = nested.defaultValue as? [String: Any] ?? nested.elementDefaults(depth: depth + 1) { result[element.name] = value }
            } else if let value = element.defaultValue {
                result[element.name] = AttributeValueCoercion.coerce(value, to: element.attributeType) ?? value
            }
        }
        return result.isEmpty ? nil : result
    }

    /// How deep composites may nest: deeper is taken for a composite that contains itself.
    static let maximumDepth = 32

    /// Whether the composite is among its own elements, at any depth.
    var containsItself: Bool {
        func contains(_ composite: CompositeAttributeDescription, _ around: [ObjectIdentifier]) -> Bool {
            if around.contains(ObjectIdentifier(composite)) { return true }
            return composite.elements.contains { element in
                (element as? CompositeAttributeDescription).map { contains($0, around + [ObjectIdentifier(composite)]) } ?? false
            }
        }
        return contains(self, [])
    }

    /// Why the composite cannot be used, or `nil`: no elements, two of one name, an element of a
    /// type Core Data refuses in a composite, or a composite that contains itself. `location`
    /// names the attribute (`Quake.magnitude`).
    func problem(at location: String) -> ModelError? {
        func check(_ composite: CompositeAttributeDescription, path: [String], seen: [ObjectIdentifier]) -> ModelError? {
            let here = "\(location)\(path.isEmpty ? "" : "." + path.joined(separator: "."))"
            if seen.contains(ObjectIdentifier(composite)) {
                return ModelError("the composite contains itself", at: here)
            }
            guard !composite.elements.isEmpty else { return ModelError("a composite attribute needs at least one element", at: here) }
            var names: Set<String> = []
            for element in composite.elements {
                guard !element.name.isEmpty, !element.name.contains(".") else {
                    return ModelError("element name '\(element.name)' is empty or has a dot", at: here)
                }
                guard names.insert(element.name).inserted else { return ModelError("element '\(element.name)' is declared twice", at: here) }
                if let nested = element as? CompositeAttributeDescription {
                    if let problem = check(nested, path: path + [element.name], seen: seen + [ObjectIdentifier(composite)]) { return problem }
                    continue
                }
                let elementLocation = "\(here).\(element.name)"
                switch element.attributeType {
                case .composite:
                    return ModelError("a Composite element must be a CompositeAttributeDescription with elements", at: elementLocation)
                case .undefined, .objectID:
                    return ModelError("a composite cannot hold an element of type \(element.attributeType.rawValue)", at: elementLocation)
                case .binaryData where element.allowsExternalBinaryDataStorage:
                    return ModelError("a composite cannot hold binary data stored outside the store", at: elementLocation)
                default:
                    if element.isTransient { return ModelError("an element of a composite cannot be transient", at: elementLocation) }
                    if element.isDerived { return ModelError("an element of a composite cannot be derived", at: elementLocation) }
                }
            }
            return nil
        }
        return check(self, path: [], seen: [])
    }
}
