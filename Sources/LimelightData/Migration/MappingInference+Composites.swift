import Foundation

/// How a composite attribute's elements are matched across model versions: by renaming
/// identifier, else by name, level by level, as properties are. A store keeps a column per leaf
/// element, so an added element adds a column, a removed one drops it, and a kept one is copied.
extension MappingInference {
    /// The path in `old` of the leaf element at `path` in `composite`; `nil` when it is new (or
    /// was a composite and is a plain element now, or the other way round).
    static func sourceElementPath(_ path: [String], in composite: CompositeAttributeDescription,
                                  from old: CompositeAttributeDescription) -> [String]? {
        var current = composite
        var previous = old
        var result: [String] = []
        for (position, name) in path.enumerated() {
            guard let element = current.elements.first(where: { $0.name == name }),
                  let match = previous.elements.first(where: { identifier(of: $0) == identifier(of: element) })
                      ?? previous.elements.first(where: { $0.name == element.name }) else { return nil }
            result.append(match.name)
            if position == path.count - 1 { return match is CompositeAttributeDescription ? nil : result }
            guard let nested = element as? CompositeAttributeDescription, let oldNested = match as? CompositeAttributeDescription else { return nil }
            current = nested
            previous = oldNested
        }
        return nil
    }

    /// What changes between the elements of `old` and of `composite` (`location` names the
    /// attribute): the changes for the mapping's detail, and those a lightweight migration cannot
    /// carry out added to `problems`.
    static func elementChanges(_ composite: CompositeAttributeDescription, from old: CompositeAttributeDescription,
                               location: String, problems: inout [String]) -> [String] {
        var changes: [String] = []
        var kept: Set<[String]> = []
        for leaf in composite.leafElements {
            let name = leaf.path.joined(separator: ".")
            guard let oldPath = sourceElementPath(leaf.path, in: composite, from: old), let oldLeaf = old.element(atPath: oldPath) else {
                if !leaf.attribute.isOptional && leaf.attribute.defaultValue == nil {
                    problems.append("\(location).\(name): new required element without a default value")
                }
                changes.append("+ \(name)")
                continue
            }
            kept.insert(oldPath)
            if oldPath != leaf.path { changes.append("\(oldPath.joined(separator: ".")) -> \(name)") }
            if oldLeaf.attributeType != leaf.attribute.attributeType {
                if converts(oldLeaf.attributeType, to: leaf.attribute.attributeType) {
                    changes.append("\(name) \(oldLeaf.attributeType.rawValue) -> \(leaf.attribute.attributeType.rawValue)")
                } else {
                    problems.append("\(location).\(name): type changes from \(oldLeaf.attributeType.rawValue) to \(leaf.attribute.attributeType.rawValue)")
                }
            }
            if oldLeaf.isOptional, !leaf.attribute.isOptional, leaf.attribute.defaultValue == nil {
                problems.append("\(location).\(name): element becomes required without a default value")
            }
        }
        for leaf in old.leafElements where !kept.contains(leaf.path) {
            changes.append("- \(leaf.path.joined(separator: "."))")
        }
        return changes
    }
}
