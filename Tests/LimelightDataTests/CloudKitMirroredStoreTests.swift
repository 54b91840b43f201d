import Foundation
import Testing
@testable import LimelightData

/// A store of an application that syncs through `NSPersistentCloudKitContainer`, built in the
/// shape such stores have: the application's tables and persistent history, and the mirroring
/// delegate's tables (`ANSCK…`, columns and unique indexes as a real store declares them), their
/// key counters in `Z_PRIMARYKEY` from 17000 on, and their rows. Limelight opens it, fetches,
/// saves inserts, changes and deletions, leaves every mirroring table, row and counter as they
/// were, and records history as Core Data records it, where the delegate looks for what to export.
@Suite struct CloudKitMirroredStoreTests {
    static let xml = """
        <model><entity name="Folder" representedClassName="Folder">\
        <attribute name="title" optional="YES" attributeType="String"/>\
        <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>\
        </entity><entity name="Note" representedClassName="Note">\
        <attribute name="body" optional="YES" attributeType="String"/>\
        <attribute name="modified" optional="YES" attributeType="Date" usesScalarValueType="NO"/>\
        <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>\
        </entity></model>
        """

    static func model(_ xml: String = xml) throws -> ManagedObjectModel { try ManagedObjectModel(xmlData: Data(xml.utf8), source: "Notes.xcdatamodel") }

    /// The mirroring delegate's tables as a mirrored store declares them: record metadata and
    /// metadata entries with the columns and unique indexes of a real store; the zone, database,
    /// mirrored-relationship, history-analyzer and event tables with the columns the delegate's
    /// own migration and readers of such stores name.
    static let mirroringSQL = [
        "CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZLASTEXPORTEDTRANSACTIONNUMBER INTEGER, ZNEEDSCLOUDDELETE INTEGER, ZNEEDSLOCALDELETE INTEGER, ZNEEDSUPLOAD INTEGER, ZPENDINGEXPORTCHANGETYPENUMBER INTEGER, ZPENDINGEXPORTTRANSACTIONNUMBER INTEGER, ZENCODEDRECORDASSET INTEGER, ZRECORDZONE INTEGER, ZSYSTEMFIELDSASSET INTEGER, ZCKRECORDNAME VARCHAR )",
        "CREATE UNIQUE INDEX Z_NSCKRecordMetadata_UNIQUE_entityId_entityPK ON ANSCKRECORDMETADATA (ZENTITYID COLLATE BINARY ASC, ZENTITYPK COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_NSCKRecordMetadata_UNIQUE_ckRecordName_recordZone ON ANSCKRECORDMETADATA (ZCKRECORDNAME COLLATE BINARY ASC, ZRECORDZONE COLLATE BINARY ASC)",
        "CREATE TABLE ANSCKMETADATAENTRY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOLVALUENUM INTEGER, ZINTEGERVALUE INTEGER, ZDATEVALUE TIMESTAMP, ZKEY VARCHAR, ZSTRINGVALUE VARCHAR, ZTRANSFORMEDVALUE BLOB )",
        "CREATE TABLE ANSCKRECORDZONEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCKRECORDZONENAME VARCHAR, ZCKOWNERNAME VARCHAR, ZENCODEDSHAREDATA BLOB )",
        "CREATE TABLE ANSCKDATABASEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCURRENTCHANGETOKEN BLOB )",
        "CREATE TABLE ANSCKMIRROREDRELATIONSHIP ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISDELETED INTEGER, ZISUPLOADED INTEGER, ZCDENTITYNAME VARCHAR, ZCKRECORDID VARCHAR, ZRECORDZONENAME VARCHAR, ZRECORDZONEOWNERNAME VARCHAR, ZRELATEDCKRECORDID VARCHAR, ZRELATEDRECORDZONENAME VARCHAR, ZRELATEDRECORDZONEOWNERNAME VARCHAR, ZRELATIONSHIPNAME VARCHAR )",
        "CREATE TABLE ANSCKHISTORYANALYZERSTATE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZFINALCHANGETYPE INTEGER, ZFINALTRANSACTIONNUMBER INTEGER, ZORIGINALCHANGETYPE INTEGER, ZORIGINALTRANSACTIONNUMBER INTEGER )",
        "CREATE TABLE ANSCKEVENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCLOUDKITEVENTTYPE INTEGER, ZSUCCEEDED INTEGER, ZERRORCODE INTEGER, ZSTARTEDAT TIMESTAMP, ZENDEDAT TIMESTAMP, ZERRORDOMAIN VARCHAR )",
        "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (17002, 'NSCKDatabaseMetadata', 0, 1), (17004, 'NSCKEvent', 0, 2), (17007, 'NSCKHistoryAnalyzerState', 0, 0), (17009, 'NSCKMetadataEntry', 0, 3), (17010, 'NSCKMirroredRelationship', 0, 2), (17012, 'NSCKRecordMetadata', 0, 3), (17014, 'NSCKRecordZoneMetadata', 0, 1)",
        "INSERT INTO ANSCKDATABASEMETADATA VALUES (1, 17002, 1, X'0a0b')",
        "INSERT INTO ANSCKRECORDZONEMETADATA VALUES (1, 17014, 1, 'com.apple.coredata.cloudkit.zone', '__defaultOwner__', NULL)",
        "INSERT INTO ANSCKMETADATAENTRY (Z_PK, Z_ENT, Z_OPT, ZKEY, ZINTEGERVALUE, ZBOOLVALUENUM, ZTRANSFORMEDVALUE) VALUES (1, 17009, 1, 'PFCloudKitMetadataFrameworkVersionKey', 1, NULL, NULL), (2, 17009, 1, 'PFCloudKitMetadataNeedsMetadataMigrationKey', NULL, 0, NULL), (3, 17009, 1, 'NSCloudKitMirroringDelegateLastHistoryTokenKey', NULL, NULL, X'01')",
        "INSERT INTO ANSCKRECORDMETADATA (Z_PK, Z_ENT, Z_OPT, ZENTITYID, ZENTITYPK, ZLASTEXPORTEDTRANSACTIONNUMBER, ZNEEDSCLOUDDELETE, ZNEEDSLOCALDELETE, ZNEEDSUPLOAD, ZRECORDZONE, ZCKRECORDNAME) SELECT Z_PK, 17012, 1, Z_ENT, Z_PK, 1, 0, 0, 0, 1, 'folder-' || Z_PK FROM ZFOLDER",
        "INSERT INTO ANSCKRECORDMETADATA (Z_ENT, Z_OPT, ZENTITYID, ZENTITYPK, ZLASTEXPORTEDTRANSACTIONNUMBER, ZNEEDSCLOUDDELETE, ZNEEDSLOCALDELETE, ZNEEDSUPLOAD, ZRECORDZONE, ZCKRECORDNAME) SELECT 17012, 1, Z_ENT, Z_PK, 1, 0, 0, 0, 1, 'note-' || Z_PK FROM ZNOTE",
        "INSERT INTO ANSCKMIRROREDRELATIONSHIP (Z_PK, Z_ENT, Z_OPT, ZISDELETED, ZISUPLOADED, ZCDENTITYNAME, ZCKRECORDID, ZRECORDZONENAME, ZRECORDZONEOWNERNAME, ZRELATEDCKRECORDID, ZRELATEDRECORDZONENAME, ZRELATEDRECORDZONEOWNERNAME, ZRELATIONSHIPNAME) VALUES (1, 17010, 1, 0, 1, 'Note', 'note-1', 'com.apple.coredata.cloudkit.zone', '__defaultOwner__', 'folder-1', 'com.apple.coredata.cloudkit.zone', '__defaultOwner__', 'folder'), (2, 17010, 1, 0, 1, 'Note', 'note-2', 'com.apple.coredata.cloudkit.zone', '__defaultOwner__', 'folder-1', 'com.apple.coredata.cloudkit.zone', '__defaultOwner__', 'folder')",
        "INSERT INTO ANSCKEVENT VALUES (1, 17004, 1, 0, 1, 0, 800000000, 800000001, NULL), (2, 17004, 1, 2, 1, 0, 800000002, 800000003, NULL)",
    ]

    /// A notes store saved with history, then given the mirroring delegate's tables and rows.
    static func makeMirroredStore(at url: URL) throws {
        let context = try TestStack.context(model: try model(), at: url, options: [StoreOption.persistentHistoryTracking: true])
        try context.performAndWait {
            let folder = try context.insertNewObject(forEntityName: "Folder")
            folder.setValue("Recipes", forKey: "title")
            for body in ["Bread", "Soup", "Salad"] {
                let note = try context.insertNewObject(forEntityName: "Note")
                note.setValue(body, forKey: "body")
                note.setValue(folder, forKey: "folder")
            }
            try context.save()
        }
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        defer { db.close() }
        for statement in mirroringSQL { try db.execute(statement) }
    }

    /// Every mirroring table's rows and the mirroring counters, as text.
    static func mirroringSnapshot(_ url: URL) throws -> [String] {
        let tables = try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ANSCK%' ORDER BY name")
        return try tables.flatMap { try sqliteQuery(url, "SELECT '\($0)', * FROM \($0) ORDER BY Z_PK") }
            + sqliteQuery(url, "SELECT * FROM Z_PRIMARYKEY WHERE Z_ENT >= 17000 ORDER BY Z_ENT")
            + sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE name LIKE '%NSCK%' ORDER BY name")
    }

    @Test func savesLeaveTheMirroringAsItWasAndWriteTheHistoryItExports() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        try Self.makeMirroredStore(at: url)
        let before = try Self.mirroringSnapshot(url)
        #expect(before.count > 20)
        let transactions = try sqliteQuery(url, "SELECT count(*) FROM ATRANSACTION")

        // Opened without asking for history: a mirrored store keeps it anyway.
        let context = try TestStack.context(model: try Self.model(), at: url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        #expect(store.mirroring?.trackedObjects == 4 && store.mirroring?.pendingUploads == 0)
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            #expect(notes.count == 3)
            for note in notes {
                switch note.value(forKey: "body") as? String {
                case "Soup": note.setValue("Tomato soup", forKey: "body")
                case "Salad": context.delete(note)
                default: break
                }
            }
            let added = try context.insertNewObject(forEntityName: "Note")
            added.setValue("Pancakes", forKey: "body")
            added.setValue(notes.first?.value(forKey: "folder"), forKey: "folder")
            try context.save()
        }

        #expect(try Self.mirroringSnapshot(url) == before, "no mirroring table, row, index or counter changed")
        #expect(try sqliteQuery(url, "SELECT count(*) FROM ATRANSACTION") == ["\((Int(transactions.first ?? "") ?? 0) + 1)"])
        // One change per object, by entity number and key, as the delegate reads them: the new
        // note inserted, the soup updated, the salad deleted (its tombstone-free row kept).
        let noteNumber = try #require(try sqliteQuery(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'").first)
        let changes = try sqliteQuery(url, """
            SELECT c.ZCHANGETYPE, c.ZENTITY, n.ZBODY FROM ACHANGE c LEFT JOIN ZNOTE n ON n.Z_PK = c.ZENTITYPK
            WHERE c.ZTRANSACTIONID = (SELECT max(Z_PK) FROM ATRANSACTION) AND c.ZENTITY = \(noteNumber) ORDER BY c.ZCHANGETYPE
            """)
        #expect(changes == ["0|\(noteNumber)|Pancakes", "1|\(noteNumber)|Tomato soup", "2|\(noteNumber)|"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM ZNOTE") == ["3"])
        #expect(try sqliteQuery(url, "PRAGMA integrity_check") == ["ok"])
    }

    /// A migration that renumbers entities (a new entity sorts first) renumbers the delegate's
    /// record metadata with them, as Core Data's migration does, so each row still names its object.
    @Test func aMigrationRenumbersTheObjectsTheDelegateTracks() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        try Self.makeMirroredStore(at: url)
        let tracked = "SELECT p.Z_NAME, m.ZENTITYPK, m.ZCKRECORDNAME FROM ANSCKRECORDMETADATA m JOIN Z_PRIMARYKEY p ON p.Z_ENT = m.ZENTITYID ORDER BY m.ZCKRECORDNAME"
        let before = try sqliteQuery(url, tracked)
        #expect(before.count == 4)
        let later = Self.xml.replacingOccurrences(of: "<model>", with: #"<model><entity name="Attachment"><attribute name="name" optional="YES" attributeType="String"/></entity>"#)
        _ = try TestStack.context(model: try Self.model(later), at: url, options: [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: [try Self.model()],
        ])
        #expect(try sqliteQuery(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Attachment'") == ["1"])
        #expect(try sqliteQuery(url, tracked) == before)
        #expect(try sqliteQuery(url, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'Z_NSCKRecordMetadata_UNIQUE%'") == ["2"])
        #expect(try sqliteQuery(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 17012") == ["3"])
    }

    /// Record metadata without the columns naming its objects is not what the delegate writes:
    /// the store is refused for writing, naming the table and column, and left as it was.
    @Test func aMirroringTableOfAnotherShapeIsRefusedNamingIt() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("Notes.sqlite")
        try Self.makeMirroredStore(at: url)
        let db = try SQLiteConnection(path: url.path, readOnly: false)
        try db.execute("DROP INDEX Z_NSCKRecordMetadata_UNIQUE_entityId_entityPK")
        try db.execute("ALTER TABLE ANSCKRECORDMETADATA DROP COLUMN ZENTITYPK")
        db.close()
        let before = try Self.mirroringSnapshot(url) + sqliteQuery(url, "SELECT * FROM ZNOTE ORDER BY Z_PK")
        #expect {
            _ = try TestStack.context(model: try Self.model(), at: url)
        } throws: { error in
            "\(error)".contains("ANSCKRECORDMETADATA has no ZENTITYPK column") && "\(error)".contains(url.lastPathComponent)
        }
        #expect(try Self.mirroringSnapshot(url) + sqliteQuery(url, "SELECT * FROM ZNOTE ORDER BY Z_PK") == before)
    }
}
