import Foundation
import Testing
@testable import LimelightData

/// An XML store made with one model version, opened with the next: renamed properties keep their
/// values, removed ones go, and only when a migration is asked for.
struct XMLStoreMigrationTests {
    /// Version 1: employees with a nickname and a salary, and the departments they work in.
    static func version1() -> ManagedObjectModel { XMLStoreTests.staffModel() }

    /// Version 2: no departments; `salary` renamed `pay`; a new `title`.
    static func version2() -> ManagedObjectModel {
        let pay = AttributeDescription(name: "pay", type: .integer64)
        pay.renamingIdentifier = "salary"
        return ManagedObjectModel(entities: [EntityDescription(name: "Employee", properties: [
            AttributeDescription(name: "name", type: .string),
            pay,
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "hireDate", type: .date),
        ])])
    }

    static let migrating: [String: any Sendable] = [
        StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
    ]

    func makeVersion1Store(at url: URL) throws {
        let context = try XMLStoreTests.context(Self.version1(), at: url)
        let department = try context.insertNewObject(forEntityName: "Department")
        department.setValue("Engineering", forKey: "name")
        let alice = try context.insertNewObject(forEntityName: "Employee")
        alice.setValue("Alice", forKey: "name")
        alice.setValue(Int32(100), forKey: "salary")
        alice.setValue(department, forKey: "department")
        try context.save()
    }

    @Test func aLightweightMigrationKeepsRenamedValuesAndDropsTheRest() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        try makeVersion1Store(at: url)
        let context = try XMLStoreTests.context(Self.version2(), at: url, options: Self.migrating)
        let alice = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).first)
        #expect(alice.value(forKey: "name") as? String == "Alice")
        #expect(alice.value(forKey: "pay") as? Int64 == 100)
        #expect(alice.value(forKey: "title") == nil)
        // The file is in the new model's form already.
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(!text.contains("DEPARTMENT") && text.contains("<attribute name=\"pay\" type=\"int64\">100</attribute>"), "\(text)")
        let reopened = try XMLStoreTests.context(Self.version2(), at: url)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 1)
    }

    @Test func withoutAMigrationTheOldStoreIsRefusedAndKept() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Staff.xml")
        try makeVersion1Store(at: url)
        let before = try String(contentsOf: url, encoding: .utf8)
        #expect(throws: PersistenceError.self) { _ = try XMLStoreTests.context(Self.version2(), at: url) }
        #expect(try String(contentsOf: url, encoding: .utf8) == before)
    }
}
