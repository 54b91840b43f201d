import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// `<compoundIndexes>` of models saved by Xcode before version 9: read, indexed in the store,
/// written back.
struct CompoundIndexTests {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="8195" systemVersion="15A282b" minimumToolsVersion="Xcode 7.0">
        <entity name="Visit" syncable="YES">
            <attribute name="city" optional="YES" attributeType="String" syncable="YES"/>
            <attribute name="day" optional="YES" attributeType="Date" syncable="YES"/>
            <attribute name="rating" attributeType="Integer 16" defaultValueString="0" syncable="YES"/>
            <compoundIndexes>
                <compoundIndex>
                    <index value="city"/>
                    <index value="day"/>
                </compoundIndex>
                <compoundIndex>
                    <index value="rating"/>
                    <index value="nowhere"/>
                </compoundIndex>
            </compoundIndexes>
        </entity>
    </model>
    """

    @Test func compoundIndexesAreReadIndexedAndWrittenBack() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.xml.utf8), source: "Visits")
        let visit = try #require(model.entity(named: "Visit"))
        #expect(visit.compoundIndexes == [["city", "day"], ["rating", "nowhere"]])
        #expect(visit.extraXMLElements.isEmpty)

        let folder = try TemporaryFolder()
        let url = folder.file("visits.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        var indexes: [String: String] = [:]
        try db.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZVISIT'") { row in
            indexes[String(cString: sqlite3_column_text(row, 0))] = sqlite3_column_text(row, 1).map { String(cString: $0) }
        }
        // Named as Core Data names an entity's compound indexes in turn (Photos' Asset has a
        // `Z_Asset_compoundIndex2` over its directory and file name).
        #expect(indexes["Z_Visit_compoundIndex"] == "CREATE INDEX Z_Visit_compoundIndex ON ZVISIT (ZCITY COLLATE BINARY ASC, ZDAY COLLATE BINARY ASC)")
        // A group naming a property the entity does not have is left out, not a broken store.
        #expect(indexes.count == 1)

        let written = folder.file("Visits.xcdatamodel")
        try model.write(to: written)
        let text = try String(contentsOf: written.appendingPathComponent("contents"), encoding: .utf8)
        #expect(text.contains("<compoundIndexes>"))
        #expect(text.contains("<index value=\"day\"/>"))
        let reread = try ManagedObjectModel(contentsOf: written)
        #expect(reread.entity(named: "Visit")?.compoundIndexes == [["city", "day"], ["rating", "nowhere"]])
    }

    @Test func aMigrationListsAndBuildsANewCompoundIndex() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.xml.utf8), source: "Visits")
        let plain = try ManagedObjectModel(xmlData: Data(Self.xml.replacingOccurrences(
            of: #"<compoundIndex>\s*<index value="city"/>\s*<index value="day"/>\s*</compoundIndex>"#, with: "",
            options: .regularExpression).utf8), source: "Visits 0")
        let mapping = try MappingModel(inferringFrom: plain, to: model)
        #expect(mapping.mapping(forDestination: "Visit")?.otherChanges.contains("new compound index (city, day)") == true)
        #expect(mapping.unmappableChanges.isEmpty)
    }
}
