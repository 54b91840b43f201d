import Foundation
import Testing
@testable import LimelightData

/// One constraint conflict as a policy saw it.
struct ConstraintSighting {
    let constraint: [String]
    let name: String?
    let objects: Int
    let snapshots: Int
    let databaseUses: Int64?
    let databaseSnapshotUses: Int64?
}

/// Merges duplicate tags its own way, then lets its type finish: every copy of a tag is given the
/// uses of all of them added up, so whichever object stays counts them all.
final class AddingUpUses: MergePolicy, @unchecked Sendable {
    let seen = Sightings<ConstraintSighting>()

    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(constraintConflicts list: [ConstraintConflict]) throws {
        for conflict in list {
            let saved = conflict.databaseObject
            seen.append(ConstraintSighting(constraint: conflict.constraint, name: conflict.constraintValues["name"] as? String,
                                           objects: conflict.conflictingObjects.count, snapshots: conflict.conflictingSnapshots.count,
                                           databaseUses: saved?.value(forKey: "uses") as? Int64,
                                           databaseSnapshotUses: conflict.databaseSnapshot?["uses"] as? Int64))
            let total = conflict.conflictingObjects.reduce(saved?.value(forKey: "uses") as? Int64 ?? 0) { $0 + ($1.value(forKey: "uses") as? Int64 ?? 0) }
            for object in conflict.conflictingObjects { object.setValue(total, forKey: "uses") }
        }
        try super.resolve(constraintConflicts: list)
    }
}

/// Leaves constraint conflicts as they are.
final class IgnoringPolicy: MergePolicy, @unchecked Sendable {
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(constraintConflicts list: [ConstraintConflict]) throws {}
}

/// Uniqueness-constraint conflicts settled by merge policies of a program's own, on a real store.
@Suite struct ConstraintConflictPolicyTests {
    /// Tags unique by name, counting their uses.
    static func model() -> ManagedObjectModel {
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "uses", type: .integer64),
            AttributeDescription(name: "note", type: .string),
        ])
        tag.uniquenessConstraints = [["name"]]
        return ManagedObjectModel(entities: [tag])
    }

    /// What the store holds, read afresh: each tag's name, uses and note.
    static func saved(_ url: URL) throws -> [String] {
        let reader = try TestStack.context(model: model(), at: url)
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag", sortDescriptors: [QuerySortDescriptor(key: "name")])).map { tag in
                "\(tag.value(forKey: "name") as? String ?? "-") \(tag.value(forKey: "uses") as? Int64 ?? -1) \(tag.value(forKey: "note") as? String ?? "-")"
            }
        }
    }

    @discardableResult
    static func tag(_ context: ManagedObjectContext, _ name: String, uses: Int64, note: String? = nil) throws -> ManagedObject {
        let tag = try context.insertNewObject(forEntityName: "Tag")
        tag.setValue(name, forKey: "name")
        tag.setValue(uses, forKey: "uses")
        tag.setValue(note, forKey: "note")
        return tag
    }

    /// A store holding the tag swift (3 uses, noted), and a context on it with `policy`.
    static func store(_ folder: TemporaryFolder, policy: MergePolicy) throws -> ManagedObjectContext {
        let url = folder.file("tags.sqlite")
        let setup = try TestStack.context(model: model(), at: url)
        try setup.performAndWait {
            try tag(setup, "swift", uses: 3, note: "a language")
            try setup.save()
        }
        let context = try TestStack.context(model: model(), at: url)
        context.mergePolicy = policy
        return context
    }

    @Test func aSubclassMergesDuplicatesItsOwnWayThenCallsSuper() throws {
        let folder = try TemporaryFolder()
        let policy = AddingUpUses()
        let context = try Self.store(folder, policy: policy)
        try context.performAndWait {
            let first = try Self.tag(context, "swift", uses: 2)
            let second = try Self.tag(context, "swift", uses: 4)
            try Self.tag(context, "rust", uses: 1)
            try Self.tag(context, "rust", uses: 5, note: "systems")
            try context.save()
            #expect(first.managedObjectContext == nil && second.managedObjectContext == nil)
            #expect(context.registeredObjects.count == 2)
        }
        // New copies among themselves first (no saved object), then the one left against the
        // saved swift, read through `databaseObject`.
        let seen = policy.seen.all
        try #require(seen.count == 3)
        #expect(seen.allSatisfy { $0.constraint == ["name"] })
        #expect(seen[0].name == "swift" && seen[0].objects == 2 && seen[0].snapshots == 2 && seen[0].databaseUses == nil)
        #expect(seen[1].name == "rust" && seen[1].objects == 2 && seen[1].databaseUses == nil)
        #expect(seen[2].name == "swift" && seen[2].objects == 1 && seen[2].databaseUses == 3 && seen[2].databaseSnapshotUses == 3)
        // Every use counted once; the type kept the saved note where the new copy had none.
        #expect(try Self.saved(folder.file("tags.sqlite")) == ["rust 6 systems", "swift 9 a language"])
    }

    @Test func aConflictAPolicyLeavesFailsTheSave() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(folder, policy: IgnoringPolicy())
        try context.performAndWait {
            let again = try Self.tag(context, "swift", uses: 1)
            do {
                try context.save()
                Issue.record("saved a second swift")
            } catch let PersistenceError.constraintConflict(entity, properties, values, objects) {
                #expect(entity == "Tag" && properties == ["name"] && values == ["swift"])
                #expect(objects.count == 2 && objects.last == again.objectID)
            }
            #expect(context.insertedObjects.count == 1)
        }
        #expect(try Self.saved(folder.file("tags.sqlite")) == ["swift 3 a language"])
    }

    @Test func aPolicyThatThrowsFailsTheSaveWithNothingWrittenAndTheChangesKept() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(folder, policy: RefusingPolicy())
        try context.performAndWait {
            let again = try Self.tag(context, "swift", uses: 1)
            try Self.tag(context, "go", uses: 1)
            try Self.tag(context, "go", uses: 2)
            // New copies among themselves are the first round.
            #expect(throws: Refused(conflicts: 1)) { try context.save() }
            #expect(context.insertedObjects.count == 3 && again.isInserted)
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
        }
        #expect(try Self.saved(folder.file("tags.sqlite")) == ["go 1 -", "swift 1 a language"])
    }

    @Test func aPolicyMadeByTypeSettlesConstraintsAsTheSharedOne() throws {
        func outcome(_ policy: MergePolicy) throws -> [String] {
            let folder = try TemporaryFolder()
            let context = try Self.store(folder, policy: policy)
            try context.performAndWait {
                try Self.tag(context, "swift", uses: 7)
                try Self.tag(context, "go", uses: 1)
                try Self.tag(context, "go", uses: 2, note: "gophers")
                try context.save()
            }
            return try Self.saved(folder.file("tags.sqlite"))
        }
        for (type, instance) in MergePolicy.sharedByType {
            if type == .errorMergePolicyType {
                #expect(throws: PersistenceError.self) { try outcome(MergePolicy(merge: type)) }
                continue
            }
            #expect(try outcome(MergePolicy(merge: type)) == outcome(instance), "\(type)")
        }
    }
}
