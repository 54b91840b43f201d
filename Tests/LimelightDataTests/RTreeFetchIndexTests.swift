import Foundation
import Testing
@testable import LimelightData

/// R-tree fetch indexes on real SQLite files: read from model XML and compiled models, made in new
/// stores as Core Data makes them (an R-tree virtual table and three triggers), kept by every
/// write, built in stores that lack them, carried through migrations, and refused where no store
/// could make them.
@Suite struct RTreeFetchIndexTests {
    static func xml(index: String = #"<fetchIndex name="byLocation"><fetchIndexElement property="latitude" type="RTree" order="ascending"/><fetchIndexElement property="longitude" type="RTree" order="ascending"/></fetchIndex>"#,
                    extra: String = "") -> String {
        """
        <model><entity name="Place" representedClassName="Place">\
        <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="NO"/>\
        <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="NO"/>\
        <attribute name="name" optional="YES" attributeType="String"/>\(extra)\(index)</entity></model>
        """
    }

    static func model(_ xml: String) throws -> ManagedObjectModel { try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Places.xcdatamodel") }

    static let places: [(String, Double, Double)] = [("Berlin", 52.52, 13.40), ("Paris", 48.86, 2.35), ("Oslo", 59.91, 10.75), ("Rome", 41.90, 12.50)]

    static func insertPlaces(_ context: ManagedObjectContext) throws {
        try context.performAndWait {
            for (name, latitude, longitude) in places {
                let place = try context.insertNewObject(forEntityName: "Place")
                place.setValue(name, forKey: "name")
                place.setValue(latitude, forKey: "latitude")
                place.setValue(longitude, forKey: "longitude")
            }
            try context.save()
        }
    }

    /// Names of the places whose point the R-tree finds in the box, read from the file.
    static func inBox(_ url: URL, latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) throws -> [String] {
        try sqliteQuery(url, """
            SELECT p.ZNAME FROM ZPLACE p JOIN Z_Place_byLocation r ON r.Z_PK = p.Z_PK
            WHERE r.ZLATITUDE_MAX >= \(latitudes.lowerBound) AND r.ZLATITUDE_MIN <= \(latitudes.upperBound)
            AND r.ZLONGITUDE_MAX >= \(longitudes.lowerBound) AND r.ZLONGITUDE_MIN <= \(longitudes.upperBound) ORDER BY p.ZNAME
            """)
    }

    @Test func theIndexKindIsReadAndWrittenInModelXMLAndCompiledModels() throws {
        let model = try Self.model(Self.xml())
        let index = try #require(model.entity(named: "Place")?.fetchIndexes.first)
        #expect(index.kind == .rTree && index.elements.map(\.property) == ["latitude", "longitude"])
        let written = try model.xmlData()
        #expect(String(decoding: written, as: UTF8.self).contains(#"<fetchIndexElement property="latitude" type="RTree" order="ascending"/>"#))
        let reread = try ManagedObjectModel(xmlData: written, source: "rewritten")
        #expect(reread.entity(named: "Place")?.fetchIndexes == [index])

        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(type: .sqlite, at: url)
        let cached = try ManagedObjectModel(cachedInStoreAt: url)
        #expect(cached.entity(named: "Place")?.fetchIndexes == [index], "the compiled model in the store's cache keeps the element type")
    }

    @Test func aNewStoreKeepsTheRTreeAsCoreDataDoesThroughInsertsUpdatesAndDeletes() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        let context = try TestStack.context(model: try Self.model(Self.xml()), at: url)
        try Self.insertPlaces(context)
        #expect(try sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE name = 'Z_Place_byLocation'")
                == ["CREATE VIRTUAL TABLE Z_Place_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX)"])
        #expect(try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
                == ["Z_Place_byLocation_DELETE", "Z_Place_byLocation_INSERT", "Z_Place_byLocation_UPDATE"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'Z_Place_byLocation'") == ["0"])
        // Central Europe: Berlin and Rome, not Paris (west) nor Oslo (north).
        #expect(try Self.inBox(url, latitudes: 40...55, longitudes: 12...15) == ["Berlin", "Rome"])

        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Place")
            for place in try context.fetch(request) {
                switch place.value(forKey: "name") as? String {
                case "Paris": place.setValue(13.0, forKey: "longitude")
                case "Rome": context.delete(place)
                default: break
                }
            }
            try context.save()
        }
        #expect(try Self.inBox(url, latitudes: 40...55, longitudes: 12...15) == ["Berlin", "Paris"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM Z_Place_byLocation") == ["3"])
    }

    /// A store made before R-tree indexes were known here has an ordinary index of that name; a
    /// store Core Data made in its older form declares the columns `FLOAT`. The first is rebuilt
    /// as an R-tree from the table when opened for writing; the second is left as it is.
    @Test func existingStoresGainTheRTreeOrKeepCoreDatasOwn() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        let binary = Self.xml().replacingOccurrences(of: #"type="RTree""#, with: #"type="Binary""#)
        try Self.insertPlaces(try TestStack.context(model: try Self.model(binary), at: url))
        #expect(try sqliteQuery(url, "SELECT type FROM sqlite_master WHERE name = 'Z_Place_byLocation'") == ["index"])

        _ = try TestStack.context(model: try Self.model(Self.xml()), at: url)
        #expect(try sqliteQuery(url, "SELECT type FROM sqlite_master WHERE name = 'Z_Place_byLocation'") == ["table"])
        #expect(try Self.inBox(url, latitudes: 40...55, longitudes: 12...15) == ["Berlin", "Rome"])

        let olderForm = folder.file("older.sqlite")
        try Self.insertPlaces(try TestStack.context(model: try Self.model(binary), at: olderForm))
        let db = try SQLiteConnection(path: olderForm.path, readOnly: false)
        let declared = "CREATE VIRTUAL TABLE Z_Place_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN FLOAT, ZLATITUDE_MAX FLOAT, ZLONGITUDE_MIN FLOAT, ZLONGITUDE_MAX FLOAT)"
        try db.execute("DROP INDEX Z_Place_byLocation")
        try db.execute(declared)
        let index = SQLiteRTreeIndex(name: "Z_Place_byLocation", table: "ZPLACE", columns: ["ZLATITUDE", "ZLONGITUDE"])
        for statement in index.creationSQL.dropFirst() + [index.fillSQL] { try db.execute(statement) }
        db.close()
        let context = try TestStack.context(model: try Self.model(Self.xml()), at: olderForm)
        #expect(try sqliteQuery(olderForm, "SELECT sql FROM sqlite_master WHERE name = 'Z_Place_byLocation'") == [declared])
        try context.performAndWait {
            let place = try context.insertNewObject(forEntityName: "Place")
            place.setValue("Vienna", forKey: "name")
            place.setValue(48.21, forKey: "latitude")
            place.setValue(16.37, forKey: "longitude")
            try context.save()
        }
        #expect(try Self.inBox(olderForm, latitudes: 45...50, longitudes: 15...17) == ["Vienna"])
    }

    @Test func migrationsMakeTheRTreeAnewAndFillIt() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        let unindexed = Self.xml(index: "")
        try Self.insertPlaces(try TestStack.context(model: try Self.model(unindexed), at: url))
        let options: ([String]) throws -> [String: any Sendable] = { sources in [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: try sources.map(Self.model),
        ] }
        // The index added: made and filled from the copied rows.
        _ = try TestStack.context(model: try Self.model(Self.xml()), at: url, options: try options([unindexed]))
        #expect(try Self.inBox(url, latitudes: 40...55, longitudes: 12...15) == ["Berlin", "Rome"])
        // A later version with the index kept: the old R-tree and SQLite's tables behind it are
        // not copied over the new one.
        let later = Self.xml(extra: #"<attribute name="country" optional="YES" attributeType="String"/>"#)
        _ = try TestStack.context(model: try Self.model(later), at: url, options: try options([unindexed, Self.xml()]))
        #expect(try Self.inBox(url, latitudes: 40...55, longitudes: 12...15) == ["Berlin", "Rome"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM Z_Place_byLocation") == ["4"])
        #expect(try sqliteQuery(url, "PRAGMA integrity_check") == ["ok"])
    }

    /// Core Data loads a model with an R-tree over a string; SQLite's R-tree holds 0 for such a
    /// value, so the store keeps it as Core Data does, and a query never narrows by it.
    @Test func anRTreeOverAStringLoadsAndNeverNarrowsAQuery() throws {
        let overName = #"<fetchIndex name="byName"><fetchIndexElement property="name" type="RTree" order="ascending"/></fetchIndex>"#
        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        let context = try TestStack.context(model: try Self.model(Self.xml(index: overName)), at: url)
        try Self.insertPlaces(context)
        #expect(try sqliteQuery(url, "SELECT count(*) FROM Z_Place_byName WHERE ZNAME_MIN = 0") == ["4"])
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        var statements: [String] = []
        store.statementObserver = { statements.append($0) }
        #expect(try RTreeIndexedPredicateTests.fetchNames(context, #"indexed:by:(name, "byName") >= "P""#) == ["Paris", "Rome"])
        #expect(!statements.contains { $0.contains("Z_Place_byName") })
    }

    @Test func anRTreeIndexThatNoStoreCouldMakeIsRefusedNamingTheIndexAndAttribute() throws {
        let overTransient = #"<fetchIndex name="byScratch"><fetchIndexElement property="scratch" type="RTree" order="ascending"/></fetchIndex>"#
        let transient = #"<attribute name="scratch" optional="YES" transient="YES" attributeType="Double" usesScalarValueType="NO"/>"#
        #expect {
            try Self.model(Self.xml(index: overTransient, extra: transient))
        } throws: { error in
            let error = error as? ModelError
            return error?.location.hasSuffix("Place.byScratch") == true && error?.reason.contains("'scratch', a transient attribute") == true
        }
        let missing = #"<fetchIndex name="byHeight"><fetchIndexElement property="height" type="RTree" order="ascending"/></fetchIndex>"#
        #expect {
            try Self.model(Self.xml(index: missing))
        } throws: { error in
            (error as? ModelError)?.reason.contains("names 'height', which is not an attribute of Place") == true
        }
        let mixed = #"<fetchIndex name="mixed"><fetchIndexElement property="latitude" type="RTree" order="ascending"/><fetchIndexElement property="name" type="Binary" order="ascending"/></fetchIndex>"#
        #expect {
            try Self.model(Self.xml(index: mixed))
        } throws: { error in
            (error as? ModelError)?.reason.contains("'mixed' mixes R-tree and binary elements") == true
        }
    }
}

/// `indexed:by:` names the R-tree in a predicate, as in Core Data: the store narrows the rows by
/// the R-tree and the attribute's own comparison decides, so the answer is what the plain
/// comparison gives, at the R-tree's rounded edges too, and in memory.
@Suite struct RTreeIndexedPredicateTests {
    static func fetchNames(_ context: ManagedObjectContext, _ format: String) throws -> [String] {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Place")
            request.predicate = try QueryPredicate(format: format)
            return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    @Test func indexedByNarrowsByTheRTreeAndAnswersAsThePlainComparison() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("places.sqlite")
        let context = try TestStack.context(model: try RTreeFetchIndexTests.model(RTreeFetchIndexTests.xml()), at: url)
        try RTreeFetchIndexTests.insertPlaces(context)
        try context.performAndWait {
            // Just past Berlin's latitude, within what a 32-bit float cannot tell apart, and one without a place.
            for (name, latitude) in [("Edge", 52.520000001), ("Nowhere", nil as Double?)] {
                let place = try context.insertNewObject(forEntityName: "Place")
                place.setValue(name, forKey: "name")
                place.setValue(latitude, forKey: "latitude")
                place.setValue(13.40, forKey: "longitude")
            }
            try context.save()
        }
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        var statements: [String] = []
        store.statementObserver = { statements.append($0) }

        let indexed = #"indexed:by:(latitude, "byLocation") BETWEEN {40.0, 52.52} AND indexed:by:(longitude, "byLocation") >= 12.0"#
        #expect(try Self.fetchNames(context, indexed) == ["Berlin", "Rome"])
        #expect(statements.contains { $0.contains("IN (SELECT Z_PK FROM Z_Place_byLocation WHERE ZLATITUDE_MAX >= ? AND ZLATITUDE_MIN <= ?)") })
        #expect(try Self.fetchNames(context, "latitude BETWEEN {40.0, 52.52} AND longitude >= 12.0") == ["Berlin", "Rome"])
        #expect(try Self.fetchNames(context, #"indexed:by:(latitude, "byLocation") > 59.0"#) == ["Oslo"])

        // In memory the function is the value it names.
        let places = try context.performAndWait { try context.fetch(FetchRequest<ManagedObject>(entityName: "Place")) }
        let predicate = try QueryPredicate(format: indexed)
        #expect(try places.filter { try predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted() == ["Berlin", "Rome"])
    }
}
