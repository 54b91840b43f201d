import Foundation
import LimelightData

/// Opens a store from the shell: with the model given, or the model copy its records folder keeps.
enum StoreOpener {
    struct Opened {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        let model: ManagedObjectModel
    }

    static func open(store: String, model: String?, markerExtension: String? = nil, markerDirectory: String? = nil,
                     readOnly: Bool) throws -> Opened {
        let storeURL = URL(fileURLWithPath: store)
        guard FileManager.default.fileExists(atPath: storeURL.path) else { throw CommandError("\(store): no such store") }
        let modelURL = try model.map { URL(fileURLWithPath: $0) } ?? modelCopy(for: storeURL)
        let loaded = try ManagedObjectModel(contentsOf: modelURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: loaded)
        var options: [String: any Sendable] = [:]
        if readOnly { options[StoreOption.readOnly] = true }
        if let markerExtension { options[StoreOption.externalRecordExtension] = markerExtension }
        if let markerDirectory { options[StoreOption.externalRecordsDirectory] = markerDirectory }
        if !readOnly, markerExtension == nil, let ext = registeredExtension(for: storeURL) {
            options[StoreOption.externalRecordExtension] = ext.ext
            options[StoreOption.externalRecordsDirectory] = ext.directory.path
        }
        if model != nil { options[StoreOption.modelSourcePath] = modelURL.path }
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return Opened(coordinator: coordinator, context: context, model: loaded)
    }

    /// The registered records root of the store at `url`, if it has one.
    static func registeredRoot(for url: URL) -> URL? {
        let target = url.standardizedFileURL.resolvingSymlinksInPath().path
        for root in ExternalRecordsRegistry.registeredRoots().values {
            let pathFile = root.appendingPathComponent(".limelight/store-path")
            if let text = try? String(contentsOf: pathFile, encoding: .utf8),
               URL(fileURLWithPath: text.trimmingCharacters(in: .whitespacesAndNewlines)).resolvingSymlinksInPath().path == target {
                return root
            }
        }
        return nil
    }

    static func registeredExtension(for url: URL) -> (ext: String, directory: URL)? {
        guard let root = registeredRoot(for: url),
              let data = try? Data(contentsOf: root.appendingPathComponent(".limelight/info.plist")),
              let info = try? PropertyListReader.read(data) as? [String: Any],
              let ext = info["extension"] as? String else { return nil }
        return (ext, root.deletingLastPathComponent())
    }

    static func modelCopy(for storeURL: URL) throws -> URL {
        guard let root = registeredRoot(for: storeURL) else {
            throw CommandError("\(storeURL.path): give the model with --model (the store has no records folder with a model copy)")
        }
        return root.appendingPathComponent(".limelight/model.xcdatamodel")
    }
}
