import Foundation
import Testing
@testable import LimelightData

/// Lightweight migration of composite attributes on real SQLite files: a composite or an element
/// added gets its columns (and its default), one removed loses them, a renamed element keeps its
/// values, and what cannot be carried over is refused naming the element.
@Suite struct CompositeMigrationTests {
    /// The quake model without the location composite and without the magnitude's scale.
    static let version1 = QuakeModel.xml
        .replacingOccurrences(of: #"<attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>"#, with: "")
        .replacingOccurrences(of: #"<attribute name="scale" optional="YES" attributeType="String" defaultValueString="ML"/>"#, with: "")

    /// The quake model with the Richter value renamed `moment` (its element ID naming the old
    /// name), the scale and the location's coordinate gone.
    static let version3 = QuakeModel.xml
        .replacingOccurrences(of: #"<attribute name="richter" optional="YES""#, with: #"<attribute name="moment" optional="YES" elementID="richter""#)
        .replacingOccurrences(of: #"<attribute name="scale" optional="YES" attributeType="String" defaultValueString="ML"/>"#, with: "")
        .replacingOccurrences(of: #"<attribute name="coordinate" optional="YES" attributeType="Composite" composite="Coordinate"/>"#, with: "")

    static func model(_ xml: String) throws -> ManagedObjectModel { try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Quakes.xcdatamodel") }

    static func columns(_ url: URL) throws -> Set<String> {
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        return try SQLiteSchemaCheck.columns(of: "ZQUAKE", connection: db)
    }

    static func open(_ url: URL, _ xml: String, from sources: [String]) throws -> ManagedObjectContext {
        try TestStack.context(model: try model(xml), at: url, options: [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: try sources.map(model),
        ])
    }

    @Test func addingAndRemovingCompositesAndElementsChangesTheColumns() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let first = try TestStack.context(model: try Self.model(Self.version1), at: url)
        try first.performAndWait {
            for (code, richter) in [("ci1", 4.6 as Double?), ("us4", nil)] {
                let quake = try first.insertNewObject(forEntityName: "Quake")
                quake.setValue(code, forKey: "code")
                quake.setValue(richter.map { ["richter": $0] }, forKey: "magnitude")
            }
            try first.save()
        }
        #expect(try Self.columns(url) == ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZMAGNITUDE_RICHTER"])

        // Version 2 adds the location (three element columns) and the magnitude's scale, whose
        // default every saved quake takes, as a new attribute's default.
        let mapping = try MappingModel(inferringFrom: try Self.model(Self.version1), to: try QuakeModel.make())
        #expect(mapping.unmappableChanges.isEmpty)
        let quakeMapping = try #require(mapping.mapping(forDestination: "Quake"))
        #expect(quakeMapping.mapping(forDestination: "location")?.kind == .add)
        #expect(quakeMapping.mapping(forDestination: "magnitude")?.kind == .retype)
        #expect(quakeMapping.mapping(forDestination: "magnitude")?.detail == "elements: + scale")
        let second = try Self.open(url, QuakeModel.xml, from: [Self.version1])
        #expect(try Self.columns(url) == ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZMAGNITUDE_RICHTER", "ZMAGNITUDE_SCALE",
                                          "ZLOCATION_PLACE", "ZLOCATION_COORDINATE_LATITUDE", "ZLOCATION_COORDINATE_LONGITUDE"])
        try second.performAndWait {
            #expect(try QuakeModel.codes(second, "magnitude.richter == 4.6 AND magnitude.scale == 'ML'") == ["ci1"])
            #expect(try QuakeModel.codes(second, "magnitude.richter == nil AND magnitude.scale == 'ML' AND location == nil") == ["us4"])
            let quake = try #require(try second.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ci1'"))).first)
            quake.setValue(["place": "Ridgecrest", "coordinate": ["latitude": 35.77, "longitude": -117.6]], forKey: "location")
            try second.save()
        }

        // Version 3 renames the Richter value, drops the scale and the coordinate.
        let third = try Self.open(url, Self.version3, from: [Self.version1, QuakeModel.xml])
        #expect(try Self.columns(url) == ["Z_PK", "Z_ENT", "Z_OPT", "ZCODE", "ZMAGNITUDE_MOMENT", "ZLOCATION_PLACE"])
        let values = try third.performAndWait {
            try third.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try QueryPredicate(format: "code == 'ci1'")))
                .map { [$0.value(forKey: "magnitude"), $0.value(forKey: "location")] }
        }
        #expect(values.first?[0] as? [String: Double] == ["moment": 4.6])
        #expect(values.first?[1] as? [String: String] == ["place": "Ridgecrest"])
    }

    @Test func changesOfElementsAMigrationCannotMakeAreRefusedNamingThem() throws {
        let required = QuakeModel.xml.replacingOccurrences(of: #"<attribute name="place" optional="YES" attributeType="String"/>"#,
                                                           with: #"<attribute name="place" attributeType="String"/><attribute name="zone" attributeType="Integer 16"/>"#)
        let retyped = QuakeModel.xml.replacingOccurrences(of: #"<attribute name="scale" optional="YES" attributeType="String" defaultValueString="ML"/>"#,
                                                          with: #"<attribute name="scale" optional="YES" attributeType="Date"/>"#)
        let first = try MappingModel(inferringFrom: try QuakeModel.make(), to: try Self.model(required))
        #expect(first.unmappableChanges.contains("Quake.location.zone: new required element without a default value"))
        #expect(first.unmappableChanges.contains("Quake.location.place: element becomes required without a default value"))
        let second = try MappingModel(inferringFrom: try QuakeModel.make(), to: try Self.model(retyped))
        #expect(second.unmappableChanges == ["Quake.magnitude.scale: type changes from String to Date"])
        // A composite that was a plain attribute, or the other way round, is a change of type.
        let flattened = QuakeModel.xml.replacingOccurrences(of: #"attributeType="Composite" composite="Magnitude""#, with: #"attributeType="Double""#)
        let third = try MappingModel(inferringFrom: try QuakeModel.make(), to: try Self.model(flattened))
        #expect(third.unmappableChanges == ["Quake.magnitude: type changes from Composite to Double"])
    }

    @Test func anObjectLevelMigrationCarriesCompositesWithRenamedAndRemovedElements() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let writer = try TestStack.context(model: try Self.model(QuakeModel.xml), at: url)
        try writer.performAndWait { try QuakeModel.fill(writer) }
        // The inferred mapping, run object by object: whole composites copied through `$source`.
        let manager = try MigrationManager(sourceModel: try Self.model(QuakeModel.xml), destinationModel: try Self.model(Self.version3))
        try manager.migrateStore(at: url, with: nil)
        let reader = try TestStack.context(model: try Self.model(Self.version3), at: url)
        let read: [String] = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake", sortDescriptors: [QuerySortDescriptor(key: "code")])).map { quake in
                let moment = quake.value(forKeyPath: "magnitude.moment") as? Double
                let place = quake.value(forKeyPath: "location.place") as? String
                return "\(quake.value(forKey: "code") as? String ?? "-") \(moment.map { "\($0)" } ?? "-") \(place ?? "-")"
            }
        }
        #expect(read == ["ak2 6.1 Anchorage", "ci1 4.6 Ridgecrest", "nc3 2.9 Petrolia", "us4 - -"])
        #expect(try Self.columns(url).contains("ZMAGNITUDE_MOMENT"))
        #expect(try !Self.columns(url).contains("ZLOCATION_COORDINATE_LATITUDE"))
    }
}
