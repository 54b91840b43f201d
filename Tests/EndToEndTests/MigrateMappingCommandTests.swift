import Foundation
import Testing
import LimelightData

/// `limelight migrate --mapping` run as a program with the shop's Xcode mapping model, copied
/// with its models into a project folder of the scratch home.
@Suite struct MigrateMappingCommandTests {
    let harness: Harness
    let store: URL
    let project: URL

    init() throws {
        harness = try Harness()
        project = harness.home.appendingPathComponent("ShopProject")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Harness.packageRoot.appendingPathComponent("Tests/Fixtures/xcmapping/Shop"),
                                         to: project.appendingPathComponent("Shop"))
        store = harness.home.appendingPathComponent("shop.sqlite")
        try makeStore()
    }

    var bundle: URL { project.appendingPathComponent("Shop/Shop.xcdatamodeld") }
    var mappingModel: URL { project.appendingPathComponent("Shop/ShopToShop2.xcmappingmodel") }

    /// A version 1 store: two customers, three orders, a priced and a free product, a coupon.
    func makeStore() throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop.xcdatamodel")))
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: [:])
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
                let object = try context.insertNewObject(forEntityName: entity)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let ann = try insert("Customer", ["name": "Ann"]), bob = try insert("Customer", ["name": "Bob"])
            for (number, customer) in [(1, ann), (2, ann), (3, bob)] { _ = try insert("Order", ["number": Int32(number), "customer": customer]) }
            _ = try insert("Product", ["name": "tea", "priceInCents": Int64(250)])
            _ = try insert("Product", ["name": "water", "priceInCents": Int64(0)])
            _ = try insert("Coupon", ["code": "WELCOME"])
            try context.save()
        }
        for added in coordinator.persistentStores { coordinator.remove(added) }
    }

    func migrate(_ arguments: [String], allowFailure: Bool = false) throws -> Harness.Result {
        try harness.run("limelight", ["migrate", store.path, "--model", bundle.path] + arguments, allowFailure: allowFailure)
    }

    func fetch(_ entity: String, _ extra: [String] = []) throws -> String {
        try harness.run("limelight", ["fetch", store.path, "--model", bundle.path, "--entity", entity] + extra).stdout
    }

    @Test func theStoreIsMigratedWithTheMappingModel() throws {
        let result = try migrate(["--mapping", mappingModel.path])
        #expect(result.stdout.contains("from: Shop  to: Shop 2"))
        #expect(result.stdout.contains("CustomerToClient: Customer -> Client (transform)"))
        #expect(result.stdout.contains("price = ($source.priceInCents / 100.0)"))
        #expect(result.stdout.contains("migrated to Shop 2 with the mapping model"))
        #expect(try fetch("Client", ["--count"]).trimmingCharacters(in: .whitespacesAndNewlines) == "2")
        #expect(try fetch("Product", ["--count"]).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(try fetch("Product").contains("2.5"))
        // Now at version 2: nothing is left to do.
        #expect(try migrate(["--mapping", mappingModel.path]).stdout.contains("nothing to migrate"))
    }

    @Test func aDryRunPrintsTheMappingAndWritesNothing() throws {
        let before = try Data(contentsOf: store)
        let result = try migrate(["--mapping", mappingModel.appendingPathComponent("xcmapping.xml").path, "--dry-run"])
        #expect(result.stdout.contains("objects: FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Product\", \"priceInCents > 0\")"))
        #expect(result.stdout.contains("dry run: the store was not changed"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func aCustomPolicyIsRefusedAndTheStoreIsUnchanged() throws {
        let xml = mappingModel.appendingPathComponent("xcmapping.xml")
        let text = try String(contentsOf: xml, encoding: .utf8)
        let named = text.replacingOccurrences(of: #"<attribute name="migrationpolicyclassname" type="string"></attribute>"#,
                                              with: #"<attribute name="migrationpolicyclassname" type="string">ShopApp.TagPolicy</attribute>"#)
        #expect(named != text)
        try named.write(to: xml, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: store)
        let result = try migrate(["--mapping", mappingModel.path], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("ShopApp.TagPolicy") && result.stderr.contains("TagToTag") && result.stderr.contains("cannot run"))
        #expect(result.stderr.contains("the store is unchanged"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func aMappingModelForOtherVersionsIsRefused() throws {
        // A third version, as the mapping model (version 1 to 2) was not made for.
        let third = bundle.appendingPathComponent("Shop 3.xcdatamodel")
        try FileManager.default.createDirectory(at: third, withIntermediateDirectories: true)
        let second = try String(contentsOf: bundle.appendingPathComponent("Shop 2.xcdatamodel/contents"), encoding: .utf8)
        let changed = second.replacingOccurrences(of: #"<attribute name="text" optional="YES" attributeType="String"/>"#,
                                                  with: #"<attribute name="stars" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/><attribute name="text" optional="YES" attributeType="String"/>"#)
        #expect(changed != second)
        try changed.write(to: third.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: store)
        let result = try harness.run("limelight", ["migrate", store.path, "--model", third.path, "--mapping", mappingModel.path], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("made for other versions of the model than Shop to Shop 3"))
        #expect(result.stderr.contains("Shop.xcdatamodel to Shop 2.xcdatamodel") && result.stderr.contains("the store is unchanged"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func aBrokenMappingModelNamesWhereAndLeavesTheStore() throws {
        let xml = mappingModel.appendingPathComponent("xcmapping.xml")
        let text = try String(contentsOf: xml, encoding: .utf8)
        try text.replacingOccurrences(of: ">Copy<", with: ">Duplicate<").write(to: xml, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: store)
        let result = try migrate(["--mapping", mappingModel.path], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("xcmapping.xml") && result.stderr.contains("mappingtypename 'Duplicate'"))
        #expect(try Data(contentsOf: store) == before)
    }
}
