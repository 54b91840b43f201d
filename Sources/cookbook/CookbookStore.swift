import Foundation
import LimelightData

/// Opens the cookbook's store with marker files on, so recipes show up in `limelight search`.
enum CookbookStore {
    /// The model shipped in share/limelight/models, found next to the program or on $XDG_DATA_DIRS.
    static func modelURL() throws -> URL {
        if let explicit = XDGDirectories.variable("COOKBOOK_MODEL") { return URL(fileURLWithPath: explicit) }
        let relative = "limelight/models/Cookbook.xcdatamodeld"
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [
            executable.appendingPathComponent("../share/\(relative)"),
            executable.appendingPathComponent("../../../share/\(relative)"),
        ]
        candidates += ([XDGDirectories.dataHome] + XDGDirectories.dataDirectories).map { $0.appendingPathComponent(relative) }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw CookbookError("cannot find the Cookbook model (\(relative)); set COOKBOOK_MODEL")
        }
        return found.standardizedFileURL
    }

    static func defaultStoreURL() -> URL {
        XDGDirectories.dataHome.appendingPathComponent("cookbook/Cookbook.sqlite")
    }

    static func open(at storeURL: URL, readOnly: Bool = false) throws -> ManagedObjectContext {
        CookbookModelClasses.register()
        let modelURL = try modelURL()
        let model = try ManagedObjectModel(contentsOf: modelURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options: [String: any Sendable] = [
            StoreOption.externalRecordExtension: "recipe",
            StoreOption.modelSourcePath: modelURL.path,
        ]
        if readOnly { options[StoreOption.readOnly] = true }
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Waits for the marker files of the save, so the daemon (and the demo) see them as soon as
    /// the command exits. A records folder that cannot be written does not undo the save: the
    /// work stays journaled and the next open finishes it, so this only warns.
    static func finishMarkers(_ context: ManagedObjectContext) {
        do {
            try context.persistentStoreCoordinator?.flushExternalRecords()
        } catch {
            FileHandle.standardError.write(Data("cookbook: markers not written yet (\(error)); they are written when the store next opens\n".utf8))
        }
    }

    /// A recipe by name (case-insensitive), object URI, or marker path.
    static func recipe(_ reference: String, in context: ManagedObjectContext) throws -> Recipe {
        if reference.hasPrefix("x-coredata://"), let url = URL(string: reference),
           let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url),
           let recipe = try context.existingObject(with: id) as? Recipe {
            return recipe
        }
        if reference.hasSuffix(".recipe") {
            let elements = try ExternalRecordPath.decode(reference)
            if let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: elements.objectURI),
               let recipe = try context.existingObject(with: id) as? Recipe {
                return recipe
            }
            throw CookbookError("\(reference) belongs to another store (\(elements.storeURL.path))")
        }
        let all = try context.fetch(Recipe.fetchRequest())
        if let match = all.first(where: { $0.name?.compare(reference, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }) {
            return match
        }
        throw CookbookError("no recipe named '\(reference)'")
    }
}

struct CookbookError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
