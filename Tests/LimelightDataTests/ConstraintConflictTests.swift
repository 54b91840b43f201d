import Foundation
import Testing
@testable import LimelightData

/// Uniqueness constraints at save: conflicts between new objects, and between a new object and a
/// saved one, settled by each merge policy or reported, on a real store.
@Suite struct ConstraintConflictTests {
    /// People unique by email; photos by a person.
    static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
            RelationshipDescription(name: "photos", destination: "Photo", inverse: "photographer", toMany: true),
        ])
        person.uniquenessConstraints = [["email"]]
        let photo = EntityDescription(name: "Photo", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "photographer", destination: "Person", inverse: "photos"),
        ])
        return ManagedObjectModel(entities: [person, photo])
    }

    /// A store holding Ada (a@example.org, Lovelace, one photo), and a fresh context on it.
    static func store(_ folder: TemporaryFolder, policy: MergePolicy) throws -> (ManagedObjectContext, ManagedObjectID) {
        let url = folder.file("people.sqlite")
        let setup = try TestStack.context(model: model(), at: url)
        let adaID = try setup.performAndWait { () throws -> ManagedObjectID in
            let ada = try setup.insertNewObject(forEntityName: "Person")
            ada.setValue("a@example.org", forKey: "email")
            ada.setValue("Ada", forKey: "firstName")
            ada.setValue("Lovelace", forKey: "lastName")
            let photo = try setup.insertNewObject(forEntityName: "Photo")
            photo.setValue("Engine", forKey: "name")
            photo.setValue(ada, forKey: "photographer")
            try setup.save()
            return ada.objectID
        }
        let context = try TestStack.context(model: model(), at: url)
        context.mergePolicy = policy
        let id = try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: adaID.uriRepresentation()))
        return (context, id)
    }

    static func newPerson(_ context: ManagedObjectContext, _ values: [String: String?]) throws -> ManagedObject {
        let person = try context.insertNewObject(forEntityName: "Person")
        for (key, value) in values { person.setValue(value, forKey: key) }
        return person
    }

    /// What the store holds, read afresh: each person's email, names and photo names.
    static func saved(_ folder: TemporaryFolder) throws -> [[String]] {
        let reader = try TestStack.context(model: model(), at: folder.file("people.sqlite"))
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "email")])).map { person in
                let photos = (person.value(forKey: "photos") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                return ["email", "firstName", "lastName"].map { person.value(forKey: $0) as? String ?? "-" } + photos
            }
        }
    }

    @Test func theErrorPolicyNamesTheObjectsAndWritesNothing() throws {
        let folder = try TemporaryFolder()
        let (context, adaID) = try Self.store(folder, policy: .error)
        try context.performAndWait {
            let again = try Self.newPerson(context, ["email": "a@example.org", "firstName": "Augusta"])
            do {
                try context.save()
                Issue.record("saved a second a@example.org")
            } catch let PersistenceError.constraintConflict(entity, properties, values, objects) {
                #expect(entity == "Person" && properties == ["email"] && values == ["a@example.org"])
                #expect(objects == [adaID, again.objectID])
            }
            #expect(context.insertedObjects.count == 1)
            // Two new objects with one email are a conflict too.
            again.setValue("b@example.org", forKey: "email")
            _ = try Self.newPerson(context, ["email": "b@example.org"])
            #expect(throws: PersistenceError.self) { try context.save() }
        }
        #expect(try Self.saved(folder) == [["a@example.org", "Ada", "Lovelace", "Engine"]])
    }

    @Test func eachPolicySettlesANewObjectAgainstTheSavedOne() throws {
        let expected: [(MergePolicy, [String])] = [
            (.mergeByPropertyObjectTrump, ["a@example.org", "Augusta", "Lovelace", "Engine", "Sunset"]),
            (.overwrite, ["a@example.org", "Augusta", "-", "Engine", "Sunset"]),
            (.mergeByPropertyStoreTrump, ["a@example.org", "Ada", "Lovelace", "Engine", "Sunset"]),
            (.rollback, ["a@example.org", "Ada", "Lovelace", "Engine", "Sunset"]),
        ]
        for (policy, row) in expected {
            let folder = try TemporaryFolder()
            let (context, adaID) = try Self.store(folder, policy: policy)
            try context.performAndWait {
                let again = try Self.newPerson(context, ["email": "a@example.org", "firstName": "Augusta"])
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo.setValue("Sunset", forKey: "name")
                photo.setValue(again, forKey: "photographer")
                try context.save()
                // The new object is the saved one now, and what pointed at it points there.
                #expect(again.objectID == adaID && !again.isInserted && again.managedObjectContext === context)
                #expect((photo.value(forKey: "photographer") as? ManagedObject) === again)
            }
            #expect(try Self.saved(folder) == [row], "\(policy)")
        }
    }

    @Test func aSavedObjectInTheContextTakesTheNewOnesPlace() throws {
        let folder = try TemporaryFolder()
        let (context, adaID) = try Self.store(folder, policy: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let ada = try context.existingObject(with: adaID)
            let again = try Self.newPerson(context, ["email": "a@example.org", "lastName": "Byron"])
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue("Sunset", forKey: "name")
            photo.setValue(again, forKey: "photographer")
            try context.save()
            #expect(again.managedObjectContext == nil)
            #expect((photo.value(forKey: "photographer") as? ManagedObject) === ada)
            #expect(ada.value(forKey: "lastName") as? String == "Byron")
        }
        #expect(try Self.saved(folder) == [["a@example.org", "Ada", "Byron", "Engine", "Sunset"]])
    }

    @Test func newObjectsWithOneKeyBecomeOne() throws {
        let folder = try TemporaryFolder()
        let (context, _) = try Self.store(folder, policy: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let first = try Self.newPerson(context, ["email": "g@example.org", "firstName": "Grace"])
            let second = try Self.newPerson(context, ["email": "g@example.org", "lastName": "Hopper"])
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue("Cobol", forKey: "name")
            photo.setValue(second, forKey: "photographer")
            try context.save()
            #expect(second.managedObjectContext == nil && !first.objectID.isTemporaryID)
            #expect((photo.value(forKey: "photographer") as? ManagedObject) === first)
        }
        #expect(try Self.saved(folder) == [["a@example.org", "Ada", "Lovelace", "Engine"], ["g@example.org", "Grace", "Hopper", "Cobol"]])
    }

    @Test func aBatchInsertUpdatesWhatItFindsByTheConstraint() throws {
        let expected: [(MergePolicy, [[String]])] = [
            (.mergeByPropertyObjectTrump, [["a@example.org", "Augusta", "Lovelace", "Engine"], ["g@example.org", "Grace", "Hopper"]]),
            // Each dictionary whole: the second Grace has no first name.
            (.overwrite, [["a@example.org", "Augusta", "-", "Engine"], ["g@example.org", "-", "Hopper"]]),
            (.mergeByPropertyStoreTrump, [["a@example.org", "Ada", "Lovelace", "Engine"], ["g@example.org", "Grace", "-"]]),
        ]
        for (policy, rows) in expected {
            let folder = try TemporaryFolder()
            let (context, adaID) = try Self.store(folder, policy: policy)
            let request = BatchInsertRequest(entityName: "Person", objects: [
                ["email": "a@example.org", "firstName": "Augusta"],
                ["email": "g@example.org", "firstName": "Grace"],
                ["email": "g@example.org", "lastName": "Hopper"],
            ])
            request.resultType = .objectIDs
            let ids = try context.performAndWait { try context.execute(request).objectIDs ?? [] }
            #expect(ids.count == 2 && ids.first == adaID, "\(policy)")
            #expect(try Self.saved(folder) == rows, "\(policy)")
        }
        // With .error the request is refused, naming what is held, and nothing is written.
        let folder = try TemporaryFolder()
        let (context, adaID) = try Self.store(folder, policy: .error)
        try context.performAndWait {
            do {
                _ = try context.execute(BatchInsertRequest(entityName: "Person", objects: [["email": "n@example.org"], ["email": "a@example.org"]]))
                Issue.record("the batch insert wrote a second a@example.org")
            } catch let PersistenceError.constraintConflict(_, _, values, objects) {
                #expect(values == ["a@example.org"] && objects == [adaID])
            }
        }
        #expect(try Self.saved(folder).count == 1)
    }

    @Test func aChangedSavedObjectMayNotTakeAnothersKeyButADeletedOnesItMay() throws {
        let folder = try TemporaryFolder()
        let (context, adaID) = try Self.store(folder, policy: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let grace = try Self.newPerson(context, ["email": "g@example.org", "firstName": "Grace"])
            try context.save()
            grace.setValue("a@example.org", forKey: "email")
            #expect(throws: PersistenceError.self) { try context.save() }
            context.rollback()
            // Deleting the holder in the same save frees the key for a new object.
            context.delete(try context.existingObject(with: adaID))
            _ = try Self.newPerson(context, ["email": "a@example.org", "firstName": "Augusta"])
            try context.save()
        }
        #expect(try Self.saved(folder) == [["a@example.org", "Augusta", "-"], ["g@example.org", "Grace", "-"]])
    }
}
