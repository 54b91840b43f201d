import Foundation

/// What is wrong with a composite attribute's value: where below the attribute (an element's
/// path, empty for the value itself) and why.
struct CompositeValueProblem: Error, CustomStringConvertible {
    var path: [String]
    var reason: String

    var description: String { path.isEmpty ? reason : "\(path.joined(separator: ".")): \(reason)" }
}

/// The values of composite attributes: dictionaries keyed by element names, nested for nested
/// composites, with each element's value in its attribute's type and elements without a value
/// left out, so that one composite value has one representation (and compares as one).
enum CompositeValues {
    /// `value` as a dictionary with string keys, whatever dictionary type it came as; `nil` for
    /// anything else. `nil` and `NSNull` values are no values: their keys are left out.
    static func dictionary(_ value: Any?) -> [String: Any]? {
        switch value {
        case let dictionary as [String: Any]:
            var result: [String: Any] = [:]
            for (key, element) in dictionary { if let element = present(element) { result[key] = element } }
            return result
        case let dictionary as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key.base as? String else { return nil }
                if let element = present(element) { result[name] = element }
            }
            return result
        default: return nil
        }
    }

    /// A dictionary's value, unless it is `NSNull` or an optional without a value (`[String: Any?]`
    /// hands its values over as optionals).
    private static func present(_ value: Any) -> Any? {
        if let optional = value as? any OptionalValue { return optional.presentValue.flatMap(present) }
        return value is NSNull ? nil : value
    }

    /// `value` as the composite's canonical dictionary, or the first thing wrong with it: a value
    /// that is no dictionary, a key that names no element, a value an element's type cannot take.
    static func canonical(_ value: Any, for composite: CompositeAttributeDescription) throws(CompositeValueProblem) -> [String: Any] {
        guard let dictionary = dictionary(value) else {
            throw CompositeValueProblem(path: [], reason: "expected a dictionary of the composite's elements, got \(type(of: value))")
        }
        var result: [String: Any] = [:]
        for (key, element) in dictionary {
            guard let attribute = composite.elements.first(where: { $0.name == key }) else {
                throw CompositeValueProblem(path: [key], reason: "the composite \(composite.name) has no element '\(key)'")
            }
            if let nested = attribute as? CompositeAttributeDescription {
                let inner: [String: Any]
                do {
                    inner = try canonical(element, for: nested)
                } catch {
                    throw CompositeValueProblem(path: [key] + error.path, reason: error.reason)
                }
                // An optional nested composite without element values is no value, as a store reads it back.
                if !inner.isEmpty || !nested.isOptional { result[key] = inner }
                continue
            }
            guard let coerced = AttributeValueCoercion.coerce(element, to: attribute.attributeType) else {
                throw CompositeValueProblem(path: [key], reason: "expected \(attribute.attributeType.rawValue), got \(type(of: element)) \(element)")
            }
            result[key] = coerced
        }
        return result
    }

    /// A value set for a composite, in its stored form: canonical when it can be; otherwise as
    /// it was given, for validation to report (as a value of the wrong type for any attribute).
    static func stored(_ value: StoredValue, for composite: CompositeAttributeDescription) -> StoredValue {
        guard let given = value.value else { return .null }
        guard let canonical = try? canonical(given, for: composite) else { return value }
        // An optional composite without element values is no value: a store keeps it as a column
        // per element, all empty, which reads back as nil.
        if canonical.isEmpty && composite.isOptional { return .null }
        return StoredValue(present: canonical)
    }

    /// The value at `path` below a composite's dictionary (`["coordinate", "latitude"]`).
    static func value(at path: [String], in dictionary: [String: Any]?) -> Any? {
        var current: Any? = dictionary
        for name in path {
            guard let level = Self.dictionary(current) else { return nil }
            current = level[name]
        }
        return current
    }

    /// `dictionary` with the value at `path` replaced (`nil` removes it), making the nested
    /// dictionaries on the way.
    static func setting(_ value: Any?, at path: ArraySlice<String>, in dictionary: [String: Any]) -> [String: Any] {
        guard let first = path.first else { return dictionary }
        var result = dictionary
        if path.count == 1 {
            result[first] = value
        } else {
            let inner = setting(value, at: path.dropFirst(), in: Self.dictionary(dictionary[first]) ?? [:])
            result[first] = inner.isEmpty ? nil : inner
        }
        return result
    }

    /// The composite's dictionary from the values of its leaf elements, given in `leafElements`
    /// order (as a store keeps them, a column each). A nested composite none of whose elements
    /// has a value is left out; so is the composite itself when it is optional: a composite
    /// with no element values reads as `nil`, and a required one as an empty dictionary.
    static func dictionary(leaves: [Any?], of composite: CompositeAttributeDescription,
                           paths: [[String]]) -> [String: Any]? {
        var result: [String: Any] = [:]
        for (path, value) in zip(paths, leaves) {
            guard let value else { continue }
            result = setting(value, at: path[...], in: result)
        }
        if result.isEmpty { return composite.isOptional ? nil : [:] }
        return result
    }

    /// Every rule of the model `value` breaks as a value of `composite` (`keyPath` names the
    /// attribute, `magnitude`): keys that name no element, element values of the wrong type,
    /// required elements without a value, bounds and patterns; each failure names the element's
    /// key path (`magnitude.richter`).
    static func failures(of value: Any, composite: CompositeAttributeDescription, keyPath: String,
                         object: ManagedObject) -> [ValidationFailure] {
        guard let dictionary = dictionary(value) else {
            return [ValidationFailure(object: object, key: keyPath,
                                      reason: "expected a dictionary of the composite's elements, got \(type(of: value))")]
        }
        var failures: [ValidationFailure] = []
        for key in dictionary.keys.sorted() where !composite.elements.contains(where: { $0.name == key }) {
            failures.append(ValidationFailure(object: object, key: "\(keyPath).\(key)",
                                              reason: "the composite \(keyPath) has no element '\(key)'"))
        }
        for element in composite.elements {
            let path = "\(keyPath).\(element.name)"
            let elementValue = dictionary[element.name]
            if let nested = element as? CompositeAttributeDescription {
                if let elementValue {
                    failures += self.failures(of: elementValue, composite: nested, keyPath: path, object: object)
                } else if !nested.isOptional {
                    failures.append(ValidationFailure(object: object, key: path, reason: "a value is required"))
                }
                continue
            }
            failures += Validation.check(element, value: elementValue, object: object).map { failure in
                var failure = failure
                failure.key = path
                return failure
            }
        }
        return failures
    }
}

/// An optional seen as `Any`, so the value inside can be taken out.
private protocol OptionalValue {
    var presentValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var presentValue: Any? { self.map { $0 as Any } }
}
