import Foundation
import LimelightData

/// Writes the Swift source of a model's `ManagedObject` subclasses, as Xcode's code generation
/// ("Codegen") does at build time for an `.xcdatamodeld`, in this framework's terms.
///
/// - An entity set to "Class Definition" gets a class with a `@Managed` property for each of its
///   own attributes and relationships, inheriting from its parent entity's class.
/// - An entity set to "Category/Extension" gets an extension of the application's own class with
///   the same properties, computed: `@Managed` needs stored properties, which an extension cannot
///   have, so they read with `value(forKey:as:)` and write with `setValue(_:forKey:)`.
/// - To-many relationships get Xcode's accessors (`addToIngredients(_:)` …) in an extension.
/// - An enum `<ModelName>ModelClasses` registers every class for its entity.
///
/// The output depends only on the model and the options (entities and properties in name order),
/// so it can be generated at every build and compared.
public struct ManagedObjectClassGenerator: Sendable {
    public var options: ClassGenerationOptions

    public init(options: ClassGenerationOptions = ClassGenerationOptions()) {
        self.options = options
    }

    /// The name of the registration enum for a model called `modelName`.
    public func registrationTypeName(forModelNamed modelName: String) -> String {
        options.registrationTypeName ?? SwiftNames.typeName(from: modelName) + "ModelClasses"
    }

    /// The source for `model`. `modelName` names the model in the registration enum and, with
    /// `sourceName` (the file it was read from), in the header.
    ///
    /// - Throws: `ClassGenerationError` naming the entity whose class cannot be written: a class
    ///   name that is not a Swift identifier, a class shared by two generated entities, a
    ///   property name Swift or `ManagedObject` cannot take.
    public func source(for model: ManagedObjectModel, modelName: String, sourceName: String? = nil) throws -> String {
        let typeName = registrationTypeName(forModelNamed: modelName)
        guard SwiftNames.isIdentifier(typeName), !SwiftNames.keywords.contains(typeName) else {
            throw ClassGenerationError(entity: "-", "the registration type name '\(typeName)' is not a Swift identifier")
        }
        let plan = try GenerationPlan(model: model, options: options, registrationTypeName: typeName)
        let renderer = SourceRenderer(access: options.accessLevel == .public ? "public " : "")
        var lines = [
            "// Generated from \(sourceName ?? modelName) by Limelight's class generator. Do not edit:",
            "// it is written again whenever the model changes.",
            "",
            "import Foundation",
            "import LimelightData",
        ]
        for entry in plan.entries {
            lines.append("")
            lines += entry.kind == .classDefinition ? renderer.classDefinition(entry) : renderer.categoryExtension(entry)
            lines += AccessorRenderer(access: renderer.access).accessors(entry)
        }
        lines.append("")
        lines += renderer.registration(plan.entries, typeName: typeName, modelName: modelName)
        return lines.joined(separator: "\n") + "\n"
    }
}

extension ManagedObjectClassGenerator {
    /// The name a model file gives its model: `Cookbook` for `Cookbook.xcdatamodeld`, for its
    /// `Cookbook 2.xcdatamodel` inside, for a compiled `Cookbook.momd`, and for a `contents` file
    /// the name of the folder it is in.
    public static func modelName(for url: URL) -> String {
        var file = url.standardizedFileURL
        if file.lastPathComponent == "contents" { file = file.deletingLastPathComponent() }
        let parent = file.deletingLastPathComponent()
        if ["xcdatamodeld", "momd"].contains(parent.pathExtension) { file = parent }
        return file.deletingPathExtension().lastPathComponent
    }
}
