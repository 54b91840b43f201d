import Foundation

/// What an entity mapping does, Core Data's `NSEntityMappingType` (same raw values).
public enum EntityMappingType: Int, Sendable, Equatable {
    case undefined = 0
    /// The application's code (a policy, value expressions) decides.
    case custom = 1
    /// A new entity: no objects to carry over.
    case add = 2
    /// A removed entity: its objects are dropped.
    case remove = 3
    /// The entity is unchanged: objects are copied.
    case copy = 4
    /// The entity changed: objects are copied through the property mappings.
    case transform = 5
}

/// What happens to the objects of one entity, Core Data's `NSEntityMapping`.
///
/// An inferred mapping (`MappingModel(inferringFrom:to:)`) fills `mappingType` and `name` as Core
/// Data's inference does (`IEM_Copy_Note`, `IEM_Transform_Note`), the property mappings' value
/// expressions, and `kind`, the detail lightweight migration and `limelight migrate` read (the
/// entities' version hashes are left out: computing them would slow every lightweight migration;
/// `recordEntityVersionHashes` records them) (a rename is a `transform` whose source entity has
/// another name). A mapping made in code with `init(name:mappingType:…)` is run object by object by
/// `MigrationManager.migrateStore(from:sourceType:options:with:toDestinationURL:…)`; its `kind`
/// is `.custom` unless the type is add or remove.
public struct EntityMapping: Sendable, Equatable {
    /// The inferred detail of an entity mapping.
    public enum Kind: Sendable, Equatable {
        /// The entity exists in both versions under the same name.
        case copy
        /// Renamed through the destination's renaming identifier (`elementID`).
        case rename
        /// New in the destination: no objects to carry over.
        case add
        /// Gone from the destination: its objects are dropped.
        case remove
        /// Made in code: the value expressions and the policy decide.
        case custom
    }

    /// Names the mapping for `MigrationManager.destinationInstances(forEntityMappingName:…)` and
    /// in errors, e.g. "NoteToNote".
    public var name: String
    public var mappingType: EntityMappingType
    public var kind: Kind
    /// The entity in the model the store was made with; `nil` for an added entity.
    public var sourceEntityName: String?
    /// The source entity's `versionHash`, when recorded: a mapping model fits only models whose
    /// entities have these hashes (how the coordinator picks one among several).
    public var sourceEntityVersionHash: Data?
    /// The entity in the model the store moves to; `nil` for a removed entity.
    public var destinationEntityName: String?
    public var destinationEntityVersionHash: Data?
    /// Every property mapping: the destination's attributes and relationships, and (inferred
    /// only) the removed stored properties, which have no `destinationName`.
    public var propertyMappings: [PropertyMapping]
    /// Which source objects the mapping migrates, evaluated with `$manager`: a fetch request
    /// (`FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Note",
    /// "TRUEPREDICATE"), $manager.sourceContext, NO)`, as Xcode writes it) or a collection of
    /// source objects. `nil`: every object of exactly the source entity (not its sub-entities,
    /// which have mappings of their own).
    public var sourceExpression: QueryExpression?
    /// The policy class run for this mapping, Core Data's `entityMigrationPolicyClassName` as a
    /// type: one instance is made per migration and kept through its three stages.
    public var entityMigrationPolicy: EntityMigrationPolicy.Type?
    public var userInfo: [String: any Sendable]?
    /// Entity-level changes that need no data conversion but change the store: a new parent, a
    /// new uniqueness constraint or fetch index.
    public var otherChanges: [String]

    /// A mapping as inference makes it; `name` and `mappingType` follow from `kind`.
    public init(kind: Kind, sourceEntityName: String?, destinationEntityName: String?,
                propertyMappings: [PropertyMapping] = [], otherChanges: [String] = []) {
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.propertyMappings = propertyMappings
        self.otherChanges = otherChanges
        let unchanged = otherChanges.isEmpty && propertyMappings.allSatisfy { $0.kind == .copy }
        switch kind {
        case .add: mappingType = .add
        case .remove: mappingType = .remove
        case .copy: mappingType = unchanged ? .copy : .transform
        case .rename: mappingType = .transform
        case .custom: mappingType = .custom
        }
        let prefix = ["IEM_Add_", "IEM_Remove_", "IEM_Copy_", "IEM_Transform_", "IEM_Custom_"]
        let index = [EntityMappingType.add: 0, .remove: 1, .copy: 2, .transform: 3][mappingType] ?? 4
        name = prefix[index] + (destinationEntityName ?? sourceEntityName ?? "")
    }

    /// A mapping made in code, Core Data's `NSEntityMapping` with its fields set.
    public init(name: String, mappingType: EntityMappingType, sourceEntityName: String?, destinationEntityName: String?,
                attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [],
                sourceExpression: QueryExpression? = nil, entityMigrationPolicy: EntityMigrationPolicy.Type? = nil,
                userInfo: [String: any Sendable]? = nil) {
        self.name = name
        self.mappingType = mappingType
        kind = mappingType == .add ? .add : mappingType == .remove ? .remove : .custom
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        propertyMappings = []
        otherChanges = []
        self.sourceExpression = sourceExpression
        self.entityMigrationPolicy = entityMigrationPolicy
        self.userInfo = userInfo
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
    }

    /// The policy's class name, as Core Data names it (`String(reflecting:)` of the type).
    public var entityMigrationPolicyClassName: String? { entityMigrationPolicy.map { String(reflecting: $0) } }

    /// The mappings of the destination entity's attributes (Core Data's `attributeMappings`).
    /// Setting it replaces them and keeps the relationship mappings.
    public var attributeMappings: [PropertyMapping] {
        get { propertyMappings.filter { !$0.isRelationship && $0.destinationName != nil } }
        set { replaceMappings(relationships: false, with: newValue) }
    }

    /// The mappings of the destination entity's relationships (Core Data's `relationshipMappings`).
    public var relationshipMappings: [PropertyMapping] {
        get { propertyMappings.filter { $0.isRelationship && $0.destinationName != nil } }
        set { replaceMappings(relationships: true, with: newValue) }
    }

    private mutating func replaceMappings(relationships: Bool, with mappings: [PropertyMapping]) {
        var kept = propertyMappings.filter { $0.isRelationship != relationships || $0.destinationName == nil }
        let added = mappings.map { mapping -> PropertyMapping in
            var mapping = mapping
            mapping.isRelationship = relationships
            return mapping
        }
        kept.insert(contentsOf: added, at: relationships ? kept.firstIndex { $0.destinationName == nil } ?? kept.count : 0)
        propertyMappings = kept
    }

    /// The mapping of the destination property with this name.
    public func mapping(forDestination name: String) -> PropertyMapping? {
        propertyMappings.first { $0.destinationName == name }
    }

    /// Records the version hashes of the mapped entities in `sourceModel` and `destinationModel`,
    /// so the mapping fits those versions only.
    public mutating func recordEntityVersionHashes(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        try? MigrationManager.resolveIfEditable(sourceModel)
        try? MigrationManager.resolveIfEditable(destinationModel)
        sourceEntityVersionHash = sourceEntityName.flatMap { sourceModel.entity(named: $0) }?.versionHash
        destinationEntityVersionHash = destinationEntityName.flatMap { destinationModel.entity(named: $0) }?.versionHash
    }

    public static func == (lhs: EntityMapping, rhs: EntityMapping) -> Bool {
        lhs.name == rhs.name && lhs.mappingType == rhs.mappingType && lhs.kind == rhs.kind
            && lhs.sourceEntityName == rhs.sourceEntityName && lhs.destinationEntityName == rhs.destinationEntityName
            && lhs.sourceEntityVersionHash == rhs.sourceEntityVersionHash
            && lhs.destinationEntityVersionHash == rhs.destinationEntityVersionHash
            && lhs.propertyMappings == rhs.propertyMappings && lhs.sourceExpression == rhs.sourceExpression
            && lhs.entityMigrationPolicy.map(ObjectIdentifier.init) == rhs.entityMigrationPolicy.map(ObjectIdentifier.init)
            && PropertyMapping.sameUserInfo(lhs.userInfo, rhs.userInfo) && lhs.otherChanges == rhs.otherChanges
    }

    var summary: String {
        switch kind {
        case .copy: return "\(destinationEntityName ?? "?")"
        case .rename: return "\(sourceEntityName ?? "?") -> \(destinationEntityName ?? "?") (renamed)"
        case .add: return "+ \(destinationEntityName ?? "?") (added)"
        case .remove: return "- \(sourceEntityName ?? "?") (removed, its objects are dropped)"
        case .custom:
            let policy = entityMigrationPolicyClassName.map { ", policy \($0)" } ?? ""
            return "\(sourceEntityName ?? "?") -> \(destinationEntityName ?? "?") (\(name)\(policy))"
        }
    }
}

extension EntityMapping: KeyValueCodingReadable {
    /// Core Data's keys, for `$entityMapping.name` and the like in value expressions.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "mappingType": return Int64(mappingType.rawValue)
        case "sourceEntityName": return sourceEntityName
        case "destinationEntityName": return destinationEntityName
        case "userInfo": return userInfo
        case "entityMigrationPolicyClassName": return entityMigrationPolicyClassName
        case "attributeMappings": return attributeMappings
        case "relationshipMappings": return relationshipMappings
        default: return nil
        }
    }
}
