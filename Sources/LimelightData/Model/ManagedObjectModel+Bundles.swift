import Foundation

/// Models found in bundles and matched to stores, as Core Data's class methods find them.
extension ManagedObjectModel {
    /// The models in `bundles` (the main bundle for `nil`) joined into one, as Core Data's
    /// `mergedModel(from:)`: every `.momd`, `.mom`, `.xcdatamodeld` and `.xcdatamodel` among a
    /// bundle's resources, at its current version. `nil` when there is none; throws when one
    /// cannot be read or two define the same entity.
    public static func mergedModel(from bundles: [Bundle]?) throws -> ManagedObjectModel? {
        let files = modelFiles(in: bundles ?? [.main])
        guard !files.isEmpty else { return nil }
        return try merged(files.map { try ManagedObjectModel(contentsOf: $0) })
    }

    /// The models of `bundles` joined into one that fits a store with `metadata`, as Core Data's
    /// `mergedModel(from:forStoreMetadata:)`: from each model file, the version whose entities'
    /// hashes are those the store recorded (`NSStoreModelVersionHashes`). `nil` when some file
    /// has no such version, or the store recorded entities none of the versions has.
    public static func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) throws -> ManagedObjectModel? {
        guard let recorded = metadata["NSStoreModelVersionHashes"] as? [String: Data] else { return nil }
        var chosen: [ManagedObjectModel] = []
        for file in modelFiles(in: bundles ?? [.main]) {
            guard let match = try versions(of: file).first(where: { $0.hasEntities(recordedIn: recorded) }) else { return nil }
            chosen.append(match)
        }
        let model = try merged(chosen)
        guard !chosen.isEmpty, Set(model.entities.map(\.name)) == Set(recorded.keys) else { return nil }
        return model
    }

    /// The model joining `models` when together they are what a store with `metadata` was made
    /// with (every entity the store recorded, with the hash it recorded, and no other), as Core
    /// Data's `init(byMerging:forStoreMetadata:)`; `nil` when they are not. Throws when two
    /// define the same entity.
    public convenience init?(byMerging models: [ManagedObjectModel], forStoreMetadata metadata: [String: Any]) throws {
        guard let recorded = metadata["NSStoreModelVersionHashes"] as? [String: Data],
              models.allSatisfy({ $0.hasEntities(recordedIn: recorded) }),
              Set(models.flatMap { $0.entities.map(\.name) }) == Set(recorded.keys) else { return nil }
        try self.init(byMerging: models)
    }

    /// Whether the configuration `name` (every entity for `nil` or `"Default"`) fits a store with
    /// `metadata`: each of its entities has the version hash the store recorded for it
    /// (`NSStoreModelVersionHashes`), as Core Data's
    /// `isConfiguration(withName:compatibleWithStoreMetadata:)`. A store that needs migrating is
    /// not compatible.
    public func isConfiguration(withName name: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let recorded = metadata["NSStoreModelVersionHashes"] as? [String: Data] else { return false }
        let members = entities(forConfiguration: name)
        return !members.isEmpty && members.allSatisfy { entity in
            // Stores made by earlier versions of this framework recorded hashes of its own.
            recorded[entity.name] == entity.versionHash || recorded[entity.name] == entity.earlierLimelightVersionHash
        }
    }

    /// Whether each of this model's entities has the hash `recorded` gives for it.
    private func hasEntities(recordedIn recorded: [String: Data]) -> Bool {
        entities.allSatisfy { recorded[$0.name] == $0.versionHash || recorded[$0.name] == $0.earlierLimelightVersionHash }
    }

    /// Every version a model file holds: a bundle's versions, or the one model of a single file.
    private static func versions(of file: URL) throws -> [ManagedObjectModel] {
        switch file.pathExtension {
        case "xcdatamodeld":
            return try loadVersions(inBundle: file).map(\.model)
        case "momd":
            let names = try FileManager.default.contentsOfDirectory(atPath: file.path).filter { $0.hasSuffix(".mom") }.sorted()
            return try names.map { try ManagedObjectModel(contentsOf: file.appendingPathComponent($0)) }
        default:
            return [try ManagedObjectModel(contentsOf: file)]
        }
    }

    /// The model files among the resources of `bundles`, in name order per bundle.
    private static func modelFiles(in bundles: [Bundle]) -> [URL] {
        let extensions: Set<String> = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]
        var files: [URL] = []
        for bundle in bundles {
            // A bundle's resources, or the folder itself for a flat bundle (as SwiftPM builds them).
            var folders = [bundle.bundleURL.standardizedFileURL]
            if let resources = bundle.resourceURL?.standardizedFileURL, resources != folders[0] { folders.insert(resources, at: 0) }
            for folder in folders {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                files += names.sorted().filter { extensions.contains(($0 as NSString).pathExtension) }.map { folder.appendingPathComponent($0) }
            }
        }
        return files
    }
}
