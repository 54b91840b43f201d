import Foundation

extension CompositeAttributeDescription {
    /// A composite's value read from a store of another model version, made to fit this one: each
    /// element takes the value given under its name, or else under its renaming identifier (the
    /// name it had before, as a lightweight migration finds it); nested composites the same way;
    /// values of elements this version lacks are left out.
    ///
    /// An object-level migration copies a composite whole (`$source.magnitude`), so without this a
    /// composite whose elements changed between versions would fail validation for elements the
    /// destination does not have.
    func conformed(_ value: [String: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for element in elements {
            guard let given = value[element.name] ?? element.renamingIdentifier.flatMap({ value[$0] }) else { continue }
            if let nested = element as? CompositeAttributeDescription, let dictionary = given as? [String: Any] {
                result[element.name] = nested.conformed(dictionary)
            } else {
                result[element.name] = given
            }
        }
        return result
    }
}
