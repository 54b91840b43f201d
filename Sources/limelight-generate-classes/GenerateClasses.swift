import ArgumentParser
import Foundation
import LimelightClassGeneration
import LimelightData

/// Writes the ManagedObject subclasses of a model to a file: what the ManagedObjectClasses
/// build-tool plugin runs for each model of a target (`limelight model --swift` does the same
/// from the shell).
@main
struct GenerateClasses: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limelight-generate-classes",
        abstract: "Generate the ManagedObject subclasses of an Xcode model, as Xcode's code generation does.")

    @Argument(help: "An .xcdatamodeld bundle, one .xcdatamodel, or a compiled .momd or .mom.")
    var model: String
    @Option(help: "The Swift file to write.") var output: String
    @Flag(name: .customLong("public"), help: "Declare the classes and their properties public.") var isPublic = false
    @Flag(help: "Generate a class for entities whose codegen is Manual/None too.") var allEntities = false

    func run() throws {
        let url = URL(fileURLWithPath: model)
        let loaded = try ManagedObjectModel(contentsOf: url)
        let generator = ManagedObjectClassGenerator(options: ClassGenerationOptions(
            accessLevel: isPublic ? .public : .internal, generatesAllEntities: allEntities))
        let source = try generator.source(for: loaded, modelName: ManagedObjectClassGenerator.modelName(for: url),
                                          sourceName: url.lastPathComponent)
        let destination = URL(fileURLWithPath: output)
        // The same source is not written again, so what compiles it has nothing new to do.
        if let existing = try? Data(contentsOf: destination), existing == Data(source.utf8) { return }
        try Data(source.utf8).write(to: destination, options: .atomic)
    }
}
