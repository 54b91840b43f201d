import Foundation
import Testing
@testable import LimelightData

/// `entity == %@`, Core Data's way to fetch an entity without its sub-entities, and
/// `entity.name`, in SQL and in memory alike.
struct EntityPredicateTests {
    static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [AttributeDescription(name: "name", type: .string)])
        let manager = EntityDescription(name: "Manager", properties: [AttributeDescription(name: "reports", type: .integer32)], parent: "Person")
        let director = EntityDescription(name: "Director", properties: [], parent: "Manager")
        return ManagedObjectModel(entities: [person, manager, director])
    }

    func names(_ format: String, _ arguments: [Any], in context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: QueryPredicate(format: format, argumentArray: arguments),
                                       sortDescriptors: [QuerySortDescriptor(key: "name")]))
            .compactMap { $0.value(forKey: "name") as? String }
    }

    @Test(arguments: [true, false])
    func entityPicksObjectsOfExactlyThatEntity(sqlite: Bool) throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: sqlite ? folder.file("people.sqlite") : nil)
        for (entity, name) in [("Person", "Ann"), ("Manager", "Bo"), ("Director", "Cy"), ("Person", "Di")] {
            try context.insertNewObject(forEntityName: entity).setValue(name, forKey: "name")
        }
        try context.save()
        context.reset()
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
        let person = try #require(model.entity(named: "Person")), manager = try #require(model.entity(named: "Manager"))
        #expect(try names("entity == %@", [person], in: context) == ["Ann", "Di"])
        #expect(try names("entity != %@", [person], in: context) == ["Bo", "Cy"])
        #expect(try names("entity IN %@", [[manager, person]], in: context) == ["Ann", "Bo", "Di"])
        #expect(try names("entity.name BEGINSWITH 'D'", [], in: context) == ["Cy"])
        #expect(try names("entity == 'Manager' OR name == 'Di'", [], in: context) == ["Bo", "Di"])
        // In memory too, for objects the context has not saved.
        try context.insertNewObject(forEntityName: "Manager").setValue("Ed", forKey: "name")
        #expect(try names("entity == %@", [manager], in: context) == ["Bo", "Ed"])
    }

    @Test func objectIDsOfMixedRowsEachNameTheirOwnEntity() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("people.sqlite"))
        let entities = ["Person", "Manager", "Manager", "Director", "Person", "Person", "Director", "Manager"]
        for (index, entity) in entities.enumerated() {
            try context.insertNewObject(forEntityName: entity).setValue("p\(index)", forKey: "name")
        }
        try context.save()
        context.reset()
        let ids = try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "name")]))
        #expect(ids.map(\.entity.name) == entities)
        #expect(try ids.map { try context.existingObject(with: $0).value(forKey: "name") as? String } == entities.indices.map { "p\($0)" })
        let managers = try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Manager", sortDescriptors: [QuerySortDescriptor(key: "name")]))
        #expect(managers.map(\.entity.name) == ["Manager", "Manager", "Director", "Director", "Manager"])
    }

    @Test func aPropertyNamedEntityIsThatProperty() throws {
        let item = EntityDescription(name: "Item", properties: [AttributeDescription(name: "entity", type: .string)])
        let context = try TestStack.context(model: ManagedObjectModel(entities: [item]), at: nil)
        try context.insertNewObject(forEntityName: "Item").setValue("Person", forKey: "entity")
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item", predicate: QueryPredicate(format: "entity == 'Person'"))) == 1)
    }
}
