/// Core Data's `NSEntityDescription` conveniences: finding an entity through a context, inserting
/// by entity name, and views of the entity's properties.
extension EntityDescription {
    /// The entity named `name` in the model of `context`'s coordinator, as Core Data's
    /// `entity(forEntityName:in:)`; `nil` when there is none (or no coordinator).
    public static func entity(forEntityName name: String, in context: ManagedObjectContext) -> EntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entity(named: name)
    }

    /// A new object of the entity named `name`, inserted into `context`: Core Data's
    /// `insertNewObject(forEntityName:into:)`, the same as `context.insertNewObject(forEntityName:)`.
    /// Throws when the context's model has no such entity (Core Data stops the program).
    public static func insertNewObject(forEntityName name: String, into context: ManagedObjectContext) throws -> ManagedObject {
        try context.insertNewObject(forEntityName: name)
    }

    /// `isKind(of:)` under Core Data's Swift name: whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: EntityDescription) -> Bool { isKind(of: entity) }

    /// The direct subentities by name.
    public var subentitiesByName: [String: EntityDescription] {
        Dictionary(subentities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The relationships, own and inherited, whose destination is `entity` (exactly that entity,
    /// as in Core Data, not its parents or children).
    public func relationships(forDestination entity: EntityDescription) -> [RelationshipDescription] {
        properties.compactMap { $0 as? RelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// The entity's database indexes, under Core Data's name (`fetchIndexes`).
    public var indexes: [FetchIndexDescription] {
        get { fetchIndexes }
        set { fetchIndexes = newValue }
    }
}
