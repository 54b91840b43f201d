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
        let fixtures = Harness.sampleModelFixtures
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
        let expected = try context.count(for: FetchRequest<ManagedObject>(entityName: "ExpensiveSportCar"))
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
        // The new required attribute is listed as added; only the objects, not the mapping, could
        // stop it (Core Data infers it too).
        #expect(result.stdout.contains("+ nickname added (String, required: existing objects must have one)"))
        #expect(!result.stdout.contains("! Person.nickname"))
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

/// `limelight migrate` on the cookbook's store, which keeps marker files: a renamed entity's
/// markers move with it and still open their records.
@Suite struct MigrateCommandMarkerTests {
    @Test func markersFollowARenamedEntity() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        try h.run("cookbook", ["add", "Pico", "--directions", "Fresh tomato."])
        let original = try #require(h.environment["COOKBOOK_MODEL"]).appending("/Cookbook.xcdatamodel/contents")
        let text = try String(contentsOfFile: original, encoding: .utf8)
        let renamed = text
            .replacingOccurrences(of: #"<entity name="Recipe" representedClassName="Recipe""#, with: #"<entity name="Dish" representedClassName="Dish" elementID="Recipe""#)
            .replacingOccurrences(of: #"destinationEntity="Recipe""#, with: #"destinationEntity="Dish""#)
            .replacingOccurrences(of: #"inverseEntity="Recipe""#, with: #"inverseEntity="Dish""#)
            .replacingOccurrences(of: #"userDefinedModelVersionIdentifier="1""#, with: #"userDefinedModelVersionIdentifier="2""#)
        #expect(renamed != text)
        let bundle = h.home.appendingPathComponent("Cookbook.xcdatamodeld")
        for (name, contents) in [("Cookbook", text), ("Cookbook2", renamed)] {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try contents.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let result = try h.run("limelight", ["migrate", h.storeURL.path, "--model", bundle.appendingPathComponent("Cookbook2.xcdatamodel").path])
        #expect(result.stdout.contains("Recipe -> Dish (renamed)"))
        #expect(result.stdout.contains("markers: 2 created, 0 rewritten, 2 removed"))

        let markers = (FileManager.default.enumerator(atPath: h.home.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".recipe") }
        #expect(markers.count == 2)
        #expect(markers.allSatisfy { $0.contains("/Dish/") })
        for marker in markers {
            let printed = try h.run("limelight", ["open", "--print", h.home.appendingPathComponent(marker).path]).stdout
            #expect(printed.contains("Dish"))
            #expect(printed.contains("Salsa") || printed.contains("Pico"))
        }
    }
}
