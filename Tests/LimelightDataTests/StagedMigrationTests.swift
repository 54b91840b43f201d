import Foundation
import Testing
@testable import LimelightData

/// Staged migration of real SQLite stores through the contacts model's three versions: lightweight
/// stages, a custom stage whose handlers change the data, and the ways a migration is refused or
/// stops.
@Suite struct StagedMigrationTests {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the address book is locked" }
    }

    /// What the handlers saw, kept across the closures.
    final class Log {
        var events: [String] = []
    }

    static let people: [[String: String]] = [
        ["name": "Ann Lee", "email": "ann@example.org"],
        ["name": "Bob Stone", "email": "bob@example.org"],
        ["name": "Ann B. Lee", "email": "ann@example.org"],
    ]

    /// Version 1 to 2 by inferred mapping, then 2 to 3 with handlers: before, names are split and
    /// duplicate addresses removed (the new constraint would refuse them); after, the new display
    /// name is filled.
    func stages(log: Log) -> (StagedMigrationManager, CustomMigrationStage) {
        let v2 = ContactVersions.version2(), v3 = ContactVersions.version3()
        let custom = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: v2), to: ManagedObjectModelReference(model: v3))
        custom.label = "split names"
        custom.willMigrateHandler = { manager, _ in
            let context = try #require(manager.container?.viewContext)
            log.events.append("will \(context.persistentStoreCoordinator?.managedObjectModel.versionChecksum ?? "?")")
            var seen: Set<String> = []
            let request = FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "name")])
            for person in try context.fetch(request) {
                let email = person.value(forKey: "email") as? String ?? ""
                if !seen.insert(email).inserted {
                    context.delete(person)
                    continue
                }
                let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ")
                person.setValue(parts.first.map(String.init), forKey: "firstName")
                person.setValue(parts.last.map(String.init), forKey: "lastName")
            }
            try context.save()
        }
        custom.didMigrateHandler = { manager, _ in
            let container = try #require(manager.container)
            log.events.append("did \(container.managedObjectModel.versionChecksum)")
            // A background context works as well as the view context.
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let first = person.value(forKey: "firstName") as? String ?? "", last = person.value(forKey: "lastName") as? String ?? ""
                    person.setValue("\(last), \(first)", forKey: "displayName")
                }
                try context.save()
            }
        }
        let manager = StagedMigrationManager([LightweightMigrationStage([ContactVersions.version1().versionChecksum]), custom])
        return (manager, custom)
    }

    func options(_ manager: StagedMigrationManager) -> [String: any Sendable] {
        [StoreOption.stagedMigrationManager: manager, StoreOption.migrationSourceModels: [ContactVersions.version1()]]
    }

    @Test func customStageHandlersTransformTheDataAroundTheMigration() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("contacts.sqlite")
        try ContactVersions.makeStore(at: url, model: ContactVersions.version1(), people: Self.people)
        let log = Log()
        let (manager, _) = stages(log: log)
        let context = try TestStack.context(model: ContactVersions.version3(), at: url, options: options(manager))
        #expect(try ContactVersions.people(in: context, ["firstName", "lastName", "email", "displayName"]) == [
            ["Ann", "Lee", "ann@example.org", "Lee, Ann"],
            ["Bob", "Stone", "bob@example.org", "Stone, Bob"],
        ])
        #expect(log.events == ["will \(ContactVersions.version2().versionChecksum)", "did \(ContactVersions.version3().versionChecksum)"])
        #expect(manager.container == nil)
        // The constraint the handlers made room for holds from now on.
        let duplicate = try context.insertNewObject(forEntityName: "Person")
        duplicate.setValue("bob@example.org", forKey: "email")
        #expect(throws: PersistenceError.self) { try context.save() }
        // Nothing is left of the intermediate files.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!names.contains { $0.contains("migrating") })
    }

    @Test func lightweightStagesMigrateThroughEachVersion() throws {
        let folder = try TemporaryFolder()
        let fromOne = folder.file("one.sqlite"), fromTwo = folder.file("two.sqlite")
        try ContactVersions.makeStore(at: fromOne, model: ContactVersions.version1(), people: [["name": "Ann Lee", "email": "ann@example.org"]])
        try ContactVersions.makeStore(at: fromTwo, model: ContactVersions.version2(), people: [["name": "Bob Stone", "email": "bob@example.org", "firstName": "Bob"]])
        let stages = [LightweightMigrationStage([ContactVersions.version1().versionChecksum]),
                      LightweightMigrationStage([ContactVersions.version2().versionChecksum])]
        let manager = StagedMigrationManager(stages)
        let options: [String: any Sendable] = [StoreOption.stagedMigrationManager: manager,
                                               StoreOption.migrationSourceModels: [ContactVersions.version1(), ContactVersions.version2()]]
        let one = try TestStack.context(model: ContactVersions.version3(), at: fromOne, options: options)
        #expect(try ContactVersions.people(in: one, ["email", "firstName", "displayName"]) == [["ann@example.org", "-", "-"]])
        let two = try TestStack.context(model: ContactVersions.version3(), at: fromTwo, options: options)
        #expect(try ContactVersions.people(in: two, ["email", "firstName", "displayName"]) == [["bob@example.org", "Bob", "-"]])
        #expect(try !MigrationManager.storeNeedsMigration(at: fromOne, for: ContactVersions.version3()))
    }

    @Test func aThrowingHandlerStopsAtTheLastCompletedStage() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("contacts.sqlite")
        try ContactVersions.makeStore(at: url, model: ContactVersions.version1(), people: Self.people)
        let (manager, custom) = stages(log: Log())
        custom.willMigrateHandler = { _, _ in throw Refusal() }
        do {
            _ = try TestStack.context(model: ContactVersions.version3(), at: url, options: options(manager))
            Issue.record("the migration went through")
        } catch let error as MigrationError {
            guard case .stageFailed(_, let stage, let reached, let thrown) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(stage == "split names")
            #expect(thrown is Refusal)
            #expect(reached == ContactVersions.version2().versionChecksum)
            #expect("\(error)".contains("split names") && "\(error)".contains("the address book is locked"))
        }
        #expect(manager.container == nil)
        // The lightweight stage before it is done: the store opens at version 2, data intact.
        let context = try TestStack.context(model: ContactVersions.version2(), at: url)
        #expect(try ContactVersions.people(in: context, ["name", "email", "firstName"]) == [
            ["Ann B. Lee", "ann@example.org", "-"], ["Ann Lee", "ann@example.org", "-"], ["Bob Stone", "bob@example.org", "-"],
        ])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!names.contains { $0.contains("migrating") })
    }

    @Test func aThrowingDidMigrateHandlerLeavesTheStoreAtTheStagesDestination() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("contacts.sqlite")
        try ContactVersions.makeStore(at: url, model: ContactVersions.version1(), people: Self.people)
        let (manager, custom) = stages(log: Log())
        custom.didMigrateHandler = { _, _ in throw Refusal() }
        #expect(throws: MigrationError.self) { try TestStack.context(model: ContactVersions.version3(), at: url, options: options(manager)) }
        let context = try TestStack.context(model: ContactVersions.version3(), at: url)
        #expect(try ContactVersions.people(in: context, ["firstName", "displayName"]) == [["Ann", "-"], ["Bob", "-"]])
    }

    @Test func aStoreOfAModelNoStageKnowsIsRefused() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("other.sqlite")
        let other = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: [AttributeDescription(name: "label", type: .string)])])
        let context = try TestStack.context(model: other, at: url)
        _ = try context.insertNewObject(forEntityName: "Thing")
        try context.save()
        context.persistentStoreCoordinator?.persistentStores.forEach { context.persistentStoreCoordinator?.remove($0) }
        let before = try Data(contentsOf: url)
        let (manager, _) = stages(log: Log())
        do {
            _ = try TestStack.context(model: ContactVersions.version3(), at: url, options: options(manager))
            Issue.record("the store was opened")
        } catch let error as MigrationError {
            guard case .noSourceModel(let path, _) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(path == url.path)
            #expect("\(error)".contains(url.path))
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreAtTheFinalModelRunsNoHandler() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("contacts.sqlite")
        try ContactVersions.makeStore(at: url, model: ContactVersions.version3(), people: [["email": "ann@example.org", "firstName": "Ann"]])
        let log = Log()
        let (manager, custom) = stages(log: log)
        custom.willMigrateHandler = { _, _ in log.events.append("will") }
        custom.didMigrateHandler = { _, _ in log.events.append("did") }
        let context = try TestStack.context(model: ContactVersions.version3(), at: url, options: options(manager))
        #expect(try ContactVersions.people(in: context, ["email", "firstName"]) == [["ann@example.org", "Ann"]])
        #expect(log.events.isEmpty)
    }

    @Test func stagesThatDoNotChainAreRefusedBeforeTheStoreIsTouched() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("contacts.sqlite")
        try ContactVersions.makeStore(at: url, model: ContactVersions.version1(), people: Self.people)
        let before = try Data(contentsOf: url)
        let first = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: ContactVersions.version1()),
                                         to: ManagedObjectModelReference(model: ContactVersions.version2()))
        let second = CustomMigrationStage(migratingFrom: ManagedObjectModelReference(model: ContactVersions.version1()),
                                          to: ManagedObjectModelReference(model: ContactVersions.version3()))
        second.label = "from one again"
        let manager = StagedMigrationManager([first, second])
        do {
            _ = try TestStack.context(model: ContactVersions.version3(), at: url, options: [StoreOption.stagedMigrationManager: manager])
            Issue.record("the store was opened")
        } catch {
            #expect("\(error)".contains("from one again"))
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func modelReferencesLoadFilesAndCheckTheirChecksum() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("Contacts.xcdatamodeld")
        try ContactVersions.version2().write(to: bundle)
        let checksum = ContactVersions.version2().versionChecksum
        #expect(checksum.count == 44 && Data(base64Encoded: checksum)?.count == 32)
        #expect(checksum == ContactVersions.version2().versionChecksum)
        #expect(checksum != ContactVersions.version1().versionChecksum)

        let byFile = try ManagedObjectModelReference(fileURL: bundle, versionChecksum: checksum)
        #expect(try byFile.resolve().versionChecksum == checksum)
        #expect(byFile.versionChecksum == checksum)
        let version = try ManagedObjectModelReference(fileURL: bundle.appendingPathComponent("Contacts.xcdatamodel"))
        #expect(version.versionChecksum == checksum)
        let wrong = try ManagedObjectModelReference(fileURL: bundle, versionChecksum: ContactVersions.version1().versionChecksum)
        #expect(throws: ModelError.self) { try wrong.resolve() }
        #expect(throws: (any Error).self) { try ManagedObjectModelReference(fileURL: folder.file("Missing.xcdatamodeld")) }

        let resources = try #require(Bundle(path: folder.url.path))
        #expect(try ManagedObjectModelReference(name: "Contacts", in: resources).versionChecksum == checksum)
        #expect(throws: ModelError.self) { try ManagedObjectModelReference(name: "Nothing", in: resources) }
    }
}
