import Foundation

/// How the objects of a store made with one model version become objects of another, Core Data's
/// `NSMappingModel`: one entity mapping per entity of either model when inferred by
/// `MappingModel(inferringFrom:to:)`, or whatever entity mappings the application writes for an
/// object-level ("heavyweight") migration.
///
/// A mapping is plain data so that it can be shown before anything is written (`limelight migrate
/// --dry-run` prints `description`), compared and checked in tests. A lightweight migration reads
/// the inferred detail (`kind`, `otherChanges`) and migrates in SQL; `MigrationManager.migrateStore(
/// from:sourceType:options:with:toDestinationURL:…)` runs any mapping object by object.
public struct MappingModel: Sendable, Equatable, CustomStringConvertible {
    /// Every entity of the destination model, and every removed entity of the source model.
    public var entityMappings: [EntityMapping]
    /// Changes a lightweight migration cannot carry out, each naming the entity and property.
    /// A mapping with any of these is refused before the store is touched.
    public var unmappableChanges: [String]

    public init(entityMappings: [EntityMapping], unmappableChanges: [String]) {
        self.entityMappings = entityMappings
        self.unmappableChanges = unmappableChanges
    }

    /// Whether migrating would change nothing that is stored: same entities, same columns.
    public var isIdentity: Bool {
        entityMappings.allSatisfy { $0.kind == .copy && $0.propertyMappings.allSatisfy { $0.kind == .copy } && $0.otherChanges.isEmpty }
    }

    /// A mapping model of the given entity mappings, as one is made in code.
    public init(entityMappings: [EntityMapping]) {
        self.init(entityMappings: entityMappings, unmappableChanges: [])
    }

    /// The mapping Core Data's lightweight migration would use between two model versions,
    /// Core Data's `inferredMappingModel(forSourceModel:destinationModel:)`. Throws
    /// `MigrationError.unmappable` listing every change that cannot be inferred (use
    /// `MappingModel(inferringFrom:to:)` to get the mapping with the list, as a starting point
    /// for one written by hand).
    public static func inferredMappingModel(forSourceModel source: ManagedObjectModel,
                                            destinationModel destination: ManagedObjectModel) throws -> MappingModel {
        let mapping = try MappingModel(inferringFrom: source, to: destination)
        guard mapping.unmappableChanges.isEmpty else {
            throw MigrationError.unmappable(path: "the model versions", changes: mapping.unmappableChanges)
        }
        return mapping
    }

    /// The entity mappings by name, Core Data's `entityMappingsByName`.
    public var entityMappingsByName: [String: EntityMapping] {
        Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The mapping of the destination entity with this name.
    public func mapping(forDestination name: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == name }
    }

    /// Records every entity mapping's version hashes from the two models, so that the mapping
    /// fits those versions only (see `init?(from:forSourceModel:destinationModel:)`).
    public mutating func recordEntityVersionHashes(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        // Hashes cover inherited properties: a model still editable is resolved first.
        try? MigrationManager.resolveIfEditable(sourceModel)
        try? MigrationManager.resolveIfEditable(destinationModel)
        for index in entityMappings.indices {
            entityMappings[index].recordEntityVersionHashes(sourceModel: sourceModel, destinationModel: destinationModel)
        }
    }

    public var description: String {
        var lines: [String] = []
        for mapping in entityMappings {
            lines.append(mapping.summary)
            for property in mapping.propertyMappings where property.kind != .copy {
                lines.append("    " + property.summary)
            }
            for change in mapping.otherChanges { lines.append("    * " + change) }
        }
        if unmappableChanges.isEmpty {
            lines.append(isIdentity ? "no changes: the store already fits the model" : "the mapping can be inferred")
        } else {
            lines.append("cannot be inferred:")
            lines += unmappableChanges.map { "    ! " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
