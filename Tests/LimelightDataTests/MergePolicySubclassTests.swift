import Foundation
import Testing
@testable import LimelightData

/// What a policy saw while a save ran on its context's queue, read by the test afterwards.
final class Sightings<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []

    func append(_ item: Value) { lock.withLock { items.append(item) } }
    var all: [Value] { lock.withLock { items } }
}

/// One optimistic-locking conflict as a policy saw it.
struct LockingSighting {
    let object: ManagedObject
    let objectSnapshot: [String: Any]?
    let cachedSnapshot: [String: Any]?
    let persistedSnapshot: [String: Any]?
    let readFirstName: String?
    let oldVersion: Int
    let newVersion: Int
}

/// Settles a lost race itself, without `super`: the first name becomes the store's and this
/// context's joined. Made on the error type, which it never falls back on.
final class JoiningFirstNames: MergePolicy, @unchecked Sendable {
    let seen = Sightings<LockingSighting>()

    init() { super.init(merge: .errorMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
        for conflict in list {
            seen.append(LockingSighting(object: conflict.sourceObject, objectSnapshot: conflict.objectSnapshot,
                                        cachedSnapshot: conflict.cachedSnapshot, persistedSnapshot: conflict.persistedSnapshot,
                                        readFirstName: conflict.sourceObject.committedValues(forKeys: ["firstName"])["firstName"] as? String,
                                        oldVersion: conflict.oldVersionNumber, newVersion: conflict.newVersionNumber))
            let theirs = conflict.persistedSnapshot?["firstName"] as? String ?? "?"
            let ours = conflict.objectSnapshot?["firstName"] as? String ?? "?"
            conflict.sourceObject.setValue("\(theirs) \(ours)", forKey: "firstName")
        }
    }
}

/// Records what reaches `resolve(mergeConflicts:)` and the locking conflicts, then leaves them to
/// its type.
final class RecordingPolicy: MergePolicy, @unchecked Sendable {
    let kinds = Sightings<String>()
    let locking = Sightings<LockingSighting>()

    override func resolve(mergeConflicts list: [Any]) throws {
        for item in list { kinds.append(item is MergeConflict ? "locking" : item is ConstraintConflict ? "constraint" : "other") }
        try super.resolve(mergeConflicts: list)
    }

    override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws {
        for conflict in list {
            locking.append(LockingSighting(object: conflict.sourceObject, objectSnapshot: conflict.objectSnapshot,
                                           cachedSnapshot: conflict.cachedSnapshot, persistedSnapshot: conflict.persistedSnapshot,
                                           readFirstName: nil, oldVersion: conflict.oldVersionNumber, newVersion: conflict.newVersionNumber))
        }
        try super.resolve(optimisticLockingConflicts: list)
    }
}

/// Refuses every conflict.
struct Refused: Error, Equatable {
    let conflicts: Int
}

final class RefusingPolicy: MergePolicy, @unchecked Sendable {
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [MergeConflict]) throws { throw Refused(conflicts: list.count) }
    override func resolve(constraintConflicts list: [ConstraintConflict]) throws { throw Refused(conflicts: list.count) }
}

/// Merge policies of a program's own, settling a save's lost race: a person this context read
/// (Ada Byron, saved at version 1) that a context on another coordinator renamed Augusta and saved
/// (version 2) before this one saved its own changes.
@Suite struct MergePolicySubclassTests {
    struct Race {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let person: ManagedObject

        /// The first and last name the store holds, read afresh.
        func stored() throws -> [String?] {
            let check = try TestStack.context(model: PhotoModel.make(), at: folder.file("people.sqlite"))
            let id = try #require(check.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: person.objectID.uriRepresentation()))
            let object = try check.existingObject(with: id)
            return [object.value(forKey: "firstName") as? String, object.value(forKey: "lastName") as? String]
        }

        var shown: [String?] { [person.value(forKey: "firstName") as? String, person.value(forKey: "lastName") as? String] }
    }

    /// The race up to this context's save; `deleting` has the other writer delete Ada instead.
    static func race(_ policy: MergePolicy, deleting: Bool = false) throws -> Race {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        let setup = try TestStack.context(model: PhotoModel.make(), at: url)
        let ada = try setup.insertNewObject(forEntityName: "Person")
        ada.setValue("Ada", forKey: "firstName")
        ada.setValue("Byron", forKey: "lastName")
        try setup.save()

        let mine = try TestStack.context(model: PhotoModel.make(), at: url)
        mine.mergePolicy = policy
        let person = try mine.existingObject(with: try #require(mine.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: ada.objectID.uriRepresentation())))
        let theirs = try TestStack.context(model: PhotoModel.make(), at: url)
        let theirsAda = try theirs.existingObject(with: try #require(theirs.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: ada.objectID.uriRepresentation())))
        if deleting { theirs.delete(theirsAda) } else { theirsAda.setValue("Augusta", forKey: "firstName") }
        try theirs.save()
        return Race(folder: folder, context: mine, person: person)
    }

    @Test func aSubclassSeesTheConflictAndPicksTheValuesItself() throws {
        let policy = JoiningFirstNames()
        let race = try Self.race(policy)
        race.person.setValue("Countess", forKey: "firstName")
        race.person.setValue("Lovelace", forKey: "lastName")
        try race.context.save()

        let seen = policy.seen.all
        try #require(seen.count == 1)
        let conflict = seen[0]
        #expect(conflict.object === race.person)
        // This context's values, the store's now, and the versions read at and found.
        #expect(conflict.objectSnapshot?["firstName"] as? String == "Countess" && conflict.objectSnapshot?["lastName"] as? String == "Lovelace")
        #expect(conflict.persistedSnapshot?["firstName"] as? String == "Augusta" && conflict.persistedSnapshot?["lastName"] as? String == "Byron")
        #expect(conflict.cachedSnapshot?["firstName"] as? String == "Augusta" && conflict.cachedSnapshot?["lastName"] as? String == "Byron")
        #expect(conflict.readFirstName == "Ada")
        #expect(conflict.oldVersion == 1 && conflict.newVersion == 2)
        // Attributes and to-ones; no to-many.
        #expect(Set(conflict.persistedSnapshot?.keys.map { $0 } ?? []) == ["firstName", "lastName"])

        // What the policy picked is written, with this context's other change; nothing is left.
        #expect(try race.stored() == ["Augusta Countess", "Lovelace"])
        #expect(race.shown == ["Augusta Countess", "Lovelace"])
        #expect(!race.context.hasChanges && race.person.storeVersion == 3)
    }

    @Test func resolveMergeConflictsSeesEveryConflictAndSuperSettlesByTheType() throws {
        let policy = RecordingPolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        let race = try Self.race(policy)
        race.person.setValue("Lovelace", forKey: "lastName")
        try race.context.save()
        #expect(policy.kinds.all == ["locking"])
        #expect(policy.locking.all.count == 1)
        // As `.mergeByPropertyObjectTrump`: their first name, this context's last.
        #expect(try race.stored() == ["Augusta", "Lovelace"])
        #expect(race.shown == ["Augusta", "Lovelace"])
    }

    @Test func anObjectDeletedElsewhereComesWithoutSnapshotsAtVersionZero() throws {
        let policy = RecordingPolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        let race = try Self.race(policy, deleting: true)
        race.person.setValue("Lovelace", forKey: "lastName")
        try race.context.save()
        let seen = policy.locking.all
        try #require(seen.count == 1)
        #expect(seen[0].newVersion == 0 && seen[0].oldVersion == 1)
        #expect(seen[0].persistedSnapshot == nil && seen[0].cachedSnapshot == nil)
        #expect(seen[0].objectSnapshot?["lastName"] as? String == "Lovelace")
        // The store's state wins: the object leaves the context.
        #expect(race.person.managedObjectContext == nil)
    }

    @Test func aPolicyThatThrowsFailsTheSaveWithNothingWrittenAndTheChangesKept() throws {
        let race = try Self.race(RefusingPolicy())
        race.person.setValue("Countess", forKey: "firstName")
        race.person.setValue("Lovelace", forKey: "lastName")
        #expect(throws: Refused(conflicts: 1)) { try race.context.save() }
        #expect(try race.stored() == ["Augusta", "Byron"])
        #expect(race.context.hasChanges && race.person.isUpdated)
        #expect(race.shown == ["Countess", "Lovelace"])
        #expect(race.person.committedValues(forKeys: ["firstName"])["firstName"] as? String == "Ada")
        // The kept changes save once a policy settles them.
        race.context.mergePolicy = .mergeByPropertyObjectTrump
        try race.context.save()
        #expect(try race.stored() == ["Countess", "Lovelace"])
    }

    @Test func aPolicyMadeByTypeSettlesAsTheSharedOne() throws {
        let races = MergePolicyTests()
        for (type, instance) in MergePolicy.sharedByType {
            let made = MergePolicy(merge: type)
            #expect(instance.mergeType == type && made.mergeType == type && made !== instance)
            for both in [false, true] {
                if type == .errorMergePolicyType {
                    #expect(throws: PersistenceError.self) { try races.race(made, alsoChangeFirstName: both) }
                    continue
                }
                let byType = try races.race(made, alsoChangeFirstName: both)
                let byShared = try races.race(instance, alsoChangeFirstName: both)
                #expect(byType == byShared, "\(type) \(both)")
            }
        }
    }
}
