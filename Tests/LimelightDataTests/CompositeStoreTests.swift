import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// Composite attributes in stores: flattened into a column per element in SQLite, saved and read
/// back from disk, queried and sorted by element in SQL as in memory, fetched as dictionaries,
/// batch-updated and batch-inserted; kept as nested attributes in the XML store.
@Suite struct CompositeStoreTests {
    @Test func sqliteKeepsAColumnPerElementAndReadsTheDictionariesBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let writer = try TestStack.context(model: try QuakeModel.make(), at: url)
        try writer.performAndWait { try QuakeModel.fill(writer) }

        // The table, as SQLite reports it: the elements' columns, of their types' column types.
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        var columns: [String: String] = [:]
        try db.query("SELECT name, type FROM pragma_table_info('ZQUAKE')") { row in
            columns[String(cString: sqlite3_column_text(row, 0))] = String(cString: sqlite3_column_text(row, 1))
        }
        #expect(columns == ["Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER", "ZCODE": "VARCHAR",
                            "ZMAGNITUDE_RICHTER": "FLOAT", "ZMAGNITUDE_SCALE": "VARCHAR", "ZLOCATION_PLACE": "VARCHAR",
                            "ZLOCATION_COORDINATE_LATITUDE": "FLOAT", "ZLOCATION_COORDINATE_LONGITUDE": "FLOAT"])
        var rows: [String] = []
        try db.query("SELECT ZCODE, ZMAGNITUDE_RICHTER, ZMAGNITUDE_SCALE, ZLOCATION_COORDINATE_LATITUDE FROM ZQUAKE ORDER BY ZCODE") { row in
            rows.append((0..<4).map { SQLiteValue(statement: row, column: $0).description }.joined(separator: " "))
        }
        #expect(rows.count == 4 && rows[1].contains("4.6") && rows[1].contains("ML") && rows[1].contains("35.77"))

        // Another coordinator on the file reads the dictionaries back; a composite none of whose
        // elements has a value (optional) reads as nil.
        let reader = try TestStack.context(model: try QuakeModel.make(), at: url)
        let values: [String: (Any?, Any?)] = try reader.performAndWait {
            let quakes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake"))
            return Dictionary(uniqueKeysWithValues: quakes.map { ($0.value(forKey: "code") as? String ?? "", ($0.value(forKey: "magnitude"), $0.value(forKey: "location"))) })
        }
        #expect(values["ci1"]?.0 as? [String: AnyHashable] == ["richter": 4.6, "scale": "ML"])
        #expect(QuakeModel.text(values["ci1"]?.1) == "[coordinate: [latitude: 35.77, longitude: -117.6], place: Ridgecrest]")
        #expect(QuakeModel.text(values["ak2"]?.1) == "[coordinate: [latitude: 61.2], place: Anchorage]")
        #expect(values["nc3"]?.0 as? [String: Double] == ["richter": 2.9])
        #expect(values["nc3"]?.1 as? [String: String] == ["place": "Petrolia"])
        #expect(values["us4"]?.0 == nil && values["us4"]?.1 == nil)
    }

    /// The same questions asked of an SQLite store (answered in SQL) and of the in-memory store
    /// (answered by evaluating objects) give the same answers.
    @Test func predicatesAndSortsOnElementsAgreeInSQLAndInMemory() throws {
        let folder = try TemporaryFolder()
        let sqlite = try TestStack.context(model: try QuakeModel.make(), at: folder.file("quakes.sqlite"))
        let memory = try TestStack.context(model: try QuakeModel.make(), at: nil)
        try sqlite.performAndWait { try QuakeModel.fill(sqlite) }
        try memory.performAndWait { try QuakeModel.fill(memory) }
        let questions: [(String?, [(String, Bool)], [String])] = [
            ("magnitude.richter > 4.5", [("code", true)], ["ak2", "ci1"]),
            ("magnitude.richter BETWEEN {2, 5}", [("magnitude.richter", false)], ["ci1", "nc3"]),
            ("magnitude.scale == nil", [("code", true)], ["nc3", "us4"]),
            ("location.coordinate.latitude > 40", [("code", true)], ["ak2"]),
            ("location.place BEGINSWITH[c] 'r' OR location.coordinate.longitude < -100", [("code", true)], ["ci1"]),
            ("magnitude == nil", [("code", true)], ["us4"]),
            ("location.coordinate != nil", [("code", true)], ["ak2", "ci1"]),
            ("ANY reports.title CONTAINS 'check'", [("code", true)], ["ak2"]),
            (nil, [("magnitude.richter", false), ("code", true)], ["ak2", "ci1", "nc3", "us4"]),
            (nil, [("location.coordinate.latitude", true), ("code", true)], ["nc3", "us4", "ci1", "ak2"]),
        ]
        for (format, sort, expected) in questions {
            let fromSQL = try sqlite.performAndWait { try QuakeModel.codes(sqlite, format, sortedBy: sort) }
            let fromMemory = try memory.performAndWait { try QuakeModel.codes(memory, format, sortedBy: sort) }
            #expect(fromSQL == expected, "\(format ?? "all") sorted by \(sort)")
            #expect(fromMemory == expected, "\(format ?? "all") sorted by \(sort), in memory")
        }
        // Through a to-one: a report's quake's element.
        for context in [sqlite, memory] {
            let titles = try context.performAndWait {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Report", predicate: try QueryPredicate(format: "quake.magnitude.richter > 5"),
                                                              sortDescriptors: [QuerySortDescriptor(key: "quake.magnitude.richter")]))
                    .compactMap { $0.value(forKey: "title") as? String }
            }
            #expect(titles == ["Pipeline check"])
        }
        // An element the composite does not have is an error naming it; so is sorting by a
        // composite, a dictionary, on any store.
        for context in [sqlite, memory] {
            #expect { try context.performAndWait { try QuakeModel.codes(context, "magnitude.depth > 1") } } throws: {
                "\($0)".contains("the composite attribute Quake.magnitude has no element 'depth'")
            }
            #expect { try context.performAndWait { try QuakeModel.codes(context, sortedBy: [("location.coordinate", true)]) } } throws: {
                "\($0)".contains("sorts by the composite 'location.coordinate', a dictionary; sort by one of its elements")
            }
            #expect { try context.performAndWait { try QuakeModel.codes(context, sortedBy: [("magnitude.depth", true)]) } } throws: {
                "\($0)".contains("the composite attribute Quake.magnitude has no element 'depth'")
            }
        }
    }

    @Test func dictionaryFetchesGiveCompositesAndElements() throws {
        let folder = try TemporaryFolder()
        let sqlite = try TestStack.context(model: try QuakeModel.make(), at: folder.file("quakes.sqlite"))
        let memory = try TestStack.context(model: try QuakeModel.make(), at: nil)
        try sqlite.performAndWait { try QuakeModel.fill(sqlite) }
        try memory.performAndWait { try QuakeModel.fill(memory) }
        let request = FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "magnitude != nil"),
                                                  sortDescriptors: [QuerySortDescriptor(key: "magnitude.richter", ascending: false)])
        request.propertiesToFetch = ["code", "magnitude", "magnitude.richter", "location.coordinate"]
        let reports = FetchRequest<ManagedObject>(entityName: "Report", sortDescriptors: [QuerySortDescriptor(key: "title")])
        reports.propertiesToFetch = ["title", "quake.magnitude.scale", "quake.location"]
        for context in [sqlite, memory] {
            let rows = try context.performAndWait { try context.fetchDictionaries(request) }
            #expect(rows.map { $0["code"] as? String } == ["ak2", "ci1", "nc3"])
            #expect(rows.map { $0["magnitude.richter"] as? Double } == [6.1, 4.6, 2.9])
            #expect(rows.first?["magnitude"] as? [String: AnyHashable] == ["richter": 6.1, "scale": "Mw"])
            #expect(rows.first?["location.coordinate"] as? [String: Double] == ["latitude": 61.2])
            #expect(rows.last?["location.coordinate"] == nil)
            let reportRows = try context.performAndWait { try context.fetchDictionaries(reports) }
            #expect(reportRows.map { $0["quake.magnitude.scale"] as? String } == ["ML", "Mw"])
            #expect((reportRows.first?["quake.location"] as? [String: Any])?["place"] as? String == "Ridgecrest")
        }
        let bad = FetchRequest<ManagedObject>(entityName: "Quake")
        bad.propertiesToFetch = ["magnitude.depth"]
        #expect { try sqlite.performAndWait { try sqlite.fetchDictionaries(bad) } } throws: {
            "\($0)".contains("the composite attribute Quake.magnitude has no element 'depth'")
        }
    }

    @Test func batchUpdatesAndInsertsSetElements() throws {
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: try QuakeModel.make(), at: folder.file("quakes.sqlite"))
        try context.performAndWait {
            try QuakeModel.fill(context)
            let update = BatchUpdateRequest(entityName: "Quake")
            update.predicate = try QueryPredicate(format: "magnitude.richter < 5")
            update.propertiesToUpdate = ["magnitude.scale": "Md", "location": ["place": "Somewhere", "coordinate": ["latitude": 1]]]
            #expect(try context.execute(update).count == 2)
            #expect(try QuakeModel.codes(context, "magnitude.scale == 'Md' AND location.place == 'Somewhere' AND location.coordinate.latitude == 1.0") == ["ci1", "nc3"])
            // The rest of each composite is as it was (ci1's Richter value) or cleared (location as a whole).
            #expect(try QuakeModel.codes(context, "magnitude.richter == 4.6 AND location.coordinate.longitude == nil") == ["ci1"])
            for (values, says) in [(["magnitude.depth": 1] as [String: Any], "'magnitude.depth' names no element of the composite magnitude"),
                                   (["magnitude.richter": "big"], "'magnitude.richter' takes Double, not String"),
                                   (["location": ["coordinate": ["altitude": 3]]], "coordinate.altitude: the composite coordinate has no element 'altitude'")] {
                let bad = BatchUpdateRequest(entityName: "Quake")
                bad.propertiesToUpdate = values
                #expect { try context.execute(bad) } throws: { "\($0)".contains(says) }
            }

            let insert = BatchInsertRequest(entityName: "Quake", objects: [
                ["code": "bulk1", "magnitude": ["richter": 3, "scale": "ML"]],
                ["code": "bulk2", "location": ["coordinate": ["latitude": -33.9, "longitude": 151.2]]],
            ])
            _ = try context.execute(insert)
            #expect(try QuakeModel.codes(context, "code BEGINSWITH 'bulk' AND (magnitude.richter == 3 OR location.coordinate.longitude > 150)") == ["bulk1", "bulk2"])
            let wrong = BatchInsertRequest(entityName: "Quake", objects: [["code": "bad", "magnitude": ["richter": "big"]]])
            #expect { try context.execute(wrong) } throws: {
                "\($0)".contains("batch insert into Quake, object 0: 'magnitude.richter': expected Double, got String big")
            }
        }
    }

    @Test func theXMLStoreKeepsCompositesAsNestedAttributes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("quakes.xml")
        func open() throws -> ManagedObjectContext {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: try QuakeModel.make())
            try coordinator.addPersistentStore(type: .xml, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let writer = try open()
        try writer.performAndWait { try QuakeModel.fill(writer) }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(#"<attribute name="location" type="composite">"#))
        #expect(text.contains(#"<attribute name="latitude" type="double">35.77</attribute>"#))
        let reader = try open()
        let read = try reader.performAndWait { () throws -> [String] in
            try QuakeModel.codes(reader, "location.coordinate.latitude > 30", sortedBy: [("magnitude.richter", true)])
        }
        #expect(read == ["ci1", "ak2"])
        let location = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ci1'"))).first?.value(forKey: "location")
        }
        #expect(QuakeModel.text(location) == "[coordinate: [latitude: 35.77, longitude: -117.6], place: Ridgecrest]")
        // An element the model does not have is refused with its line.
        try text.replacingOccurrences(of: #"<attribute name="place""#, with: #"<attribute name="town""#).write(to: url, atomically: true, encoding: .utf8)
        #expect { try open() } throws: { "\($0)".contains("the composite location has no element 'town'") && "\($0)".contains("line ") }
    }
}
