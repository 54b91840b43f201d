import Foundation
import LimelightData

/// Opens a store from the shell: with the model given, the model copy its records folder keeps, or
/// the model a store made by Core Data keeps of itself.
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
        let type = storeType(of: storeURL)
        let modelURL = model.map { URL(fileURLWithPath: $0) } ?? registeredRoot(for: storeURL).map(modelCopy(in:))
        if type == .xml, modelURL == nil {
            throw CommandError("\(store): an XML store keeps no model of its own; give it with --model")
        }
        let loaded = try modelURL.map { try ManagedObjectModel(contentsOf: $0) } ?? cachedModel(of: storeURL)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: loaded)
        var options: [String: any Sendable] = [:]
        if readOnly { options[StoreOption.readOnly] = true }
        if let markerExtension { options[StoreOption.externalRecordExtension] = markerExtension }
        if let markerDirectory { options[StoreOption.externalRecordsDirectory] = markerDirectory }
        if type == .sqlite, !readOnly, markerExtension == nil, let ext = registeredExtension(for: storeURL) {
            options[StoreOption.externalRecordExtension] = ext.ext
            options[StoreOption.externalRecordsDirectory] = ext.directory.path
        }
        if model != nil, let modelURL { options[StoreOption.modelSourcePath] = modelURL.path }
        try coordinator.addPersistentStore(type: type, at: storeURL, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return Opened(coordinator: coordinator, context: context, model: loaded)
    }

    /// What kind of store the file at `url` is: an XML store when it holds XML, else SQLite
    /// (which names what is wrong with a file that is neither).
    static func storeType(of url: URL) -> StoreType {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .sqlite }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        let text = String(decoding: head, as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return text.hasPrefix("<?xml") || text.hasPrefix("<database") ? .xml : .sqlite
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

    static func modelCopy(in root: URL) -> URL {
        root.appendingPathComponent(".limelight/model.xcdatamodel")
    }

    /// The model a store made by Core Data keeps of itself, when no other is at hand.
    static func cachedModel(of storeURL: URL) throws -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(cachedInStoreAt: storeURL)
        } catch let error as PersistenceError {
            // The file itself does not open (not SQLite, cut short): that is what is wrong, not
            // a missing model, and no model given would open it.
            throw error
        } catch {
            throw CommandError("\(storeURL.path): give the model with --model (the store has no records folder with a model copy, "
                + "and no model of its own: \(error))")
        }
    }
}
