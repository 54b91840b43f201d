import Foundation

extension StoreOption {
    /// `[MappingModel]`: mapping models written in code for an automatic migration
    /// (`migratePersistentStoresAutomatically`). When one fits the store's model version and the
    /// coordinator's (`MappingModel(from:forSourceModel:destinationModel:)`), the store is migrated
    /// object by object with it, as Core Data does with a mapping model found in the app's bundles;
    /// otherwise the mapping is inferred, when `inferMappingModelAutomatically` allows it.
    public static let mappingModels = "LimelightMappingModels"
}

extension MappingModel {
    /// The first of `mappingModels` that fits the two model versions, Core Data's
    /// `NSMappingModel(from:forSourceModel:destinationModel:)` over mapping models at hand (written
    /// in code, or read with `MappingModel(contentsOf:policies:)`) rather than the `.cdm` files of
    /// bundles (`init?(from:forSourceModel:destinationModel:policies:)` reads those); `nil` when
    /// none fits.
    ///
    /// A mapping model fits when every entity it names is in the model on its side and, where an
    /// entity mapping records version hashes (`recordEntityVersionHashes` records them), the
    /// entities have those hashes: without hashes, a mapping written for one
    /// step between versions whose entities share names fits the other steps too.
    public init?(from mappingModels: [MappingModel], forSourceModel source: ManagedObjectModel?,
                 destinationModel destination: ManagedObjectModel?) {
        guard let source, let destination,
              let match = mappingModels.first(where: { $0.fits(sourceModel: source, destinationModel: destination) }) else { return nil }
        self = match
    }

    /// Whether every entity mapping names entities of the two models, with the recorded hashes.
    public func fits(sourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel) -> Bool {
        guard !entityMappings.isEmpty else { return false }
        try? MigrationManager.resolveIfEditable(source)
        try? MigrationManager.resolveIfEditable(destination)
        func matches(_ name: String?, _ hash: Data?, in model: ManagedObjectModel) -> Bool {
            guard let name else { return true }
            guard let entity = model.entity(named: name) else { return false }
            return hash.map { $0 == entity.versionHash } ?? true
        }
        return entityMappings.allSatisfy {
            matches($0.sourceEntityName, $0.sourceEntityVersionHash, in: source)
                && matches($0.destinationEntityName, $0.destinationEntityVersionHash, in: destination)
        }
    }

    /// Problems that stop a migration with this mapping before anything is read: entities and
    /// properties it names that the models do not have, mapping names used twice.
    func problems(sourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel) -> [String] {
        var problems: [String] = []
        var names: Set<String> = []
        for mapping in entityMappings {
            if !names.insert(mapping.name).inserted { problems.append("two entity mappings are named \(mapping.name)") }
            if let name = mapping.sourceEntityName, source.entity(named: name) == nil {
                problems.append("\(mapping.name): the source model has no entity \(name)")
            }
            guard let name = mapping.destinationEntityName else { continue }
            guard let entity = destination.entity(named: name) else {
                problems.append("\(mapping.name): the destination model has no entity \(name)")
                continue
            }
            for property in mapping.attributeMappings + mapping.relationshipMappings {
                guard let key = property.name else { continue }
                let found = entity.property(named: key)
                if found == nil || found is FetchedPropertyDescription {
                    problems.append("\(mapping.name): entity \(name) has no stored property \(key)")
                } else if (found is RelationshipDescription) != property.isRelationship {
                    problems.append("\(mapping.name): \(name).\(key) is \(property.isRelationship ? "an attribute" : "a relationship"), "
                                    + "but its mapping is among the \(property.isRelationship ? "relationship" : "attribute") mappings")
                }
            }
        }
        return problems
    }
}
