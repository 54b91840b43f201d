import Foundation

/// What policies and value expressions ask the manager during an object-level migration: the
/// entities of a mapping, and which destination objects were made from which source objects.
extension MigrationManager {
    /// The entity a mapping's objects come from, in the source model.
    public func sourceEntity(for mEntity: EntityMapping) -> EntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entity(named: $0) }
    }

    /// The entity a mapping makes objects of, in the destination model.
    public func destinationEntity(for mEntity: EntityMapping) -> EntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entity(named: $0) }
    }

    /// Records that `destinationInstance` was made from `sourceInstance` by `entityMapping`: what
    /// the relationship stage and `destinationInstances(forEntityMappingName:sourceInstances:)`
    /// look up. A policy that makes objects itself associates them.
    public func associate(sourceInstance: ManagedObject, withDestinationInstance destinationInstance: ManagedObject,
                          for entityMapping: EntityMapping) {
        associations.associate(sourceInstance.objectID, with: destinationInstance, mapping: entityMapping.name)
    }

    /// The destination objects the named mapping made from `sourceInstances` (all it made, for
    /// `nil`), in the destination context; empty for a name no mapping has.
    public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [ManagedObject]?) -> [ManagedObject] {
        associations.destinations(mapping: mappingName, sources: sourceInstances?.map(\.objectID))
    }

    /// The source objects the named mapping made `destinationInstances` from (all, for `nil`), in
    /// the source context.
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [ManagedObject]?) -> [ManagedObject] {
        guard let context = sourceContext else { return [] }
        return associations.sources(mapping: mappingName, destinations: destinationInstances).map { context.object(with: $0) }
    }

    /// Stops the migration with `error` at the next step: the destination is not written.
    public func cancelMigrationWithError(_ error: any Error) {
        if cancellation == nil { cancellation = error }
    }

    // MARK: For the default policy

    func requireDestinationContext() throws -> ManagedObjectContext {
        guard let context = destinationContext else {
            throw MappingValueError("no object-level migration is running: policies are called by migrateStore(from:…)")
        }
        return context
    }

    func cachedAttributeMappings(of mapping: EntityMapping) -> [PropertyMapping] {
        if let cached = mappingCache[mapping.name] { return cached.attributes }
        var attributes = mapping.attributeMappings, relationships = mapping.relationshipMappings
        // Inference maps each entity's own properties; inherited ones are in its parent's mapping.
        var parent = mapping.kind == .custom ? nil : destinationEntity(for: mapping)?.superentity
        while let entity = parent {
            if let inherited = mappingModel.mapping(forDestination: entity.name) {
                let names = Set((attributes + relationships).compactMap(\.name))
                attributes += inherited.attributeMappings.filter { !names.contains($0.name ?? "") }
                relationships += inherited.relationshipMappings.filter { !names.contains($0.name ?? "") }
            }
            parent = entity.superentity
        }
        mappingCache[mapping.name] = (attributes, relationships)
        return attributes
    }

    func cachedRelationshipMappings(of mapping: EntityMapping) -> [PropertyMapping] {
        _ = cachedAttributeMappings(of: mapping)
        return mappingCache[mapping.name]?.relationships ?? []
    }

    /// Sets a relationship from a value expression's value: a to-one takes the one object of a
    /// collection (what `destinationInstances…` answers), a to-many any collection. Objects of
    /// another context are refused by name: they are source objects, not yet migrated.
    func setRelationship(_ key: String, of object: ManagedObject, to value: Any?, mapping: EntityMapping) throws {
        guard let relationship = object.entity.relationshipsByName[key] else { return }
        let objects: [ManagedObject]
        if let single = value as? ManagedObject {
            objects = [single]
        } else if let items = PredicateValues.elements(value) {
            objects = try items.compactMap { item in
                guard let item else { return nil }
                guard let object = item as? ManagedObject else {
                    throw MappingValueError("\(mapping.name): the value of relationship \(key) holds \(type(of: item)), not objects")
                }
                return object
            }
        } else if value == nil {
            objects = []
        } else {
            throw MappingValueError("\(mapping.name): the value of relationship \(key) is \(PredicateValues.describe(value)), not objects")
        }
        if let stray = objects.first(where: { $0.managedObjectContext !== object.managedObjectContext }) {
            throw MappingValueError("\(mapping.name): relationship \(key) was given \(stray.entity.name) objects of the source store; "
                + "map them with FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", …)")
        }
        if relationship.isToMany {
            object.setValue(relationship.isOrdered ? objects as Any : Set(objects) as Any, forKey: key)
        } else if objects.count > 1 {
            throw MappingValueError("\(mapping.name): to-one relationship \(key) was given \(objects.count) objects")
        } else {
            object.setValue(objects.first, forKey: key)
        }
    }
}

extension MigrationManager: KeyValueCodingReadable {
    /// Core Data's keys, for `$manager.sourceContext` and the like in expressions.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": return sourceContext
        case "destinationContext": return destinationContext
        case "sourceModel": return sourceModel
        case "destinationModel": return destinationModel
        case "mappingModel": return mappingModel
        case "currentEntityMapping": return currentEntityMapping
        case "migrationProgress": return Double(migrationProgress)
        case "userInfo": return userInfo
        default: return nil
        }
    }
}

/// A mapping's expression or policy produced something the migration cannot use; the
/// description names the mapping and the property.
struct MappingValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
