import Foundation
import Testing
import LimelightData

/// The CLI on a store Core Data wrote, with no model given: `model`, `fetch` and `migrate` use the
/// model the store keeps of itself, as programs run on a copy of the store.
@Suite struct StoreModelCommandTests {
    let harness: Harness
    let store: URL
    let bundle: URL

    init() throws {
        harness = try Harness()
        store = harness.home.appendingPathComponent("Cars.sqlite")
        try FileManager.default.copyItem(at: Harness.sampleModelFixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
        bundle = Harness.sampleModelFixtures.appendingPathComponent("SampleModel.xcdatamodeld")
    }

    @Test func modelPrintsTheStoresOwnModelAsTheSourceDoes() throws {
        let fromStore = try harness.run("limelight", ["model", store.path])
        let fromSource = try harness.run("limelight", ["model", bundle.appendingPathComponent("SampleModel.xcdatamodel").path])
        #expect(fromStore.stdout == fromSource.stdout)
        #expect(fromStore.stdout.contains("ExpensiveSportCar : SportCar"))
        #expect(fromStore.stdout.contains("model OK: 4 entities"))
        // Written as a model source, it reads back as the same model.
        let xml = try harness.run("limelight", ["model", store.path, "--xml"])
        let recovered = harness.home.appendingPathComponent("Recovered.xcdatamodel")
        try FileManager.default.createDirectory(at: recovered, withIntermediateDirectories: true)
        try Data(xml.stdout.utf8).write(to: recovered.appendingPathComponent("contents"))
        #expect(try harness.run("limelight", ["model", recovered.path]).stdout == fromSource.stdout)
    }

    @Test func fetchWithoutAModelReadsWhatTheSourceModelReads() throws {
        let arguments = ["--entity", "Car", "--properties", "numberPlate,maker,owner.lastName", "--sort", "numberPlate", "--json"]
        let withoutModel = try harness.run("limelight", ["fetch", store.path] + arguments)
        let withModel = try harness.run("limelight", ["fetch", store.path, "--model", bundle.path] + arguments)
        #expect(withoutModel.stdout == withModel.stdout)
        #expect(withoutModel.stdout.split(separator: "\n").count > 100)
    }

    @Test func storesMadeHereDescribeThemselvesAndOnesWithoutAModelSayWhatToDo() throws {
        let ours = harness.home.appendingPathComponent("Plain.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [
            EntityDescription(name: "Note", properties: [AttributeDescription(name: "title", type: .string)]),
        ]))
        try coordinator.addPersistentStore(type: .sqlite, at: ours)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Note").setValue("kept", forKey: "title")
            try context.save()
        }
        // Made here: the store keeps its model, as Core Data's stores do.
        let fetched = try harness.run("limelight", ["fetch", ours.path, "--entity", "Note", "--properties", "title"])
        #expect(fetched.stdout.contains("kept"))
        // Without one, the command says what to do and what it found.
        try harness.sqlite("DELETE FROM Z_MODELCACHE", at: ours)
        let result = try harness.run("limelight", ["fetch", ours.path, "--entity", "Note"], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("give the model with --model"))
        #expect(result.stderr.contains("Z_MODELCACHE"))
    }

    @Test func migrateFallsBackToTheStoresOwnModel() throws {
        // A bundle that no longer has the version the store was made with.
        let newer = harness.home.appendingPathComponent("Newer.xcdatamodeld")
        try FileManager.default.createDirectory(at: newer, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: bundle.appendingPathComponent("SampleModel3.xcdatamodel"),
                                         to: newer.appendingPathComponent("SampleModel3.xcdatamodel"))
        let result = try harness.run("limelight", ["migrate", store.path, "--model", newer.path])
        #expect(result.stdout.contains("from: the store's own model (Z_MODELCACHE)  to: SampleModel3"))
        #expect(result.stdout.contains("ExpensiveSportCar -> LuxuryCar (renamed)"))

        // The same migration from the version's source gives the same rows.
        let reference = harness.home.appendingPathComponent("Reference.sqlite")
        try FileManager.default.copyItem(at: Harness.sampleModelFixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: reference)
        _ = try harness.run("limelight", ["migrate", reference.path, "--model", bundle.appendingPathComponent("SampleModel3.xcdatamodel").path])
        let v3 = bundle.appendingPathComponent("SampleModel3.xcdatamodel").path
        for (entity, properties) in [("LuxuryCar", "numberPlate,model,isLimitedEdition"), ("Person", "firstName,lastName,updatedAt"), ("Car", "numberPlate,owner.lastName")] {
            let arguments = ["--model", v3, "--entity", entity, "--properties", properties, "--sort", properties.split(separator: ",")[0].description, "--json"]
            let migrated = try harness.run("limelight", ["fetch", store.path] + arguments).stdout
            #expect(!migrated.isEmpty)
            #expect(migrated == (try harness.run("limelight", ["fetch", reference.path] + arguments).stdout), "\(entity)")
        }
    }

    /// `limelight model` says which attributes are derived, from what, and which to-manys keep an order.
    @Test func modelShowsDerivationsAndOrders() throws {
        let version = harness.home.appendingPathComponent("Orders.xcdatamodeld/Orders.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                <entity name="Order" representedClassName="Order" syncable="YES">
                    <attribute name="total" optional="YES" attributeType="Double" derived="YES" derivationExpression="lines.@sum.price"/>
                    <relationship name="lines" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Line" inverseName="order" inverseEntity="Line"/>
                </entity>
                <entity name="Line" representedClassName="Line" syncable="YES">
                    <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                    <relationship name="order" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="lines" inverseEntity="Order"/>
                </entity>
            </model>
            """.utf8).write(to: version.appendingPathComponent("contents"))
        let printed = try harness.run("limelight", ["model", version.deletingLastPathComponent().path]).stdout
        #expect(printed.contains("total: Double derived from lines.@sum.price [optional]"))
        #expect(printed.contains("lines: ordered to-many Line (inverse order) Cascade [optional]"))
    }
}
