import Foundation
import Testing
@testable import LimelightData

/// Objects do not keep their context alive, and read `nil` as their context once it is gone.
@Suite struct ContextLifetimeTests {
    @Test func objectsOutlivingTheirContextSeeNone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("lifetime.sqlite")
        weak var goneContext: ManagedObjectContext?
        var survivors: [ManagedObject] = []
        do {
            let context = try PhotoModel.stack(at: url)
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue("Kept", forKey: "name")
            try context.save()
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo"))
            #expect(fetched.first?.managedObjectContext === context)
            survivors = fetched + [photo]
            goneContext = context
        }
        #expect(goneContext == nil)
        #expect(!survivors.isEmpty)
        #expect(survivors.allSatisfy { $0.managedObjectContext == nil })
        // Values already loaded stay readable; the object just has no context to load more from.
        #expect(survivors.first?.value(forKey: "name") as? String == "Kept")
    }

    /// Objects that hold each other through caches of their own (a fetched property's results,
    /// objects prefetched out and back through an inverse) go with their context, and with a reset.
    @Test func objectsHoldingEachOtherThroughFetchedAndPrefetchedResultsGoWithTheirContext() throws {
        let folder = try TemporaryFolder()
        let model = PhotoModel.make()
        // Every person with the same first name, the person itself among them.
        model.entitiesByName["Person"]?.addProperty(FetchedPropertyDescription(
            name: "namesakes", destinationEntityName: "Person", predicateFormat: "firstName == $FETCH_SOURCE.firstName"))
        let url = folder.file("cycles.sqlite")
        do {
            let context = try PhotoModel.stack(at: url, model: model)
            try context.performAndWait {
                for name in ["Ada", "Ada", "Grace"] {
                    let person = try context.insertNewObject(forEntityName: "Person")
                    person.setValue(name, forKey: "firstName")
                    let photo = try context.insertNewObject(forEntityName: "Photo")
                    photo.setValue(person, forKey: "photographer")
                }
                try context.save()
            }
        }
        weak var goneContext: ManagedObjectContext?
        weak var gonePerson: ManagedObject?
        weak var gonePhoto: ManagedObject?
        do {
            let context = try PhotoModel.stack(at: url, model: model)
            try context.performAndWait {
                let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: try QueryPredicate(format: "firstName == 'Ada'")))
                let namesakes = try #require(people.first?.value(forKey: "namesakes") as? [ManagedObject])
                #expect(namesakes.count == 2 && namesakes.contains { $0 === people.first })
                gonePerson = people.first
                let request = FetchRequest<ManagedObject>(entityName: "Photo")
                request.relationshipKeyPathsForPrefetching = ["photographer", "photographer.photos"]
                let photos = try context.fetch(request)
                #expect(photos.count == 3)
                gonePhoto = photos.first
            }
            goneContext = context
        }
        #expect(goneContext == nil)
        #expect(gonePerson == nil)
        #expect(gonePhoto == nil)

        // A reset lets them go too, the context staying.
        let context = try PhotoModel.stack(at: url, model: model)
        try context.performAndWait {
            do {
                let person = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first)
                _ = person.value(forKey: "namesakes")
                gonePerson = person
            }
            #expect(gonePerson != nil)
            context.reset()
        }
        #expect(gonePerson == nil)
    }
}
