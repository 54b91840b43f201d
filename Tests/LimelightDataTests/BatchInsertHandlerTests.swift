import Foundation
import Testing
@testable import LimelightData

/// The class of the handler tests' `Reading` entity: a managed-object handler sets these.
final class BatchReading: ManagedObject {
    @Managed var serial: Int64
    @Managed var celsius: Double
    @Managed var label: String?
    @Managed var flag: Bool
}

/// Batch inserts whose objects come from a handler, one per call: what each form writes, when it
/// stops, and that it writes as it goes, in one transaction.
@Suite struct BatchInsertHandlerTests {
    /// Reading (class `BatchReading`): `serial` required without a default, `label` defaulting to
    /// "none". Station: unique by `code`.
    static func model() -> ManagedObjectModel {
        let reading = EntityDescription(name: "Reading", properties: [
            AttributeDescription(name: "serial", type: .integer64, isOptional: false),
            AttributeDescription(name: "celsius", type: .double),
            AttributeDescription(name: "label", type: .string, defaultValue: "none"),
            AttributeDescription(name: "flag", type: .boolean),
        ])
        reading.managedObjectClassName = "BatchReading"
        ManagedObjectClassRegistry.shared.register(BatchReading.self, as: "BatchReading")
        let station = EntityDescription(name: "Station", properties: [
            AttributeDescription(name: "code", type: .string),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "height", type: .integer32),
        ])
        station.uniquenessConstraints = [["code"]]
        return ManagedObjectModel(entities: [reading, station])
    }

    static func context(_ folder: TemporaryFolder, policy: MergePolicy = .error) throws -> ManagedObjectContext {
        let context = try TestStack.context(model: model(), at: folder.file("readings.sqlite"))
        context.mergePolicy = policy
        return context
    }

    /// Every reading in the store, by serial, as (serial, celsius, label, flag), read by a new context.
    static func readings(_ folder: TemporaryFolder) throws -> [[String]] {
        let reader = try context(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Reading", sortDescriptors: [QuerySortDescriptor(key: "serial")])
        return try reader.fetch(request).map { reading in
            ["serial", "celsius", "label", "flag"].map { key in reading.value(forKey: key).map { "\($0)" } ?? "-" }
        }
    }

    @Test func aDictionaryHandlerInsertsWhatItFillsUntilItSaysStop() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        var calls = 0
        var everyDictionaryEmpty = true
        let request = BatchInsertRequest(entityName: "Reading", dictionaryHandler: { dictionary in
            everyDictionaryEmpty = everyDictionaryEmpty && dictionary.isEmpty
            calls += 1
            // The dictionary of the call that says stop is not inserted.
            dictionary["serial"] = Int64(calls)
            guard calls <= 3 else { return true }
            // Numbers of another type are converted; a left-out label takes its default.
            dictionary["celsius"] = calls
            if calls == 2 { dictionary["label"] = "second" }
            return false
        })
        request.resultType = .objectIDs
        let result = try context.execute(request)
        #expect(calls == 4 && everyDictionaryEmpty)
        #expect(result.count == 3 && result.objectIDs?.count == 3 && result.objectIDs?.allSatisfy { !$0.isTemporaryID } == true)
        let stored = try Self.readings(folder)
        #expect(stored == [["1", "1.0", "none", "-"], ["2", "2.0", "second", "-"], ["3", "3.0", "none", "-"]])
    }

    @Test func anNSMutableDictionaryHandlerWorksAsCoreDataCodeWritesIt() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let rows: [[String: Any]] = [["serial": Int64(7), "label": "seven"], ["serial": 8, "flag": true]]
        var index = 0
        let request = BatchInsertRequest(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Reading"]),
                                         dictionaryHandler: { dictionary in
            guard index < rows.count else { return true }
            dictionary.addEntries(from: rows[index])
            index += 1
            return false
        })
        request.resultType = .count
        #expect(try context.execute(request).count == 2)
        #expect(try Self.readings(folder) == [["7", "-", "seven", "-"], ["8", "-", "none", "true"]])
    }

    @Test func aManagedObjectHandlerSetsTypedPropertiesOnOneObjectStartedAfreshEachCall() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        var seen: [ObjectIdentifier] = []
        var startedAfresh = true
        var serial: Int64 = 0
        let request = BatchInsertRequest(entityName: "Reading", managedObjectHandler: { object in
            guard let reading = object as? BatchReading else { return true }
            seen.append(ObjectIdentifier(reading))
            startedAfresh = startedAfresh && reading.label == "none" && reading.value(forKey: "celsius") == nil
                && reading.value(forKey: "flag") == nil && reading.managedObjectContext == nil
            serial += 1
            reading.serial = serial
            reading.label = "reading \(serial)"
            reading.celsius = Double(serial) / 2
            reading.flag = serial.isMultiple(of: 2)
            return serial > 3
        })
        #expect(try context.execute(request).count == 3)
        #expect(Set(seen).count == 1 && seen.count == 4 && startedAfresh)
        #expect(try Self.readings(folder) == [["1", "0.5", "reading 1", "false"], ["2", "1.0", "reading 2", "true"], ["3", "1.5", "reading 3", "false"]])
    }

    @Test func aHandlerThatStopsAtOnceInsertsNothing() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let requests = [BatchInsertRequest(entityName: "Reading", dictionaryHandler: { _ in true }),
                        BatchInsertRequest(entityName: "Reading", managedObjectHandler: { _ in true }),
                        BatchInsertRequest(entityName: "Reading", objects: []),
                        BatchInsertRequest(entityName: "Station", dictionaryHandler: { _ in true })]
        for request in requests {
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.count == 0 && result.objectIDs == [])
        }
        #expect(try Self.readings(folder).isEmpty)
    }

    @Test func aMissingRequiredValueRefusesTheRequestNamingTheObject() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        var count = 0
        let dictionaries = BatchInsertRequest(entityName: "Reading", dictionaryHandler: { dictionary in
            count += 1
            if count != 4 { dictionary["serial"] = count }
            return count > 10
        })
        #expect { try context.execute(dictionaries) } throws: { "\($0)".contains("object 3: 'serial' is required") }
        var objects = 0
        let managed = BatchInsertRequest(entityName: "Reading", managedObjectHandler: { object in
            objects += 1
            if objects != 6, let reading = object as? BatchReading { reading.serial = Int64(objects) }
            return objects > 10
        })
        #expect { try context.execute(managed) } throws: { "\($0)".contains("object 5: 'serial' is required") }
        // A value set by key that the attribute's type cannot take is refused too.
        let mistyped = BatchInsertRequest(entityName: "Reading", managedObjectHandler: { object in
            object.setValue("warm", forKey: "serial")
            return false
        })
        #expect { try context.execute(mistyped) } throws: { "\($0)".contains("object 0: String is no Integer 64 for 'serial'") }
        // Each request is one transaction: the objects before the refused one are not written.
        #expect(try Self.readings(folder).isEmpty)
    }

    @Test func aHandlerUpsertsByTheUniquenessConstraint() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder, policy: .mergeByPropertyObjectTrump)
        _ = try context.execute(BatchInsertRequest(entityName: "Station", objects: [["code": "ZRH", "name": "Zurich", "height": 408]]))
        let given: [[String: Any]] = [["code": "ZRH", "name": "Zürich"], ["code": "GVA", "name": "Geneva"], ["code": "GVA", "height": 375]]
        var index = 0
        let request = BatchInsertRequest(entityName: "Station", dictionaryHandler: { dictionary in
            guard index < given.count else { return true }
            dictionary = given[index]
            index += 1
            return false
        })
        request.resultType = .objectIDs
        #expect(try context.execute(request).objectIDs?.count == 2)
        var codes = ["BER", "ZRH"]
        let managed = BatchInsertRequest(entityName: "Station", managedObjectHandler: { object in
            guard let code = codes.popLast() else { return true }
            object.setValue(code, forKey: "code")
            object.setValue(code == "ZRH" ? 410 : 34, forKey: "height")
            return false
        })
        #expect(try context.execute(managed).count == 2)
        let reader = try Self.context(folder)
        let stations = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Station", sortDescriptors: [QuerySortDescriptor(key: "code")]))
        #expect(stations.map { station in ["code", "name", "height"].map { key in station.value(forKey: key).map { "\($0)" } ?? "-" } }
                == [["BER", "-", "34"], ["GVA", "Geneva", "375"], ["ZRH", "Zürich", "410"]])
    }

    @Test func markerFilesFollowAHandlersObjects() throws {
        let folder = try TemporaryFolder()
        let markers = MarkerTests()
        let context = try markers.open(folder.file("marked.sqlite"))
        var titles = ["Tacos", "Pesto"]
        _ = try context.execute(BatchInsertRequest(entityName: "Note", dictionaryHandler: { dictionary in
            guard let title = titles.popLast() else { return true }
            dictionary["title"] = title
            return false
        }))
        try markers.flush(context)
        #expect(try markers.markers(context).values.compactMap { $0.values["title"] as? String }.sorted() == ["Pesto", "Tacos"])
    }

    /// Rows go to the store as the handler makes them: halfway through, the first half is in the
    /// table already (read in the insert's own transaction), and nothing collects them all.
    @Test func aLargeInsertWritesAsItGoes() throws {
        let folder = try TemporaryFolder()
        let context = try Self.context(folder)
        let total: Int64 = 200_000
        var serial: Int64 = 0
        var storedHalfway = -1
        let request = BatchInsertRequest(entityName: "Reading", managedObjectHandler: { object in
            guard serial < total, let reading = object as? BatchReading else { return true }
            if serial == total / 2 {
                storedHalfway = (try? context.count(for: FetchRequest<ManagedObject>(entityName: "Reading"))) ?? -1
            }
            serial += 1
            reading.serial = serial
            reading.celsius = Double(serial % 40)
            return false
        })
        request.resultType = .count
        #expect(try context.execute(request).count == Int(total))
        #expect(storedHalfway == Int(total / 2))
        let reader = try Self.context(folder)
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Reading")) == Int(total))
        let last = FetchRequest<ManagedObject>(entityName: "Reading", predicate: try QueryPredicate(format: "serial == %@", total))
        #expect(try reader.fetch(last).map { $0.value(forKey: "celsius") as? Double } == [Double(total % 40)])
    }
}
