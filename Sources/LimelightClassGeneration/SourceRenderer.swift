import Foundation

/// Writes the declarations of a `GenerationPlan`, four spaces to a level.
struct SourceRenderer {
    /// `"public "` or nothing.
    let access: String

    func classDefinition(_ entry: GenerationPlan.Entry) -> [String] {
        var lines = [
            "/// The objects of entity \(entry.entityName).",
            "\(access)\(entry.isFinal ? "final " : "")class \(entry.className): \(entry.superclassName) {",
        ]
        // The wrapper is named with its module: the classes are compiled with the application's
        // own code, and a `protocol Managed` there (a common Core Data pattern) would otherwise
        // hide it, as `@NSManaged`, a keyword, never is.
        for property in entry.properties {
            lines.append("    @LimelightData.Managed \(access)var \(SwiftNames.escaped(property.name)): \(property.type)")
        }
        lines.append("}")
        return lines
    }

    /// Properties in an extension cannot be stored, so cannot be `@Managed`: each is computed,
    /// reading and writing the property of its name with change tracking, as `@Managed` does.
    func categoryExtension(_ entry: GenerationPlan.Entry) -> [String] {
        var lines = [
            "/// The properties of entity \(entry.entityName), for the application's class \(entry.className).",
            "extension \(entry.className) {",
        ]
        for (position, property) in entry.properties.enumerated() {
            if position > 0 { lines.append("") }
            let key = Self.literal(property.name)
            lines += [
                "    \(access)var \(SwiftNames.escaped(property.name)): \(property.type) {",
                "        get { value(forKey: \(key), as: \(property.type).self) }",
                "        set { setValue(newValue, forKey: \(key)) }",
                "    }",
            ]
        }
        lines.append("}")
        return lines
    }

    func registration(_ entries: [GenerationPlan.Entry], typeName: String, modelName: String) -> [String] {
        var lines = [
            "/// Registers the classes of model \(modelName) for their entities, so that contexts make",
            "/// their objects of these classes. Call it once, before the first object is read or inserted.",
            "\(access)enum \(typeName) {",
            "    \(access)static func register(in registry: ManagedObjectClassRegistry = .shared) {",
        ]
        for entry in entries {
            lines.append("        registry.register(\(entry.className).self, forEntityName: \(Self.literal(entry.entityName)))")
        }
        lines += ["    }", "}"]
        return lines
    }

    /// A Swift string literal of `text` (model names are identifiers, but entity names are not
    /// checked as strictly as Swift's, so quote what needs it).
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}
