import Foundation
import LimelightData

extension Limelight.Migrate {
    /// Migrates the store object by object with the mapping model at `url`, made for the two
    /// versions: printed first, then run into a new file that replaces the store only once
    /// everything was migrated and saved.
    func migrate(_ storeURL: URL, from source: (name: String, model: ManagedObjectModel),
                 to destination: (name: String, model: ManagedObjectModel), with url: URL) throws {
        let mappingModel: MappingModel
        do {
            mappingModel = try Self.mappingModel(at: url, from: source, to: destination)
        } catch let error as MissingMigrationPolicyError {
            throw CommandError("\(url.path): entity mapping \(error.entityMapping) runs the migration policy \(error.className), which "
                + "cannot run from the command line (a policy is the application's code, and classes are not loaded by name); "
                + "the store is unchanged. Run this migration from the application: MappingModel(contentsOf:policies:) with the "
                + "policy class, then MigrationManager.migrateStore(at:with:)")
        }
        print("mapping model: \(url.path)")
        for line in Self.describe(mappingModel) { print(line) }
        if dryRun {
            print("dry run: the store was not changed")
            return
        }
        let manager = try MigrationManager(sourceModel: source.model, destinationModel: destination.model)
        try manager.migrateStore(at: storeURL, with: mappingModel)
        print("migrated to \(destination.name) with the mapping model")
        try rebuildMarkers(storeURL)
    }

    /// The mapping model, compiled against the two versions; refused when it was made for others
    /// (a `.cdm` by the entity hashes it records, an `.xcmappingmodel` by the versions it names,
    /// when they are found).
    static func mappingModel(at url: URL, from source: (name: String, model: ManagedObjectModel),
                             to destination: (name: String, model: ManagedObjectModel)) throws -> MappingModel {
        let mapping = try MappingModel(contentsOf: url, sourceModel: source.model, destinationModel: destination.model)
        var fits = mapping.fits(sourceModel: source.model, destinationModel: destination.model)
        let recorded = try MappingModel.recordedModelURLs(ofMappingModelAt: url)
        if fits, let from = recorded.source, let to = recorded.destination {
            fits = try MappingModel(contentsOf: url, sourceModel: ManagedObjectModel(contentsOf: from), destinationModel: ManagedObjectModel(contentsOf: to))
                .fits(sourceModel: source.model, destinationModel: destination.model)
        }
        guard fits else {
            let versions = recorded.source.flatMap { from in recorded.destination.map { " (it maps \(from.lastPathComponent) to \($0.lastPathComponent))" } } ?? ""
            throw CommandError("\(url.path): the mapping model was made for other versions of the model than \(source.name) to \(destination.name)"
                + "\(versions); the store is unchanged")
        }
        return mapping
    }

    /// One line per entity mapping, and one per property mapping with its value expression.
    static func describe(_ mapping: MappingModel) -> [String] {
        let types: [EntityMappingType: String] = [.undefined: "undefined", .custom: "custom", .add: "add", .remove: "remove",
                                                  .copy: "copy", .transform: "transform"]
        var lines: [String] = []
        for entity in mapping.entityMappings {
            let policy = entity.entityMigrationPolicyClassName.map { ", policy \($0)" } ?? ""
            lines.append("\(entity.name): \(entity.sourceEntityName ?? "-") -> \(entity.destinationEntityName ?? "-") (\(types[entity.mappingType] ?? "?")\(policy))")
            if let source = entity.sourceExpression { lines.append("    objects: \(source)") }
            for property in entity.attributeMappings + entity.relationshipMappings {
                lines.append("    \(property.name ?? "?") = \(property.valueExpression?.description ?? "(its default)")")
            }
        }
        return lines
    }
}
