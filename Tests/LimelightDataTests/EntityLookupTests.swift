import Foundation
import Testing
@testable import LimelightData

// Each test asks about a class of its own: `entity()` looks in every model in use in the process,
// and the tests run side by side.

/// Named by its entity's class name, with a module, as Xcode writes it.
final class LookedUpEntry: ManagedObject {}
/// Named by no model.
final class UnclaimedRecord: ManagedObject {}
/// The class of an entity in two models at once.
final class TwiceClaimed: ManagedObject {}
/// The class of an entity whose model goes away.
final class FleetingRecord: ManagedObject {}

/// `ManagedObject.entity()`, Core Data's class method: the entity of the models in use that the
/// class represents, or an error naming the class and why there is none.
struct EntityLookupTests {
    static func model(entityName: String, className: String? = nil) -> ManagedObjectModel {
        let entity = EntityDescription(name: entityName, properties: [AttributeDescription(name: "title", type: .string)])
        entity.managedObjectClassName = className
        let other = EntityDescription(name: entityName + "Note", properties: [AttributeDescription(name: "text", type: .string)])
        return ManagedObjectModel(entities: [entity, other])
    }

    static func coordinator(_ model: ManagedObjectModel, at url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        return coordinator
    }

    static func lookupError(_ body: () throws -> EntityDescription) -> EntityLookupError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? EntityLookupError
        }
    }

    @Test func theEntityOfTheModelInUseIsFound() throws {
        let folder = try TemporaryFolder()
        let model = Self.model(entityName: "LookupEntry", className: "Journal.LookedUpEntry")
        let coordinator = try Self.coordinator(model, at: folder.file("entries.sqlite"))
        // A second coordinator on the same model is the same model, not a second answer.
        let again = try Self.coordinator(model, at: folder.file("more.sqlite"))
        try withExtendedLifetime((coordinator, again)) {
            let entity = try LookedUpEntry.entity()
            #expect(entity.name == "LookupEntry" && entity.managedObjectModel === model)
            // The same one a context of the model gives, and objects made from it are of the class.
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            #expect(try LookedUpEntry.entity(inModelOf: context) === entity)
            try context.performAndWait {
                let entry = LookedUpEntry(entity: try LookedUpEntry.entity(), insertInto: context)
                entry.setValue("first", forKey: "title")
                try context.save()
            }
            let fetched = try context.performAndWait { try context.fetch(FetchRequest<ManagedObject>(entityName: "LookupEntry")) }
            #expect(fetched.count == 1 && fetched.first is LookedUpEntry)
        }
    }

    @Test func aClassNoModelNamesIsAnError() throws {
        let folder = try TemporaryFolder()
        let coordinator = try Self.coordinator(Self.model(entityName: "Unrelated"), at: folder.file("unrelated.sqlite"))
        let error = withExtendedLifetime(coordinator) { Self.lookupError { try UnclaimedRecord.entity() } }
        #expect(error?.className == "UnclaimedRecord")
        #expect(error?.reason == .noEntity)
        #expect(error?.description.contains("UnclaimedRecord") == true, "\(String(describing: error))")
        // ManagedObject itself stands for every entity without a class: it is no answer either.
        #expect(Self.lookupError { try ManagedObject.entity() }?.reason == .noEntity)
    }

    @Test func twoModelsNamingTheClassAreAnErrorUntilOneGoes() throws {
        let folder = try TemporaryFolder()
        let first = try Self.coordinator(Self.model(entityName: "TwiceClaimed"), at: folder.file("first.sqlite"))
        var second: PersistentStoreCoordinator? = try Self.coordinator(Self.model(entityName: "TwiceClaimed"), at: folder.file("second.sqlite"))
        let error = withExtendedLifetime((first, second)) { Self.lookupError { try TwiceClaimed.entity() } }
        #expect(error?.className == "TwiceClaimed")
        #expect(error?.reason == .severalModels(["TwiceClaimed", "TwiceClaimed"]))
        #expect(error?.description.contains("2 models") == true, "\(String(describing: error))")
        // Each context still has its own answer.
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = first
        #expect(try TwiceClaimed.entity(inModelOf: context).managedObjectModel === first.managedObjectModel)

        second = nil
        let entity = try withExtendedLifetime(first) { try TwiceClaimed.entity() }
        #expect(entity.managedObjectModel === first.managedObjectModel)
    }

    @Test func aModelThatWentAwayNoLongerAnswers() throws {
        let folder = try TemporaryFolder()
        weak var gone: ManagedObjectModel?
        do {
            let model = Self.model(entityName: "FleetingRecord")
            gone = model
            let coordinator = try Self.coordinator(model, at: folder.file("fleeting.sqlite"))
            let entity = try withExtendedLifetime(coordinator) { try FleetingRecord.entity() }
            #expect(entity.managedObjectModel === model)
        }
        #expect(gone == nil)
        let error = Self.lookupError { try FleetingRecord.entity() }
        #expect(error?.className == "FleetingRecord")
        #expect(error?.reason == .noEntity)
    }
}
