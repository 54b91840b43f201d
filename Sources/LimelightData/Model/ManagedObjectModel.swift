import Foundation

/// The schema of an object graph: its entities, configurations and fetch request templates.
///
/// Build one in code or read it from an Xcode model. The model is editable until a coordinator uses
/// it; from then on it is frozen and shared between threads without locking.
public final class ManagedObjectModel: @unchecked Sendable {
    public private(set) var entities: [EntityDescription] = []
    /// Configuration name → entity names.
    public var configurations: [String: [String]] = [:]
    /// Configuration name → the other attributes of its `<configuration>` element (Xcode's
    /// `usedWithCloudKit`), kept for writing the model back unchanged.
    public var configurationXMLAttributes: [String: [String: String]] = [:]
    public var fetchRequestTemplates: [String: FetchRequestTemplate] = [:]
    public var versionIdentifiers: Set<String> = []
    /// Child elements of `<model>` this framework does not interpret (Xcode's diagram layout
    /// `<elements>` among them), kept as XML so writing the model loses nothing.
    public var extraXMLElements: [String] = []
    /// Attributes of the `<model>` element, kept for writing the model back unchanged.
    public var extraXMLAttributes: [String: String] = [:]
    public private(set) var isEditable = true
    private var byName: [String: EntityDescription] = [:]
    /// The entities by name once frozen, looked up without hashing with SipHash: every
    /// `insertNewObject(forEntityName:)` and `FetchRequest(entityName:)` asks.
    private var frozenNames = PropertyKeyTable()
    private var frozenEntities: [EntityDescription] = []
    /// The version hashes, kept once frozen: every store open compares them, and each is a
    /// chain of SHA-256 digests over the entity, its properties and its parents.
    private var frozenVersionHashes: [String: Data]?

    public init(entities: [EntityDescription] = []) {
        for entity in entities { addEntity(entity) }
    }

    public func addEntity(_ entity: EntityDescription) {
        precondition(isEditable, "the model is in use by a coordinator and can no longer change")
        entity.managedObjectModel = self
        entities.append(entity)
        byName[entity.name] = entity
    }

    public var entitiesByName: [String: EntityDescription] { byName }

    public func entity(named name: String) -> EntityDescription? {
        if isEditable { return byName[name] }
        return frozenNames.index(of: name).map { frozenEntities[$0] }
    }

    /// Whether any entity has a relationship, i.e. whether objects can hold other objects' IDs.
    var hasRelationships: Bool { entities.contains { !$0.relationshipIndices.isEmpty } }
    var hasUniquenessConstraints: Bool { entities.contains { !$0.uniquenessConstraints.isEmpty } }
    /// Whether any entity has a composite attribute.
    var hasCompositeAttributes: Bool { entities.contains { $0.ownProperties.contains { $0 is CompositeAttributeDescription } } }

    /// Entities in the named configuration; all entities for `nil` or `"Default"`.
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, name != "Default", let names = configurations[name] else { return entities }
        return names.compactMap { byName[$0] }
    }

    /// `entities(forConfiguration:)` under Core Data's name.
    public func entities(forConfigurationName name: String?) -> [EntityDescription] { entities(forConfiguration: name) }

    /// Makes the configuration `name` hold `entities`, which must be entities of this model, as
    /// Core Data's `setEntities(_:forConfigurationName:)`. The model must still be editable.
    public func setEntities(_ entities: [EntityDescription], forConfigurationName name: String) {
        precondition(isEditable, "the model is in use by a coordinator and can no longer change")
        configurations[name] = entities.map(\.name)
    }

    /// Joins models into one. An entity defined twice is an error; configurations with the same
    /// name are joined.
    public static func merged(_ models: [ManagedObjectModel]) throws -> ManagedObjectModel {
        let result = ManagedObjectModel()
        try result.take(models)
        return result
    }

    /// A model joining `models`, as Core Data's `init(byMerging:)` (which returns `nil` where
    /// this throws, naming the entity defined twice). The entities are the given models' own.
    public convenience init(byMerging models: [ManagedObjectModel]) throws {
        self.init()
        try take(models)
    }

    /// Takes every entity, configuration, template and version identifier of `models`.
    private func take(_ models: [ManagedObjectModel]) throws {
        for model in models {
            for entity in model.entities {
                if byName[entity.name] != nil {
                    throw ModelError("entity is defined in more than one model", at: entity.name)
                }
                addEntity(entity)
            }
            for (name, members) in model.configurations {
                configurations[name, default: []].append(contentsOf: members)
            }
            fetchRequestTemplates.merge(model.fetchRequestTemplates) { a, _ in a }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
    }

    /// Resolves names into links, checks the model, numbers entities and makes it immutable.
    /// Called by the coordinator; calling it again does nothing.
    public func freeze() throws {
        guard isEditable else { return }
        try resolve()
        let named = Array(byName)
        frozenNames = PropertyKeyTable(named.map(\.key))
        frozenEntities = named.map(\.value)
        frozenVersionHashes = computedVersionHashes
        isEditable = false
    }

    /// Resolves parents, destinations and inverses and fills the per-entity caches, without
    /// freezing, so a model can be inspected and validated.
    public func resolve() throws {
        for entity in entities { try ModelNames.check(entity) }
        for entity in entities { entity.subentities = [] }
        for entity in entities {
            if let parentName = entity.superentityName {
                guard let parent = byName[parentName] else {
                    throw ModelError("parent entity '\(parentName)' does not exist", at: entity.name)
                }
                entity.superentity = parent
                parent.subentities.append(entity)
            } else {
                entity.superentity = nil
            }
        }
        for entity in entities {
            var seen: Set<ObjectIdentifier> = []
            var current: EntityDescription? = entity
            while let node = current {
                if !seen.insert(ObjectIdentifier(node)).inserted {
                    // Each entity of the cycle holds the next as a subentity: let go of them, or
                    // the refused entities would keep each other alive.
                    for entity in entities { entity.subentities = [] }
                    throw ModelError("inheritance cycle", at: entity.name)
                }
                current = node.superentity
            }
            entity.subentities.sort { Self.precedesInCoreDataOrder($0.name, $1.name) }
        }
        // Entity numbers follow Core Data: roots by name (ignoring case, as Core Data sorts them),
        // each followed depth-first by its subtree.
        var number = 0
        func visit(_ entity: EntityDescription) {
            number += 1
            entity.entityNumber = number
            entity.buildPropertyCache()
            for child in entity.subentities { visit(child) }
        }
        for root in entities.filter({ $0.superentity == nil }).sorted(by: { Self.precedesInCoreDataOrder($0.name, $1.name) }) { visit(root) }
        for entity in entities {
            var names: Set<String> = []
            for property in entity.ownProperties {
                if !names.insert(property.name).inserted {
                    throw ModelError("property '\(property.name)' is declared twice", at: entity.name)
                }
            }
            try Self.checkComposites(of: entity)
            try FetchIndexCheck.checkRTreeIndexes(of: entity)
            for case let relationship as RelationshipDescription in entity.ownProperties {
                guard let destination = byName[relationship.destinationEntityName] else {
                    throw ModelError("destination entity '\(relationship.destinationEntityName)' does not exist",
                                     at: "\(entity.name).\(relationship.name)")
                }
                relationship.destinationEntity = destination
                relationship.inverseRelationship = nil
            }
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                guard let inverseName = relationship.inverseName, let destination = relationship.destinationEntity else {
                    continue
                }
                guard let inverse = destination.properties.first(where: { $0.name == inverseName }) as? RelationshipDescription else {
                    throw ModelError("inverse relationship '\(inverseName)' not found on \(destination.name)",
                                     at: "\(entity.name).\(relationship.name)")
                }
                relationship.inverseRelationship = inverse
            }
        }
    }

    /// The order Core Data gives entities when it numbers them and lays out their tables: by
    /// name, ignoring case (`caseInsensitiveCompare:`); names that differ only in case by their
    /// characters.
    static func precedesInCoreDataOrder(_ a: String, _ b: String) -> Bool {
        switch a.caseInsensitiveCompare(b) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return a < b
        }
    }

    /// Refuses composite attributes a store could not keep: a Composite attribute that is not a
    /// `CompositeAttributeDescription`, a composite without elements or with elements Core Data
    /// refuses, one that contains itself, and an element whose flattened column
    /// (`ZMAGNITUDE_RICHTER`) is another property's column too.
    private static func checkComposites(of entity: EntityDescription) throws {
        for constraint in entity.uniquenessConstraints {
            for name in constraint {
                let first = String(name.split(separator: ".").first ?? "")
                if entity.property(named: first) is CompositeAttributeDescription {
                    throw ModelError("a uniqueness constraint over the composite attribute '\(name)' is not supported", at: entity.name)
                }
            }
        }
        var columns: [String: String] = [:]
        for property in entity.properties where SQLiteSchema.isStoredInRow(property) && !(property is CompositeAttributeDescription) {
            columns[SQLiteSchema.columnName(forPath: [property.name])] = property.name
        }
        for case let attribute as AttributeDescription in entity.properties where attribute.attributeType == .composite {
            let location = "\(attribute.entity?.name ?? entity.name).\(attribute.name)"
            guard let composite = attribute as? CompositeAttributeDescription else {
                throw ModelError("a Composite attribute must be a CompositeAttributeDescription with elements", at: location)
            }
            if let problem = composite.problem(at: location) { throw problem }
            guard !composite.isTransient else { continue }
            for leaf in composite.leafElements {
                let keyPath = ([composite.name] + leaf.path).joined(separator: ".")
                let column = SQLiteSchema.columnName(forPath: [composite.name] + leaf.path)
                if let other = columns[column] {
                    throw ModelError("the element \(keyPath) would be stored in the column \(column), which \(other) uses too", at: location)
                }
                columns[column] = keyPath
            }
        }
    }

    /// Version hash of every entity: how a store tells whether it was made with this model.
    public var entityVersionHashesByName: [String: Data] {
        frozenVersionHashes ?? computedVersionHashes
    }

    private var computedVersionHashes: [String: Data] {
        Dictionary(entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { a, _ in a })
    }
}
