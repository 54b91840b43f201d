import Foundation
import PackagePlugin

/// Generates the `ManagedObject` subclasses of the Xcode models in a target at build time, as
/// Xcode does for an app's `.xcdatamodeld`: every `.xcdatamodeld` bundle (or lone `.xcdatamodel`)
/// among the target's files, declared as a resource or not, becomes `<Model>ModelClasses.swift`
/// in the plugin's work folder, compiled with the target.
///
/// Entities whose codegen is "Class Definition" get a class, "Category/Extension" an extension of
/// the target's own class; the declarations are public when a library product offers the
/// target (as Xcode makes them), internal otherwise.
@main
struct ManagedObjectClasses: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "limelight-generate-classes")
        let offeredByLibrary = context.package.products.contains { product in
            product is LibraryProduct && product.targets.contains { $0.id == target.id }
        }
        return Self.models(in: module).map { model in
            let name = model.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name)ModelClasses.swift")
            return .buildCommand(
                displayName: "Generating ManagedObject classes of \(model.lastPathComponent)",
                executable: tool.url,
                arguments: [model.path, "--output", output.path] + (offeredByLibrary ? ["--public"] : []),
                // Every file of the bundle, so that a change to any version regenerates.
                inputFiles: [model] + Self.files(in: model),
                outputFiles: [output])
        }
    }

    /// The target's models: bundles, and versions that are not inside one.
    static func models(in module: SourceModuleTarget) -> [URL] {
        module.sourceFiles.map(\.url).filter { url in
            switch url.pathExtension {
            case "xcdatamodeld": return true
            case "xcdatamodel": return url.deletingLastPathComponent().pathExtension != "xcdatamodeld"
            default: return false
            }
        }.sorted { $0.path < $1.path }
    }

    /// The regular files inside a model bundle.
    static func files(in bundle: URL) -> [URL] {
        // A bundle may be a link to the model kept elsewhere in the package.
        let folder = bundle.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }
}
