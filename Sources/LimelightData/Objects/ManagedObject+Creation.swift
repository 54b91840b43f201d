import Foundation

extension ManagedObject {
    /// The entity of `context`'s model that this class represents (see `init(context:)`).
    ///
    /// Named so that it leaves `entity(in:)` to applications: Core Data has no such method, and
    /// apps declare one of their own on their classes (`class func entity(in context:)`), which
    /// a method of that name here would refuse as an override.
    public static func entity(inModelOf context: ManagedObjectContext) throws -> EntityDescription {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw PersistenceError.noStore("the context has no coordinator, so no model to find \(Self.self)'s entity in")
        }
        guard let match = try representedMatch(in: model) else {
            let name = String(describing: Self.self)
            throw EntityLookupError(Self.self, .noEntity,
                                    "no entity of the model is represented by \(name): register the class (ManagedObjectClassRegistry.shared.register(\(name).self, forEntityName:))")
        }
        return adopt(match)
    }

    /// The entity this class represents, as Core Data's `entity()`: `try Recipe.entity()`.
    ///
    /// Core Data looks in the models loaded in the process; here, in the models in use: those a
    /// coordinator or container was made with, for as long as they exist. Each is asked as
    /// `entity(inModelOf:)` asks the context's model. Throws when none has an entity for the class, and
    /// when several have one (a model loaded twice counts twice, as in Core Data: the entities
    /// are not interchangeable, an object being inserted only into a context of its own model);
    /// `entity(inModelOf:)` then answers for one context.
    public static func entity() throws -> EntityDescription {
        let models = ModelsInUse.shared.current
        let found = try models.compactMap { try representedMatch(in: $0) }
        let name = String(describing: Self.self)
        guard let match = found.first else {
            throw EntityLookupError(Self.self, .noEntity, models.isEmpty
                ? "no model is in use to find \(name)'s entity in: make a coordinator or container with the model first"
                : "no entity of the \(models.count) models in use is represented by \(name): name it as the entity's class, or register the class (ManagedObjectClassRegistry.shared.register(\(name).self, forEntityName:))")
        }
        guard found.count == 1 else {
            let names = found.map(\.entity.name)
            throw EntityLookupError(Self.self, .severalModels(names),
                                    "\(found.count) models in use have an entity represented by \(name) (\(names.joined(separator: ", "))): ask for one context's with entity(inModelOf:)")
        }
        return adopt(match)
    }

    /// The entity found, with the class registered for it when it was found by name, so that
    /// fetches give objects of this class too.
    private static func adopt(_ match: (entity: EntityDescription, byName: Bool)) -> EntityDescription {
        if match.byName { ManagedObjectClassRegistry.shared.register(Self.self, forEntityName: match.entity.name) }
        return match.entity
    }

    /// The one rule both look-ups follow, for one model: the entity the class is registered for;
    /// failing that, the one whose class name (with or without a module), or whose name when it
    /// has no class name, is the class's name (`byName`). Throws when several entities fit.
    private static func representedMatch(in model: ManagedObjectModel) throws -> (entity: EntityDescription, byName: Bool)? {
        let name = String(describing: Self.self)
        guard Self.self != ManagedObject.self else {
            throw EntityLookupError(Self.self, .noEntity,
                                    "ManagedObject is the class of every entity without a class of its own: ask a subclass, or name the entity")
        }
        let registry = ManagedObjectClassRegistry.shared
        let registered = model.entities.filter { registry.objectClass(for: $0) == Self.self }
        if registered.count == 1, let entity = registered.first { return (entity, false) }
        if registered.count > 1 {
            let names = registered.map(\.name).sorted()
            throw EntityLookupError(Self.self, .severalEntities(names),
                                    "\(name) is registered for several entities (\(names.joined(separator: ", "))); insert with insertNewObject(forEntityName:)")
        }
        let named = model.entities.filter { entity in
            entity.managedObjectClassName.map(Self.unqualified) == name || (entity.managedObjectClassName == nil && entity.name == name)
        }
        if named.count > 1 {
            let names = named.map(\.name).sorted()
            throw EntityLookupError(Self.self, .severalEntities(names),
                                    "several entities name \(name) as their class (\(names.joined(separator: ", "))); insert with insertNewObject(forEntityName:)")
        }
        return named.first.map { ($0, true) }
    }

    /// A class name as Xcode may write it, `Module.Recipe` or `.Recipe`, without its module.
    private static func unqualified(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }
}
