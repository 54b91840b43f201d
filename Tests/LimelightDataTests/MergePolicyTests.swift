import Foundation
import Testing
@testable import LimelightData

/// A save that lost a race, settled by each merge policy: another context saved the same person
/// (first name) after this one read it; this one changed the last name, and sometimes the first.
@Suite struct MergePolicyTests {
    struct Outcome: Equatable {
        var first: String?
        var last: String?
    }

    /// Runs the race under `policy`; what the store then holds, and what this context's object
    /// shows after the save.
    func race(_ policy: MergePolicy, alsoChangeFirstName: Bool) throws -> (stored: Outcome, shown: Outcome) {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let setup = try TestStack.context(model: PhotoModel.make(), at: url)
        let person = try setup.insertNewObject(forEntityName: "Person")
        person.setValue("Ada", forKey: "firstName")
        person.setValue("Byron", forKey: "lastName")
        try setup.save()
        let id = person.objectID

        let mine = try TestStack.context(model: PhotoModel.make(), at: url)
        mine.mergePolicy = policy
        let theirs = try TestStack.context(model: PhotoModel.make(), at: url)
        let mineID = try #require(mine.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        let object = try mine.existingObject(with: mineID)
        // The other writer saves after this context read the object.
        let theirsID = try #require(theirs.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        try theirs.existingObject(with: theirsID).setValue("Augusta", forKey: "firstName")
        try theirs.save()

        object.setValue("Lovelace", forKey: "lastName")
        if alsoChangeFirstName { object.setValue("Countess", forKey: "firstName") }
        try mine.save()
        #expect(!mine.hasChanges)

        let check = try TestStack.context(model: PhotoModel.make(), at: url)
        let checkID = try #require(check.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation()))
        let stored = try check.existingObject(with: checkID)
        return (Outcome(first: stored.value(forKey: "firstName") as? String, last: stored.value(forKey: "lastName") as? String),
                Outcome(first: object.value(forKey: "firstName") as? String, last: object.value(forKey: "lastName") as? String))
    }

    @Test func errorIsTheDefaultAndWritesNothing() throws {
        #expect(ManagedObjectContext(concurrencyType: .privateQueue).mergePolicy === MergePolicy.error)
        #expect(throws: PersistenceError.self) { try race(.error, alsoChangeFirstName: false) }
    }

    @Test func eachPolicySettlesAsCoreDataDoes() throws {
        let cases: [(MergePolicy, Bool, Outcome)] = [
            // Each side's own change survives; where both changed, the store's / this context's wins.
            (.mergeByPropertyStoreTrump, false, Outcome(first: "Augusta", last: "Lovelace")),
            (.mergeByPropertyStoreTrump, true, Outcome(first: "Augusta", last: "Lovelace")),
            (.mergeByPropertyObjectTrump, false, Outcome(first: "Augusta", last: "Lovelace")),
            (.mergeByPropertyObjectTrump, true, Outcome(first: "Countess", last: "Lovelace")),
            // This context's whole object wins, even the name it did not change.
            (.overwrite, false, Outcome(first: "Ada", last: "Lovelace")),
            // This context's changes go.
            (.rollback, true, Outcome(first: "Augusta", last: "Byron")),
        ]
        for (policy, both, expected) in cases {
            let (stored, shown) = try race(policy, alsoChangeFirstName: both)
            #expect(stored == expected, "\(policy) \(both)")
            #expect(shown == expected, "\(policy) \(both)")
        }
    }

    @Test func anObjectDeletedElsewhereLeavesOrIsAConflict() throws {
        for policy in [MergePolicy.mergeByPropertyStoreTrump, .rollback, .mergeByPropertyObjectTrump, .overwrite] {
            let folder = try TemporaryFolder()
            let url = folder.file("people.sqlite")
            let mine = try TestStack.context(model: PhotoModel.make(), at: url)
            mine.mergePolicy = policy
            let person = try mine.insertNewObject(forEntityName: "Person"), other = try mine.insertNewObject(forEntityName: "Person")
            try mine.save()
            let theirs = try TestStack.context(model: PhotoModel.make(), at: url)
            let theirsID = try #require(theirs.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: person.objectID.uriRepresentation()))
            theirs.delete(try theirs.existingObject(with: theirsID))
            try theirs.save()
            person.setValue("Ada", forKey: "firstName")
            other.setValue("Grace", forKey: "firstName")
            if policy === MergePolicy.mergeByPropertyStoreTrump || policy === MergePolicy.rollback {
                try mine.save()
                #expect(person.managedObjectContext == nil, "\(policy)")
                #expect(other.committedValues(forKeys: ["firstName"])["firstName"] as? String == "Grace", "\(policy)")
            } else {
                #expect(throws: PersistenceError.self, "\(policy)") { try mine.save() }
            }
        }
    }
}
