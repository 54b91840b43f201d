import Foundation

/// Describes one kind of object: its properties, its place in an inheritance tree and the class that
/// represents it.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    public var name: String
    /// Name of the Swift class registered with `ManagedObjectClassRegistry` for this entity.
    public var managedObjectClassName: String?
    public var isAbstract: Bool = false
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String] = [:]
    /// Groups of attribute names whose combined values must be unique.
    public var uniquenessConstraints: [[String]] = []
    /// Named database indexes: each lists property names (with `ascending`).
    public var fetchIndexes: [FetchIndexDescription] = []
    /// Indexes over several attributes as models from before Xcode 9 list them (Core Data's
    /// `compoundIndexes`, `<compoundIndexes>` in the XML): each a group of property names, indexed
    /// together in the store as a fetch index is. Xcode keeps them in the file as they are.
    public var compoundIndexes: [[String]] = []
    public var extraXMLAttributes: [String: String] = [:]
    /// Child elements this framework does not interpret, kept as XML text,
    /// and attributes written explicitly at their default value.
    public var extraXMLElements: [String] = []
    public var explicitXMLAttributes: Set<String> = []

    /// Properties declared by this entity itself, in declaration order.
    public private(set) var ownProperties: [PropertyDescription] = []
    /// Set when the entity is added to a model and its parent is resolved.
    public internal(set) var superentity: EntityDescription? {
        get { superentityReference?.entity }
        set { superentityReference = newValue?.weakTarget }
    }
    private weak var superentityReference: EntityReference?
    public internal(set) var subentities: [EntityDescription] = []
    /// Name of the parent entity as written in the model.
    public var superentityName: String?

    /// The model this entity belongs to.
    public internal(set) weak var managedObjectModel: ManagedObjectModel?

    // Caches computed when the model is frozen, so objects can address values by index.
    public internal(set) var properties: [PropertyDescription] = []
    /// What objects need on every access, fixed when the model is resolved.
    private(set) var layout = EntityLayout(properties: [])
    var propertyKeys: PropertyKeyTable { layout.keys }
    var propertyKinds: [PropertyKind] { layout.kinds }
    var relationshipIndices: [Int] { layout.relationshipIndices }
    var emptyValues: [StoredValue] { layout.emptyValues }
    /// The root entity's identity, so ID equality needs no walk up weak parent links.
    private var resolvedRootIdentity: ObjectIdentifier?
    /// Entity number in the store (`Z_ENT`), assigned when the model is frozen.
    public internal(set) var entityNumber: Int = 0

    /// What weak references to the entity point at (`EntityReference`); made on first use.
    private(set) lazy var weakTarget = EntityReference(self)

    public init(name: String, properties: [PropertyDescription] = [], parent: String? = nil) {
        self.name = name
        self.superentityName = parent
        for property in properties { addProperty(property) }
    }

    public func addProperty(_ property: PropertyDescription) {
        precondition(managedObjectModel?.isEditable ?? true, "the model is in use by a coordinator and can no longer change")
        property.entity = self
        ownProperties.append(property)
    }

    public var description: String { "EntityDescription(\(name))" }

    /// The root of this entity's inheritance tree: its SQLite table is named after it.
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// Identifies the inheritance tree (and so the table) the entity's objects live in.
    var rootIdentity: ObjectIdentifier { resolvedRootIdentity ?? ObjectIdentifier(rootEntity) }

    /// This entity and every entity below it.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap { $0.selfAndDescendants }
    }

    public func isKind(of other: EntityDescription) -> Bool {
        var entity: EntityDescription? = self
        while let current = entity {
            if current === other { return true }
            entity = current.superentity
        }
        return false
    }

    public var propertiesByName: [String: PropertyDescription] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public var attributesByName: [String: AttributeDescription] {
        var result: [String: AttributeDescription] = [:]
        for case let attribute as AttributeDescription in properties { result[attribute.name] = attribute }
        return result
    }

    public var relationshipsByName: [String: RelationshipDescription] {
        var result: [String: RelationshipDescription] = [:]
        for case let relationship as RelationshipDescription in properties { result[relationship.name] = relationship }
        return result
    }

    public func property(named name: String) -> PropertyDescription? {
        propertyKeys.index(of: name).map { properties[$0] }
    }

    func index(of name: String) -> Int? { propertyKeys.index(of: name) }

    /// Whether any own or inherited property is indexed for search: such entities get marker files.
    public var hasSpotlightIndexedProperties: Bool {
        properties.contains { $0.isIndexedBySpotlight }
    }

    func buildPropertyCache() {
        let inherited = superentity?.properties ?? []
        properties = inherited + ownProperties
        layout = EntityLayout(properties: properties)
        resolvedRootIdentity = ObjectIdentifier(rootEntity)
    }
}

/// What objects of an entity look up on every access, in constants (an object keeps its entity's
/// layout), so reading them needs neither the entity's properties nor their exclusivity checks.
@usableFromInline
final class EntityLayout: @unchecked Sendable {
    /// Property indices by name (the first property of a name wins).
    let keys: PropertyKeyTable
    /// What each property is, so hot paths switch on a byte instead of casting classes.
    @usableFromInline let kinds: [PropertyKind]
    /// Where the relationships are: the only slots that can hold object IDs.
    let relationshipIndices: [Int]
    /// One empty slot per property: objects made for fetched rows share it and replace it without
    /// having allocated their own.
    let emptyValues: [StoredValue]
    /// Each attribute's type (`nil` for other properties), read without touching the attribute.
    let attributeTypes: [AttributeType?]
    /// The slots a new object starts with a value in: defaults and empty to-manys.
    let initialValues: [(index: Int, value: StoredValue)]
    /// Attributes whose only rule is their type (optional, no bounds, no pattern, no validation
    /// predicates): a save checks their values by type alone.
    let typeOnlyRules: [Bool]
    /// Every property is such an attribute: a save checks the object's values by type alone.
    let checksTypesOnly: Bool
    /// Which property each `@Managed` declaration of the entity's class reads, learned on first use.
    @usableFromInline let managedIndices = ManagedIndexTable()

    init(properties: [PropertyDescription]) {
        keys = PropertyKeyTable(properties.map(\.name))
        let kinds = properties.map(PropertyKind.init)
        self.kinds = kinds
        relationshipIndices = kinds.indices.filter { kinds[$0] == .toOne || kinds[$0] == .toMany }
        emptyValues = Array(repeating: .null, count: properties.count)
        attributeTypes = properties.map { ($0 as? AttributeDescription)?.attributeType }
        initialValues = properties.enumerated().compactMap { index, property in
            if let composite = property as? CompositeAttributeDescription,
               let value = composite.defaultValue ?? composite.elementDefaults {
                return (index, CompositeValues.stored(StoredValue(value), for: composite))
            }
            if let attribute = property as? AttributeDescription, let value = attribute.defaultValue {
                let stored = StoredValue(value)
                return (index, AttributeValueCoercion.coerce(stored, to: attribute.attributeType) ?? stored)
            }
            if let relationship = property as? RelationshipDescription, relationship.isToMany { return (index, .toMany(.loaded([]))) }
            return nil
        }
        typeOnlyRules = properties.map { property in
            guard let attribute = property as? AttributeDescription else { return false }
            return (attribute.isOptional || attribute.isTransient) && attribute.minValue == nil && attribute.maxValue == nil
                && attribute.regularExpression == nil && attribute.validationPredicates.isEmpty
        }
        checksTypesOnly = typeOnlyRules.allSatisfy { $0 }
    }

    /// `values` as an array of its own, when it is still the shared `emptyValues`. An inserted
    /// object writes its values at once, and the copy the first write would make of the shared
    /// array goes through the standard library's unspecialised code, a call through the value's
    /// witness per slot (about 850 instructions for ten); appending to a reserved array is
    /// specialised here.
    func ownValues(_ values: inout [StoredValue]) {
        let shared = values.withUnsafeBufferPointer { mine in
            emptyValues.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
        guard shared else { return }
        var own: [StoredValue] = []
        own.reserveCapacity(emptyValues.count)
        for _ in 0..<emptyValues.count { own.append(.null) }
        values = own
    }
}

/// The kind of an entity's property, known once the model is resolved.
@usableFromInline
enum PropertyKind: UInt8 {
    case attribute, toOne, toMany, fetched, other

    init(_ property: PropertyDescription) {
        switch property {
        case is AttributeDescription: self = .attribute
        case let relationship as RelationshipDescription: self = relationship.isToMany ? .toMany : .toOne
        case is FetchedPropertyDescription: self = .fetched
        default: self = .other
        }
    }
}

/// Stands in for an entity as the target of the model's weak back-references (a property's
/// entity, a relationship's destination, an entity's parent), which would otherwise give the
/// entity a side table: every object and object ID retains its entity, and an object with a side
/// table is retained and released through it, several times slower. The entity owns its reference
/// strongly, so the weak references read `nil` once the entity is gone, as before.
final class EntityReference: @unchecked Sendable {
    unowned let entity: EntityDescription
    init(_ entity: EntityDescription) { self.entity = entity }
}
