import Foundation
import Testing
@testable import LimelightData

/// Properties that become required without a default value, or are new and required: Core Data
/// infers the mapping, and its lightweight migration fails only when objects lack a value.
struct RequiredValueMigrationTests {
    /// A garden: plants with an optional height and an optional bed.
    static func version1() -> ManagedObjectModel {
        let plant = EntityDescription(name: "Plant", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "height", type: .double),
            RelationshipDescription(name: "bed", destination: "Bed", inverse: "plants"),
        ])
        let bed = EntityDescription(name: "Bed", properties: [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "plants", destination: "Plant", inverse: "bed", toMany: true),
        ])
        return ManagedObjectModel(entities: [plant, bed])
    }

    /// Height and bed required now, neither with a default; and a new required `species`.
    static func version2(addingSpecies: Bool) -> ManagedObjectModel {
        var properties: [PropertyDescription] = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "height", type: .double, isOptional: false),
        ]
        let bed = RelationshipDescription(name: "bed", destination: "Bed", inverse: "plants")
        bed.isOptional = false
        properties.append(bed)
        if addingSpecies { properties.append(AttributeDescription(name: "species", type: .string, isOptional: false)) }
        let plantsOfBed = RelationshipDescription(name: "plants", destination: "Plant", inverse: "bed", toMany: true)
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Plant", properties: properties),
            EntityDescription(name: "Bed", properties: [AttributeDescription(name: "label", type: .string), plantsOfBed]),
        ])
    }

    /// A store at version 1 with one plant per (height, in a bed) pair given.
    static func makeStore(at url: URL, plants: [(height: Double?, inBed: Bool)]) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: version1())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let bed = try context.insertNewObject(forEntityName: "Bed")
            bed.setValue("north", forKey: "label")
            for (index, plant) in plants.enumerated() {
                let object = try context.insertNewObject(forEntityName: "Plant")
                object.setValue("plant \(index)", forKey: "name")
                object.setValue(plant.height, forKey: "height")
                if plant.inBed { object.setValue(bed, forKey: "bed") }
            }
            try context.save()
        }
        coordinator.remove(store)
    }

    static func migrate(_ url: URL, to model: ManagedObjectModel) throws -> [(name: String, height: Double?)] {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: [version1()],
        ])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Plant"))
                .map { ($0.value(forKey: "name") as? String ?? "", $0.value(forKey: "height") as? Double) }
                .sorted { $0.name < $1.name }
        }
    }

    @Test func theMappingIsInferredAndListsTheRequirement() throws {
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: Self.version1(), destinationModel: Self.version2(addingSpecies: true))
        let plant = try #require(mapping.mapping(forDestination: "Plant"))
        #expect(plant.propertyMappings.first { $0.destinationName == "height" }?.kind == .required)
        #expect(plant.propertyMappings.first { $0.destinationName == "species" }?.detail.contains("existing objects must have one") == true)
    }

    @Test func objectsThatAllHaveValuesMigrate() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("garden.sqlite")
        try Self.makeStore(at: url, plants: [(1.5, true), (0.25, true)])
        let plants = try Self.migrate(url, to: Self.version2(addingSpecies: false))
        #expect(plants.map(\.height) == [1.5, 0.25])
    }

    @Test func anObjectWithoutAValueStopsTheMigrationNamingItAndTheStoreStays() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("garden.sqlite")
        try Self.makeStore(at: url, plants: [(1.5, true), (nil, false), (nil, true)])
        let before = try Data(contentsOf: url)
        do {
            _ = try Self.migrate(url, to: Self.version2(addingSpecies: true))
            Issue.record("a migration left required values empty")
        } catch MigrationError.failed(_, let reason) {
            #expect(reason.contains("Plant.height: 2 objects have no value (it is required now, with no default value)"))
            #expect(reason.contains("Plant.bed: 1 object has no value (it is required now, with no default value)"))
            #expect(reason.contains("Plant.species: 3 objects have no value (it is new and required, with no default value)"))
        }
        #expect(try Data(contentsOf: url) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!names.contains { $0.contains("migrating") })
    }

    @Test func aNewRequiredAttributeOnAnEmptyEntityMigrates() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("garden.sqlite")
        try Self.makeStore(at: url, plants: [])
        #expect(try Self.migrate(url, to: Self.version2(addingSpecies: true)).isEmpty)
    }
}
