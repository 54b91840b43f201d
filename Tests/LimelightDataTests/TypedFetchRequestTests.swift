import Foundation
import Testing
@testable import LimelightData

/// Fetch requests typed by their results, as Swift code written for Core Data declares them:
/// `NSFetchRequest<Photo>`, `NSFetchRequest<NSManagedObjectID>`, `NSFetchRequest<NSDictionary>`,
/// `NSFetchRequest<NSFetchRequestResult>`.
final class Lens: ManagedObject {
    @Managed var focalLength: Int32
}

@Suite struct TypedFetchRequestTests {
    /// Ada took "Bridge" (rating 4) and "Harbour" (2); Grace took "Mountain" (5).
    static func stack(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        ManagedObjectClassRegistry.shared.register(Photo.self)
        ManagedObjectClassRegistry.shared.register(Person.self, forEntityName: "Person")
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        try context.performAndWait {
            let ada = try context.insertNewObject(forEntityName: "Person")
            ada.setValue("Ada", forKey: "firstName")
            let grace = try context.insertNewObject(forEntityName: "Person")
            grace.setValue("Grace", forKey: "firstName")
            for (name, rating, person) in [("Bridge", 4, ada), ("Harbour", 2, ada), ("Mountain", 5, grace)] {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo.setValue(name, forKey: "name")
                photo.setValue(rating, forKey: "rating")
                photo.setValue(person, forKey: "photographer")
            }
            try context.save()
        }
        return context
    }

    @Test func aRequestMadeFromAClassReturnsThatClass() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        try context.performAndWait {
            let request = Photo.fetchRequest()
            request.predicate = try QueryPredicate(format: "rating >= %d", 4)
            request.sortDescriptors = [QuerySortDescriptor(key: "name")]
            let photos: [Photo] = try context.fetch(request)
            #expect(photos.map(\.name) == ["Bridge", "Mountain"])
            #expect(photos.first?.photographer?.firstName == "Ada")
            #expect(request.entityName == nil, "the entity is found when the request runs, not stored in it")
            #expect(try context.count(for: request) == 2)

            let people = try context.fetch(FetchRequest<Person>())
            #expect(Set(people.compactMap(\.firstName)) == ["Ada", "Grace"])
        }
    }

    @Test func aClassNoOneRegisteredFindsTheEntityOfItsName() throws {
        let folder = try TemporaryFolder()
        let model = { ManagedObjectModel(entities: [EntityDescription(name: "Lens", properties: [AttributeDescription(name: "focalLength", type: .integer32)])]) }
        let url = folder.file("lenses.sqlite")
        let context = try TestStack.context(model: model(), at: url)
        try context.performAndWait {
            for length in [35, 50] {
                try context.insertNewObject(forEntityName: "Lens").setValue(length, forKey: "focalLength")
            }
            try context.save()
        }
        // A second coordinator, so that no object is registered before the class is.
        let reader = try TestStack.context(model: model(), at: url)
        let lengths = try reader.performAndWait {
            let request = Lens.fetchRequest()
            request.sortDescriptors = [QuerySortDescriptor(key: "focalLength")]
            return try reader.fetch(request).map(\.focalLength)
        }
        #expect(lengths == [35, 50])
    }

    @Test func theRequestsTypeChoosesWhatItReturns() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        try context.performAndWait {
            let ids = FetchRequest<ManagedObjectID>(entityName: "Photo")
            #expect(ids.resultType == .managedObjectID)
            let fetchedIDs: [ManagedObjectID] = try context.fetch(ids)
            #expect(fetchedIDs.count == 3 && fetchedIDs.allSatisfy { $0.entity.name == "Photo" })

            let rows = FetchRequest<[String: Any]>(entityName: "Photo", sortDescriptors: [QuerySortDescriptor(key: "name")])
            rows.propertiesToFetch = ["name", "rating"]
            #expect(rows.resultType == .dictionary)
            let fetchedRows = try context.fetch(rows)
            #expect(fetchedRows.compactMap { $0["name"] as? String } == ["Bridge", "Harbour", "Mountain"])
            #expect(fetchedRows.compactMap { ($0["rating"] as? NSNumber)?.intValue ?? ($0["rating"] as? Int16).map(Int.init) } == [4, 2, 5])

            let dictionaries = FetchRequest<NSDictionary>(entityName: "Photo")
            dictionaries.propertiesToFetch = ["name"]
            dictionaries.predicate = try QueryPredicate(format: "photographer.firstName == 'Grace'")
            let fetchedDictionaries = try context.fetch(dictionaries)
            #expect(fetchedDictionaries.count == 1)
            #expect(fetchedDictionaries.first?["name"] as? String == "Mountain")

            let count = FetchRequest<Int>(entityName: "Photo", predicate: try QueryPredicate(format: "rating < 5"))
            #expect(try context.fetch(count) == [2])
            let number = FetchRequest<NSNumber>(entityName: "Photo")
            #expect(try context.fetch(number).map(\.intValue) == [3])
        }
    }

    @Test func theUntypedRequestReturnsWhatItsResultTypeSays() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        try context.performAndWait {
            let request = FetchRequest<FetchRequestResult>(entityName: "Photo", sortDescriptors: [QuerySortDescriptor(key: "name")])
            #expect(request.resultType == .managedObject)
            #expect(try context.fetch(request).compactMap { ($0 as? Photo)?.name } == ["Bridge", "Harbour", "Mountain"])
            request.resultType = .managedObjectID
            #expect(try context.fetch(request).allSatisfy { $0 is ManagedObjectID })
            request.resultType = .dictionary
            request.propertiesToFetch = ["name"]
            #expect(try context.fetch(request).compactMap { ($0 as? [String: Any])?["name"] as? String } == ["Bridge", "Harbour", "Mountain"])
            request.resultType = .count
            #expect(try context.fetch(request).compactMap { $0 as? Int } == [3])

            // As Core Data code writes a batch delete: an untyped request made from the class.
            let harbour: FetchRequest<FetchRequestResult> = Photo.fetchRequest()
            harbour.predicate = try QueryPredicate(format: "name == 'Harbour'")
            let deletion = BatchDeleteRequest(fetchRequest: harbour)
            deletion.resultType = .count
            #expect(try context.execute(deletion).count == 1)
            #expect(try context.count(for: FetchRequest<Photo>()) == 2)
        }
    }

    @Test func resultsOfTheWrongTypeAreRefusedByName() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        context.performAndWait {
            // Person objects under a request typed by Photo.
            let wrongClass = FetchRequest<Photo>(entityName: "Person")
            #expect { try context.fetch(wrongClass) } throws: { error in
                "\(error)".contains("typed Photo") && "\(error)".contains("Person")
            }
            // A result type that does not give the request's type.
            let wrongKind = FetchRequest<ManagedObjectID>(entityName: "Photo")
            wrongKind.resultType = .dictionary
            #expect { try context.fetch(wrongKind) } throws: { error in
                "\(error)".contains("typed ManagedObjectID") && "\(error)".contains("dictionaries")
            }
            // No entity, and a class that names none.
            #expect { try context.fetch(FetchRequest<ManagedObject>()) } throws: { error in
                "\(error)".contains("names no entity")
            }
            #expect { try context.fetch(FetchRequest<Stray>()) } throws: { error in
                "\(error)".contains("Stray")
            }
            // An entity the model does not have.
            #expect { try context.fetch(FetchRequest<ManagedObject>(entityName: "Camera")) } throws: { error in
                "\(error)".contains("Camera")
            }
        }
    }

    @Test func anEntityDescriptionAndACopyWork() throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        try context.performAndWait {
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            let request = FetchRequest<ManagedObject>()
            request.entity = model.entity(named: "Photo")
            #expect(request.entityName == "Photo")
            request.fetchLimit = 1
            request.sortDescriptors = [QuerySortDescriptor(key: "rating", ascending: false)]
            let copy = request.copy()
            request.fetchLimit = 0
            #expect(try context.fetch(copy).map { $0.value(forKey: "name") as? String } == ["Mountain"])
            #expect(try context.fetch(request).count == 3)
        }
    }

    @Test func controllersAndAsynchronousFetchesAreTypedToo() async throws {
        let folder = try TemporaryFolder()
        let context = try Self.stack(folder)
        let request = Photo.fetchRequest()
        request.sortDescriptors = [QuerySortDescriptor(key: "name")]
        let names: [String?] = try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            try controller.performFetch()
            #expect(controller.object(at: IndexPath(item: 2, section: 0)).name == "Mountain")
            return controller.fetchedObjects?.map(\.name) ?? []
        }
        #expect(names == ["Bridge", "Harbour", "Mountain"])

        let fetched: [String?] = await withCheckedContinuation { continuation in
            let asynchronous = AsynchronousFetchRequest(fetchRequest: request) { result in
                continuation.resume(returning: result.finalResult?.map(\.name) ?? [])
            }
            context.perform {
                do {
                    try context.execute(asynchronous)
                } catch {
                    continuation.resume(returning: [])
                }
            }
        }
        #expect(fetched == ["Bridge", "Harbour", "Mountain"])
    }
}
