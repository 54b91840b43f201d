import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// A store written by Core Data itself opens here and reads back exactly as the file holds it.
@Suite struct CoreDataFixtureTests {
    static var fixtures: URL {
        // Tests/LimelightDataTests/<file> → Tests/Fixtures/coredata
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/coredata/SampleModel")
    }

    /// The `Z_METADATA` blob of the store Core Data wrote, read with SQLite's C API alone.
    static func metadataBlob() throws -> Data {
        let store = fixtures.appendingPathComponent("SampleModel_V1.sqlite")
        var db: OpaquePointer?
        guard sqlite3_open_v2(store.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw PersistenceError.store(path: store.path, reason: "open") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT Z_PLIST FROM Z_METADATA", -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW,
              let bytes = sqlite3_column_blob(statement, 0) else { throw PersistenceError.store(path: store.path, reason: "no metadata") }
        defer { sqlite3_finalize(statement) }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
    }

    func openCopy(_ folder: TemporaryFolder) throws -> (ManagedObjectContext, URL) {
        let copy = folder.file("SampleModel_V1.sqlite")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: copy)
        let model = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (context, copy)
    }

    /// Rows as sqlite3 sees them, the reference the framework must agree with.
    func rawRows(_ path: URL, _ sql: String) throws -> [[String]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw PersistenceError.store(path: path.path, reason: "open") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw PersistenceError.store(path: path.path, reason: "prepare") }
        defer { sqlite3_finalize(statement) }
        var rows: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { sqlite3_column_text(statement, $0).map { String(cString: $0) } ?? "" })
        }
        return rows
    }

    @Test func everyObjectReadsBackAsTheFileHoldsIt() throws {
        let folder = try TemporaryFolder()
        let (context, url) = try openCopy(folder)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(store.identifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(store.metadata["NSStoreType"] as? String == "SQLite")

        let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [QuerySortDescriptor(key: "lastName")]))
        let expectedPeople = try rawRows(url, "SELECT ZFIRSTNAME, ZLASTNAME, Z_PK, ZUPDATEDAT FROM ZPERSON ORDER BY ZLASTNAME")
        #expect(people.count == expectedPeople.count)
        for (person, row) in zip(people, expectedPeople) {
            #expect(person.value(forKey: "firstName") as? String == row[0])
            #expect(person.value(forKey: "lastName") as? String == row[1])
            #expect(person.objectID.primaryKey == Int64(row[2]))
            let date = try #require(person.value(forKey: "updatedAt") as? Date)
            #expect(abs(date.timeIntervalSinceReferenceDate - (Double(row[3]) ?? 0)) < 0.001)
            #expect(person.value(forKey: "id") is UUID)
        }

        let cars = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
        #expect(cars.count == 125)
        let byEntity = Dictionary(grouping: cars, by: { $0.entity.name }).mapValues(\.count)
        #expect(byEntity == ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5])
        let sportOnly = FetchRequest<ManagedObject>(entityName: "SportCar")
        sportOnly.includesSubentities = false
        #expect(try context.count(for: sportOnly) == 5)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "SportCar")) == 10)

        let expectedOwners = try rawRows(url, "SELECT c.Z_PK, c.ZNUMBERPLATE, c.ZMAKER, ifnull(c.ZOWNER, '') FROM ZCAR c ORDER BY c.Z_PK")
        let carsByKey = Dictionary(uniqueKeysWithValues: cars.map { ($0.objectID.primaryKey ?? 0, $0) })
        for row in expectedOwners {
            let car = try #require(carsByKey[Int64(row[0]) ?? 0])
            #expect(car.value(forKey: "numberPlate") as? String == row[1])
            #expect(car.value(forKey: "maker") as? String == (row[2].isEmpty ? nil : row[2]))
            let owner = car.value(forKey: "owner") as? ManagedObject
            #expect(owner?.objectID.primaryKey.map(String.init) ?? "" == row[3])
        }
        let expectedCounts = try rawRows(url, "SELECT p.Z_PK, (SELECT count(*) FROM ZCAR c WHERE c.ZOWNER = p.Z_PK) FROM ZPERSON p")
        for row in expectedCounts {
            let person = try #require(people.first { $0.objectID.primaryKey == Int64(row[0]) })
            #expect((person.value(forKey: "cars") as? Set<ManagedObject>)?.count == Int(row[1]))
        }
    }

    @Test func aSaveIntoACopyKeepsItConsistent() throws {
        let folder = try TemporaryFolder()
        let (context, url) = try openCopy(folder)
        let person = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first)
        let car = try context.insertNewObject(forEntityName: "SportCar")
        car.setValue("LIME-1", forKey: "numberPlate")
        car.setValue("Limelight", forKey: "maker")
        car.setValue(person, forKey: "owner")
        person.setValue("Renamed", forKey: "firstName")
        try context.save()
        #expect(car.objectID.primaryKey == 126)
        #expect(try rawRows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car'") == [["126"]])
        #expect(try rawRows(url, "SELECT Z_ENT, Z_OPT, ZOWNER FROM ZCAR WHERE Z_PK = 126") == [["2", "1", String(person.objectID.primaryKey ?? 0)]])
        #expect(try rawRows(url, "SELECT Z_OPT FROM ZPERSON WHERE Z_PK = \(person.objectID.primaryKey ?? 0)") == [["2"]])
        #expect(try rawRows(url, "PRAGMA integrity_check") == [["ok"]])
    }

    @Test func aModelThatDoesNotFitIsRefusedWithTheDifferences() throws {
        let folder = try TemporaryFolder()
        let copy = folder.file("store.sqlite")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("SampleModel_V1.sqlite"), to: copy)
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Car", properties: [AttributeDescription(name: "wheels", type: .integer16)]),
            EntityDescription(name: "Person", properties: [AttributeDescription(name: "firstName", type: .string)]),
            EntityDescription(name: "Garage", properties: []),
        ])
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: copy)
            Issue.record("an unfitting model opened the store")
        } catch PersistenceError.incompatibleModel(_, let differences) {
            #expect(differences.contains { $0.contains("Garage") })
        }
    }

    @Test func filesThatAreNotStoresGiveClearErrors() throws {
        let folder = try TemporaryFolder()
        let text = folder.file("notes.sqlite")
        try Data("just some text, not a database".utf8).write(to: text)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        #expect { try coordinator.addPersistentStore(type: .sqlite, at: text) } throws: { "\($0)".contains("not an SQLite database") }

        let truncated = folder.file("truncated.sqlite")
        let original = try Data(contentsOf: Self.fixtures.appendingPathComponent("SampleModel_V1.sqlite"))
        try original.prefix(5000).write(to: truncated)
        let model = try ManagedObjectModel(contentsOf: Self.fixtures.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        let second = try PersistentStoreCoordinator(managedObjectModel: model)
        #expect(throws: PersistenceError.self) {
            try second.addPersistentStore(type: .sqlite, at: truncated, options: [StoreOption.readOnly: true])
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = second
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Car"))
        }
        #expect(try Data(contentsOf: truncated) == original.prefix(5000))
    }
}
