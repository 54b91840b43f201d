import Foundation

/// Writes the accessors Xcode generates for to-many relationships (`addToIngredients(_:)`,
/// `removeFromIngredients(_:)`, and for ordered ones `insertIntoSteps(_:at:)` and the rest), which
/// code written for Core Data calls. Objects go in and out through `mutableSetValue(forKey:)`,
/// which changes the related IDs in place rather than the whole collection; the positional ones
/// of ordered relationships edit the array.
struct AccessorRenderer {
    /// `"public "` or nothing.
    let access: String

    /// An extension of the entry's class with the accessors of its to-many relationships; none
    /// when it has no to-many.
    func accessors(_ entry: GenerationPlan.Entry) -> [String] {
        let toManys = entry.properties.filter { $0.toMany != nil }
        guard !toManys.isEmpty else { return [] }
        var lines = [
            "",
            "/// Accessors of \(entry.className)'s to-many relationships, as Xcode generates them.",
            "extension \(entry.className) {",
        ]
        for (position, property) in toManys.enumerated() {
            if position > 0 { lines.append("") }
            lines += members(property)
        }
        lines.append("}")
        return lines
    }

    private func members(_ property: PlannedProperty) -> [String] {
        let suffix = property.name.prefix(1).uppercased() + property.name.dropFirst()
        let key = SourceRenderer.literal(property.name)
        let name = SwiftNames.escaped(property.name)
        let destination: String, collection: String
        switch property.toMany {
        case .set(let type)?: destination = type; collection = "Set<\(type)>"
        case .ordered(let type)?: destination = type; collection = "[\(type)]"
        case nil: return []
        }
        var lines = [
            "    \(access)func addTo\(suffix)(_ value: \(destination)) {",
            "        mutableSetValue(forKey: \(key)).insert(value)",
            "    }",
            "",
            "    \(access)func removeFrom\(suffix)(_ value: \(destination)) {",
            "        mutableSetValue(forKey: \(key)).remove(value)",
            "    }",
            "",
            "    \(access)func addTo\(suffix)(_ values: \(collection)) {",
            "        for value in values { addTo\(suffix)(value) }",
            "    }",
            "",
            "    \(access)func removeFrom\(suffix)(_ values: \(collection)) {",
            "        for value in values { removeFrom\(suffix)(value) }",
            "    }",
        ]
        if case .ordered = property.toMany {
            lines += [
                "",
                "    \(access)func insertInto\(suffix)(_ value: \(destination), at index: Int) {",
                "        \(name).insert(value, at: index)",
                "    }",
                "",
                "    \(access)func removeFrom\(suffix)(at index: Int) {",
                "        \(name).remove(at: index)",
                "    }",
                "",
                "    \(access)func replace\(suffix)(at index: Int, with value: \(destination)) {",
                "        \(name)[index] = value",
                "    }",
            ]
        }
        return lines
    }
}
