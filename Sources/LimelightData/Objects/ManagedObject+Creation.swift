import Foundation

extension ManagedObject {
    /// A new object of the entity this class represents, inserted into `context`, as Core Data's
    /// `init(context:)`: `let salsa = try Recipe(context: context)`.
    ///
    /// The entity is the one of the context's model that the class is registered for
    /// (`ManagedObjectClassRegistry`); failing that, the one whose class name or entity name is
    /// the class's name, for which the class is then registered, so that fetches give objects of
    /// this class too. Throws when no entity, or more than one, fits (Core Data stops the program).
    public convenience init(context: ManagedObjectContext) throws {
        let entity = try Self.entity(in: context)
        self.init(entity: entity, insertInto: context)
    }

    /// The entity of `context`'s model that this class represents (see `init(context:)`).
    public static func entity(in context: ManagedObjectContext) throws -> EntityDescription {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw PersistenceError.noStore("the context has no coordinator, so no model to find \(Self.self)'s entity in")
        }
        let registry = ManagedObjectClassRegistry.shared
        let registered = model.entities.filter { registry.objectClass(for: $0) == Self.self }
        if registered.count == 1, let entity = registered.first { return entity }
        if registered.count > 1 {
            throw PersistenceError.invalidRequest("\(Self.self) is registered for several entities (\(registered.map(\.name).sorted().joined(separator: ", "))); insert with insertNewObject(forEntityName:)")
        }
        let name = String(describing: Self.self)
        let named = model.entities.filter { entity in
            entity.managedObjectClassName.map(Self.unqualified) == name || (entity.managedObjectClassName == nil && entity.name == name)
        }
        guard named.count == 1, let entity = named.first else {
            throw PersistenceError.invalidRequest(named.isEmpty
                ? "no entity of the model is represented by \(name): register the class (ManagedObjectClassRegistry.shared.register(\(name).self, forEntityName:))"
                : "several entities name \(name) as their class (\(named.map(\.name).sorted().joined(separator: ", "))); insert with insertNewObject(forEntityName:)")
        }
        registry.register(Self.self, forEntityName: entity.name)
        return entity
    }

    /// A class name as Xcode may write it, `Module.Recipe` or `.Recipe`, without its module.
    private static func unqualified(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }
}
