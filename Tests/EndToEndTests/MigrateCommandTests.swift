import Foundation
import Testing
import LimelightData

/// `limelight migrate` run as a program on a copy of the store Core Data wrote.
@Suite struct MigrateCommandTests {
    let harness: Harness
    let store: URL
    let bundle: URL

    init() throws {
        harness = try Harness()
        let fixtures = Harness.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata/SampleModel")
        store = harness.home.appendingPathComponent("Cars.sqlite")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
        bundle = fixtures.appendingPathComponent("SampleModel.xcdatamodeld")
    }

    func version(_ name: String) -> String { bundle.appendingPathComponent("\(name).xcdatamodel").path }

    func migrate(_ arguments: [String], allowFailure: Bool = false) throws -> Harness.Result {
        try harness.run("limelight", ["migrate", store.path] + arguments, allowFailure: allowFailure)
    }

    @Test func dryRunPrintsTheMappingAndWritesNothing() throws {
        let before = try Data(contentsOf: store)
        let result = try migrate(["--model", version("SampleModel3"), "--dry-run"])
        #expect(result.stdout.contains("from: SampleModel  to: SampleModel3"))
        #expect(result.stdout.contains("ExpensiveSportCar -> LuxuryCar (renamed)"))
        #expect(result.stdout.contains("+ Maker (added)"))
        #expect(result.stdout.contains("- maker removed (String)"))
        #expect(result.stdout.contains("+ previousOwners added (to-many Person)"))
        #expect(result.stdout.contains("dry run: the store was not changed"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func migratingForRealThenNothingIsLeftToDo() throws {
        let result = try migrate(["--model", version("SampleModel2")])
        #expect(result.stdout.contains("* new fetch index byMakerAndNumberPlate (maker, numberPlate)"))
        #expect(result.stdout.contains("migrated to SampleModel2"))
        // The store's hashes now name version 2, so version 3 is found from it without --from.
        let again = try migrate(["--model", version("SampleModel2")])
        #expect(again.stdout.contains("nothing to migrate"))
        let third = try migrate(["--model", version("SampleModel3")])
        #expect(third.stdout.contains("from: SampleModel2  to: SampleModel3"))

        let fetched = try harness.run("limelight", ["fetch", store.path, "--model", version("SampleModel3"), "--entity", "LuxuryCar", "--count"])
        let context = try openV1Fixture()
        let expected = try context.count(for: FetchRequest(entityName: "ExpensiveSportCar"))
        #expect(fetched.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(expected))
    }

    @Test func anUnmappableVersionIsRefusedWithTheChanges() throws {
        let folder = harness.home.appendingPathComponent("Broken.xcdatamodeld/Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = try String(contentsOf: bundle.appendingPathComponent("SampleModel2.xcdatamodel/contents"), encoding: .utf8)
        let broken = original
            .replacingOccurrences(of: #"<attribute name="model" optional="YES" attributeType="String"/>"#,
                                  with: #"<attribute name="model" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"#)
            .replacingOccurrences(of: #"<attribute name="firstName" optional="YES" attributeType="String"/>"#,
                                  with: #"<attribute name="firstName" optional="YES" attributeType="String"/><attribute name="nickname" attributeType="String"/>"#)
        #expect(broken != original)
        try broken.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: store)
        let result = try migrate(["--model", folder.path, "--from", version("SampleModel")], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stdout.contains("! Car.model: type changes from String to Integer 32"))
        #expect(result.stdout.contains("! Person.nickname: new required attribute without a default value"))
        #expect(result.stderr.contains("cannot be inferred"))
        #expect(try Data(contentsOf: store) == before)
    }

    func openV1Fixture() throws -> ManagedObjectContext {
        let copy = harness.home.appendingPathComponent("reference.sqlite")
        let fixtures = bundle.deletingLastPathComponent()
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: copy)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: URL(fileURLWithPath: version("SampleModel"))))
        try coordinator.addPersistentStore(type: .sqlite, at: copy, options: [StoreOption.readOnly: true])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
