import Foundation
import Testing
@testable import LimelightData

/// The store Core Data wrote with version 1 of the sample model, migrated to versions 2 and 3:
/// everything both versions have reads back as the original file holds it.
@Suite struct MigrationFixtureTests {
    static var bundle: URL { CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel.xcdatamodeld") }
    let raw = CoreDataFixtureTests()

    /// A copy of the fixture store (never the fixture itself) and its rows as sqlite3 sees them.
    func copyFixture(_ folder: TemporaryFolder) throws -> (url: URL, cars: [[String]], people: [[String]]) {
        let url = folder.file("Cars.sqlite")
        try FileManager.default.copyItem(at: CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: url)
        let cars = try raw.rawRows(url, """
            SELECT Z_PK, Z_ENT, Z_OPT, ifnull(ZMAKER, ''), ifnull(ZMODEL, ''), ZNUMBERPLATE, ifnull(ZOWNER, ''), ifnull(ZISLIMITEDEDITION, ''),
                   ifnull(ZMARKEDFORDELETIONASOF, '')
            FROM ZCAR ORDER BY Z_PK
            """)
        let people = try raw.rawRows(url, "SELECT Z_PK, Z_OPT, ZFIRSTNAME, ZLASTNAME, ZUPDATEDAT FROM ZPERSON ORDER BY Z_PK")
        return (url, cars, people)
    }

    func versions() throws -> [String: ManagedObjectModel] {
        Dictionary(uniqueKeysWithValues: try ManagedObjectModel.loadVersions(inBundle: Self.bundle).map { ($0.name, $0.model) })
    }

    func open(_ url: URL, version: String, migrating: Bool = true) throws -> ManagedObjectContext {
        let all = try versions()
        let model = try #require(all[version])
        var options: [String: any Sendable] = [:]
        if migrating {
            options[StoreOption.migratePersistentStoresAutomatically] = true
            options[StoreOption.inferMappingModelAutomatically] = true
            options[StoreOption.migrationSourceModels] = Array(all.values)
        }
        return try TestStack.context(model: model, at: url, options: options)
    }

    func close(_ context: ManagedObjectContext) throws {
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { coordinator.remove(store) }
    }

    /// Checks every car and person against the rows read before the migration.
    func expectSameObjects(_ context: ManagedObjectContext, cars: [[String]], people: [[String]], hasMaker: Bool) throws {
        let entityNames = ["1": "Car", "2": "SportCar", "3": "LuxuryCar"]
        let fetchedCars = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
        #expect(fetchedCars.count == cars.count)
        let byKey = Dictionary(uniqueKeysWithValues: fetchedCars.map { ($0.objectID.primaryKey ?? 0, $0) })
        for row in cars {
            let car = try #require(byKey[Int64(row[0]) ?? 0])
            #expect(car.entity.name == entityNames[row[1]])
            #expect(car.value(forKey: "model") as? String == row[4])
            #expect(car.value(forKey: "numberPlate") as? String == row[5])
            #expect((car.value(forKey: "owner") as? ManagedObject)?.objectID.primaryKey.map(String.init) ?? "" == row[6])
            if hasMaker { #expect(car.value(forKey: "maker") as? String == row[3]) }
            let marked = (car.value(forKey: "markedForDeletionAsOf") as? Date)?.timeIntervalSinceReferenceDate
            if let expected = Double(row[8]) {
                #expect(abs((marked ?? .nan) - expected) < 0.001)
            } else {
                #expect(marked == nil)
            }
            if car.entity.name == "LuxuryCar" { #expect(car.value(forKey: "isLimitedEdition") as? Bool == (row[7] == "1")) }
        }
        let fetchedPeople = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        #expect(fetchedPeople.count == people.count)
        for row in people {
            let person = try #require(fetchedPeople.first { $0.objectID.primaryKey == Int64(row[0]) })
            #expect(person.value(forKey: "firstName") as? String == row[2])
            #expect(person.value(forKey: "lastName") as? String == row[3])
            let date = try #require(person.value(forKey: "updatedAt") as? Date)
            #expect(abs(date.timeIntervalSinceReferenceDate - (Double(row[4]) ?? 0)) < 0.001)
            let owned = cars.filter { $0[6] == row[0] }.map { Int64($0[0]) ?? 0 }
            let related = (person.value(forKey: "cars") as? Set<ManagedObject>) ?? []
            #expect(Set(related.compactMap(\.objectID.primaryKey)) == Set(owned))
        }
    }

    @Test func version1MigratesToVersion2() throws {
        let folder = try TemporaryFolder()
        let (url, cars, people) = try copyFixture(folder)
        let context = try open(url, version: "SampleModel2")
        try expectSameObjects(context, cars: cars, people: people, hasMaker: true)
        // Primary keys, Z_OPT and the store UUID survive; the renamed entity keeps its number.
        #expect(try raw.rawRows(url, "SELECT Z_PK, Z_ENT, Z_OPT FROM ZCAR ORDER BY Z_PK") == cars.map { Array($0[0...2]) })
        #expect(try raw.rawRows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                == [["1", "Car", "0", "125"], ["2", "SportCar", "1", "0"], ["3", "LuxuryCar", "2", "0"], ["4", "Person", "0", "20"]])
        #expect(try raw.rawRows(url, "SELECT Z_UUID FROM Z_METADATA") == [["753753D3-A961-4901-AB05-8CC48B1D3853"]])
        let columns = try raw.rawRows(url, "SELECT name FROM pragma_table_info('ZCAR') UNION ALL SELECT name FROM pragma_table_info('ZPERSON')").map { $0[0] }
        #expect(!columns.contains("ZCOLOR") && !columns.contains("ZID") && columns.contains("ZMAKER"))
        #expect(try raw.rawRows(url, "SELECT sql FROM sqlite_master WHERE name = 'Z_Car_byMakerAndNumberPlate'").count == 1)
        #expect(try raw.rawRows(url, "PRAGMA integrity_check") == [["ok"]])

        let car = try context.insertNewObject(forEntityName: "LuxuryCar")
        car.setValue("LIME-2", forKey: "numberPlate")
        car.setValue(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first, forKey: "owner")
        try context.save()
        #expect(car.objectID.primaryKey == 126)
        #expect(car.value(forKey: "isLimitedEdition") as? Bool == false)

        let model = try #require(try versions()["SampleModel2"])
        #expect(try !MigrationManager.storeNeedsMigration(at: url, for: model))
        let reopened = try open(url, version: "SampleModel2", migrating: false)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "LuxuryCar")) == 6)
    }

    @Test func version1MigratesToVersion3DirectlyAndThroughVersion2() throws {
        for path in [["SampleModel2", "SampleModel3"], ["SampleModel3"]] {
            let folder = try TemporaryFolder()
            let (url, cars, people) = try copyFixture(folder)
            for version in path.dropLast() {
                // A store must be closed before it migrates again.
                let step = try open(url, version: version)
                try close(step)
            }
            let context = try open(url, version: "SampleModel3")
            try expectSameObjects(context, cars: cars, people: people, hasMaker: false)
            // Maker is new and sorts before Person, so Person is renumbered from 4 to 5.
            #expect(try raw.rawRows(url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                    == [["1", "Car"], ["2", "SportCar"], ["3", "LuxuryCar"], ["4", "Maker"], ["5", "Person"]])
            #expect(try raw.rawRows(url, "SELECT DISTINCT Z_ENT FROM ZPERSON") == [["5"]])
            #expect(try raw.rawRows(url, "SELECT count(*) FROM ZCAR WHERE ZCREATEDBY IS NOT NULL") == [["0"]])
            #expect(try raw.rawRows(url, "SELECT name FROM sqlite_master WHERE name = 'Z_Maker_UNIQUE_name'").count == 1)
            #expect(try raw.rawRows(url, "SELECT count(*) FROM Z_1PREVIOUSOWNERS") == [["0"]])
            #expect(try raw.rawRows(url, "PRAGMA integrity_check") == [["ok"]])
            for car in try context.fetch(FetchRequest<ManagedObject>(entityName: "Car")) {
                #expect(car.value(forKey: "createdBy") == nil)
                #expect((car.value(forKey: "previousOwners") as? Set<ManagedObject>)?.isEmpty == true)
            }

            // The new entity, its to-many and the new many-to-many save and read back.
            let fiat = try context.insertNewObject(forEntityName: "Maker")
            fiat.setValue("FIAT", forKey: "name")
            let pandas = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car", predicate: try QueryPredicate(format: "model == 'Panda'")))
            for panda in pandas { panda.setValue(fiat, forKey: "createdBy") }
            let sold = try #require(pandas.first)
            let formerOwners = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).prefix(3)
            for person in formerOwners { sold.mutableSetValue(forKey: "previousOwners").insert(person) }
            try context.save()

            let reopened = try open(url, version: "SampleModel3", migrating: false)
            let maker = try #require(try reopened.fetch(FetchRequest<ManagedObject>(entityName: "Maker")).first)
            #expect((maker.value(forKey: "cars") as? Set<ManagedObject>)?.count == pandas.count)
            let id = try #require(reopened.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: sold.objectID.uriRepresentation()))
            let car = try reopened.existingObject(with: id)
            let previous = (car.value(forKey: "previousOwners") as? Set<ManagedObject>) ?? []
            #expect(Set(previous.compactMap(\.objectID.primaryKey)) == Set(formerOwners.compactMap(\.objectID.primaryKey)))
            #expect(try raw.rawRows(url, "SELECT count(*) FROM Z_1PREVIOUSOWNERS") == [["3"]])
        }
    }

    @Test func theInferredMappingNamesEveryChange() throws {
        let all = try versions()
        let mapping = try MappingModel(inferringFrom: try #require(all["SampleModel"]), to: try #require(all["SampleModel3"]))
        #expect(mapping.unmappableChanges.isEmpty)
        let luxury = try #require(mapping.mapping(forDestination: "LuxuryCar"))
        #expect(luxury.kind == .rename && luxury.sourceEntityName == "ExpensiveSportCar")
        #expect(mapping.mapping(forDestination: "Maker")?.kind == .add)
        let car = try #require(mapping.mapping(forDestination: "Car"))
        #expect(Set(car.propertyMappings.filter { $0.kind == .remove }.compactMap(\.sourceName)) == ["color", "maker"])
        #expect(Set(car.propertyMappings.filter { $0.kind == .add }.compactMap(\.destinationName)) == ["createdBy", "previousOwners"])
        #expect(mapping.mapping(forDestination: "Person")?.propertyMappings.contains { $0.kind == .remove && $0.sourceName == "id" } == true)
        #expect(mapping.description.contains("ExpensiveSportCar -> LuxuryCar (renamed)"))
    }

    @Test func withoutVersionIdentifiersTheVersionWhoseTablesFitIsTheSource() throws {
        let folder = try TemporaryFolder()
        let (url, _, _) = try copyFixture(folder)
        let all = try versions()
        let context = try TestStack.context(model: try #require(all["SampleModel"]), at: url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        var metadata = store.metadata
        metadata["NSStoreModelVersionIdentifiers"] = nil
        try store.setMetadata(metadata)
        try close(context)
        let source = try MigrationManager.sourceModel(forStoreAt: url, among: [all["SampleModel3"], all["SampleModel2"], all["SampleModel"]].compactMap { $0 })
        #expect(source === all["SampleModel"])
    }

    @Test func withoutTheMigrationOptionsTheOldStoreIsRefused() throws {
        let folder = try TemporaryFolder()
        let (url, _, _) = try copyFixture(folder)
        let before = try Data(contentsOf: url)
        #expect(throws: PersistenceError.self) { try open(url, version: "SampleModel3", migrating: false) }
        let all = try versions()
        let model = try #require(all["SampleModel3"])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        #expect(throws: MigrationError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [
                StoreOption.migratePersistentStoresAutomatically: true, StoreOption.migrationSourceModels: Array(all.values),
            ])
        }
        #expect(try Data(contentsOf: url) == before)
    }
}
