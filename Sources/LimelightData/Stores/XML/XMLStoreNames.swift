import Foundation

/// Core Data's XML store names entities in capitals (`type="RECIPE"`) and properties in small
/// letters (`name="preptime"`): this finds the model's entity and property for such a name (or
/// for the earlier name its renaming identifier gives), and refuses a model two of whose names
/// differ only in case, which such a file cannot tell apart.
struct XMLStoreNames {
    private var entities: [String: EntityDescription] = [:]
    private var properties: [ObjectIdentifier: [String: PropertyDescription]] = [:]

    init(model: ManagedObjectModel) throws {
        for entity in model.entities {
            let key = Self.entityName(entity)
            if let other = entities[key] {
                throw PersistenceError.invalidRequest("entities \(other.name) and \(entity.name) differ only in case, which an XML store cannot tell apart")
            }
            entities[key] = entity
            var byName: [String: PropertyDescription] = [:]
            for property in entity.properties {
                let name = Self.propertyName(property)
                if let other = byName[name] {
                    throw PersistenceError.invalidRequest("\(entity.name).\(other.name) and \(entity.name).\(property.name) differ only in case, which an XML store cannot tell apart")
                }
                byName[name] = property
            }
            // A property's earlier name (its renaming identifier) finds it too, unless a property
            // has that name now.
            for property in entity.properties {
                if let old = property.renamingIdentifier?.lowercased(), byName[old] == nil { byName[old] = property }
            }
            properties[ObjectIdentifier(entity)] = byName
        }
        for entity in model.entities {
            if let old = entity.renamingIdentifier?.uppercased(), entities[old] == nil { entities[old] = entity }
        }
    }

    /// How the file names `entity`.
    static func entityName(_ entity: EntityDescription) -> String { entity.name.uppercased() }

    /// How the file names `property`.
    static func propertyName(_ property: PropertyDescription) -> String { property.name.lowercased() }

    func entity(named name: String) -> EntityDescription? {
        entities[name.uppercased()]
    }

    func property(named name: String, of entity: EntityDescription) -> PropertyDescription? {
        properties[ObjectIdentifier(entity)]?[name.lowercased()]
    }
}
