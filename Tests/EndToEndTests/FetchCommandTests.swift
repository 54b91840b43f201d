import Foundation
import Testing
import LimelightData

/// `limelight fetch` run as a program on a store Core Data wrote, its answers checked against the
/// same store read through the framework in this process.
@Suite struct FetchCommandTests {
    let harness: Harness
    let store: URL
    let model: URL
    let cars: [ManagedObject]
    /// Kept alive: the objects load their values through it.
    let context: ManagedObjectContext

    init() throws {
        harness = try Harness()
        let fixtures = Harness.sampleModelFixtures
        store = harness.home.appendingPathComponent("SampleModel_V1.sqlite")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: store)
        model = fixtures.appendingPathComponent("SampleModel.xcdatamodeld")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: model))
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: [StoreOption.readOnly: true])
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        cars = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
    }

    func fetch(_ arguments: [String], allowFailure: Bool = false) throws -> Harness.Result {
        try harness.run("limelight", ["fetch", store.path, "--model", model.path, "--entity", "Car"] + arguments, allowFailure: allowFailure)
    }

    func jsonRows(_ arguments: [String]) throws -> [[String: Any]] {
        try fetch(arguments + ["--json"]).stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func string(_ object: ManagedObject, _ keyPath: String) -> String? { object.value(forKeyPath: keyPath) as? String }

    @Test func groupByCountsPerMaker() throws {
        let rows = try jsonRows(["--properties", "maker,count:model", "--group-by", "maker"])
        let counted = Dictionary(uniqueKeysWithValues: rows.map { ($0["maker"] as? String ?? "", $0["count_model"] as? Int ?? -1) })
        let expected = Dictionary(grouping: cars) { string($0, "maker") ?? "" }.mapValues { $0.filter { string($0, "model") != nil }.count }
        #expect(counted == expected)
    }

    @Test func sumOfAKeyPathAndHavingOnIt() throws {
        let plates = { (cars: [ManagedObject]) in cars.compactMap { self.string($0, "numberPlate").flatMap(Double.init) }.reduce(0, +) }
        let total = try jsonRows(["--properties", "sum:numberPlate"])
        #expect(total.count == 1)
        #expect(total.first?["sum_numberPlate"] as? Double == plates(cars))

        let rows = try jsonRows(["--properties", "owner,sum:numberPlate", "--group-by", "owner", "--having", "sum_numberPlate > 1000"])
        let owners = Set(rows.compactMap { $0["owner"] as? String })
        let byOwner = Dictionary(grouping: cars.filter { $0.value(forKey: "owner") != nil }) {
            ($0.value(forKey: "owner") as? ManagedObject)?.objectID.uriString ?? ""
        }
        #expect(owners == Set(byOwner.filter { plates($0.value) > 1000 }.keys))
        #expect(!owners.isEmpty)
    }

    @Test func propertiesGiveAttributesKeyPathsAndToOnesAsURIs() throws {
        let rows = try jsonRows(["--properties", "numberPlate,owner,owner.lastName", "--where", "owner != nil", "--sort", "numberPlate"])
        let expected = cars.filter { $0.value(forKey: "owner") != nil }.sorted { (string($0, "numberPlate") ?? "") < (string($1, "numberPlate") ?? "") }
        #expect(rows.count == expected.count)
        for (row, car) in zip(rows, expected) {
            #expect(row["numberPlate"] as? String == string(car, "numberPlate"))
            #expect(row["owner"] as? String == (car.value(forKey: "owner") as? ManagedObject)?.objectID.uriString)
            #expect(row["owner.lastName"] as? String == string(car, "owner.lastName"))
        }
    }

    @Test func distinctMakersAsText() throws {
        let lines = try fetch(["--properties", "maker", "--distinct", "--sort", "maker"]).stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "maker")
        #expect(Array(lines.dropFirst()) == Set(cars.compactMap { string($0, "maker") }).sorted())
    }

    @Test func countsObjectsAndRows() throws {
        let count = try fetch(["--count", "--where", "maker == %@", "FIAT"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(count) == cars.filter { string($0, "maker") == "FIAT" }.count)
        let groups = try fetch(["--properties", "maker", "--distinct", "--count"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(groups) == Set(cars.compactMap { string($0, "maker") }).count)
    }

    /// Runs the fetch with `LIMELIGHT_SQL_DEBUG=1` set for the child only; returns its stdout and
    /// the SQL it logged.
    func fetchLoggingSQL(_ arguments: [String]) throws -> (stdout: String, sql: [String]) {
        let result = try harness.run("limelight", ["fetch", store.path, "--model", model.path, "--entity", "Car"] + arguments,
                                     extraEnvironment: ["LIMELIGHT_SQL_DEBUG": "1"])
        let sql = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("sql: ") }
        return (result.stdout, sql)
    }

    @Test func groupsAndAggregatesAreComputedBySQLite() throws {
        let run = try fetchLoggingSQL(["--properties", "owner,count:self,max:numberPlate", "--group-by", "owner", "--having", "count_all > 1",
                                       "--sort", "count_all:desc"])
        let select = try #require(run.sql.last)
        #expect(select.contains("count(*)") && select.contains("max(t0.ZNUMBERPLATE)"))
        #expect(select.contains("GROUP BY t0.ZOWNER HAVING count(*) > ?") && select.contains("ORDER BY c1_0 DESC"))
        #expect(run.stdout.split(separator: "\n").first == "owner\tcount_all\tmax_numberPlate")
    }

    @Test func selfGivesEachObjectsURI() throws {
        let rows = try jsonRows(["--properties", "self,numberPlate", "--sort", "numberPlate:desc", "--limit", "5"])
        let expected = cars.sorted { (string($0, "numberPlate") ?? "") > (string($1, "numberPlate") ?? "") }.prefix(5)
        #expect(rows.map { $0["self"] as? String } == expected.map(\.objectID.uriString))
    }

    @Test func groupingWithoutTheFetchedColumnIsRefusedByName() throws {
        let result = try fetch(["--properties", "maker,model", "--group-by", "maker"], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("'model' of entity Car"))
    }
}
