import Foundation
import Testing
@testable import LimelightData

/// Stores laid out as Core Data lays out the stores of Apple's own apps, from their published
/// schemas: models shaped like theirs (a few of their names, not their schemas) get the same
/// tables, columns and index names.
@Suite struct CoreDataStoreLayoutTests {
    /// Shaped like Apple Notes' NoteStore.sqlite: one tree under a synced-object root, where an
    /// attachment, an inline attachment (a hashtag), media, a note and a folder each declare
    /// some of the same names, and where accounts and folders share a parent entity sorted after
    /// the note. In the store Notes makes, an attachment's title is `ZTITLE`, a note's `ZTITLE1`
    /// and a folder's `ZTITLE2`; an attachment's note `ZNOTE`, an inline attachment's `ZNOTE1`;
    /// the to-ones to the account are `ZACCOUNT`, `ZACCOUNT1` … in entity order; and no to-one
    /// has a destination-entity column, since none of their destinations has subentities.
    static func notesModel() -> ManagedObjectModel {
        let synced = EntityDescription(name: "ICCloudSyncingObject", properties: [AttributeDescription(name: "identifier", type: .string)])
        synced.isAbstract = true
        func account() -> RelationshipDescription { RelationshipDescription(name: "account", destination: "ICAccount") }
        let attachment = EntityDescription(name: "ICAttachment", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "typeUTI", type: .string),
            AttributeDescription(name: "creationDate", type: .date), account(),
            RelationshipDescription(name: "note", destination: "ICNote", inverse: "attachments"),
        ], parent: "ICCloudSyncingObject")
        let inline = EntityDescription(name: "ICInlineAttachment", properties: [
            AttributeDescription(name: "typeUTI", type: .string), AttributeDescription(name: "creationDate", type: .date), account(),
            RelationshipDescription(name: "note", destination: "ICNote", inverse: "inlineAttachments"),
        ], parent: "ICCloudSyncingObject")
        let media = EntityDescription(name: "ICMedia", properties: [AttributeDescription(name: "filename", type: .string), account()],
                                      parent: "ICCloudSyncingObject")
        let note = EntityDescription(name: "ICNote", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "creationDate", type: .date), account(),
            RelationshipDescription(name: "folder", destination: "ICFolder", inverse: "notes"),
            RelationshipDescription(name: "attachments", destination: "ICAttachment", inverse: "note", toMany: true),
            RelationshipDescription(name: "inlineAttachments", destination: "ICInlineAttachment", inverse: "note", toMany: true),
        ], parent: "ICCloudSyncingObject")
        // Notes' parent of accounts and folders is entity 13, named here for where it sorts.
        let container = EntityDescription(name: "ICNoteContainer", properties: [AttributeDescription(name: "sortOrder", type: .integer16)],
                                          parent: "ICCloudSyncingObject")
        container.isAbstract = true
        let accountEntity = EntityDescription(name: "ICAccount", properties: [AttributeDescription(name: "name", type: .string)],
                                              parent: "ICNoteContainer")
        let folder = EntityDescription(name: "ICFolder", properties: [
            AttributeDescription(name: "title", type: .string), account(),
            RelationshipDescription(name: "parent", destination: "ICFolder"),
            RelationshipDescription(name: "notes", destination: "ICNote", inverse: "folder", toMany: true),
        ], parent: "ICNoteContainer")
        return ManagedObjectModel(entities: [synced, attachment, inline, media, note, container, accountEntity, folder])
    }

    @Test func aNotesShapedTreeIsNumberedAsNotesStoreIs() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("NoteStore.sqlite")
        let context = try TestStack.context(model: Self.notesModel(), at: url)
        try context.performAndWait {
            let account = try context.insertNewObject(forEntityName: "ICAccount")
            account.setValue("iCloud", forKey: "name")
            let notes = try context.insertNewObject(forEntityName: "ICFolder")
            notes.setValue("Notes", forKey: "title")
            notes.setValue(account, forKey: "account")
            let note = try context.insertNewObject(forEntityName: "ICNote")
            note.setValue("Groceries", forKey: "title")
            note.setValue(account, forKey: "account")
            note.setValue(notes, forKey: "folder")
            let file = try context.insertNewObject(forEntityName: "ICAttachment")
            file.setValue("list.txt", forKey: "title")
            file.setValue(note, forKey: "note")
            let tag = try context.insertNewObject(forEntityName: "ICInlineAttachment")
            tag.setValue("com.apple.notes.inlinetextattachment.hashtag", forKey: "typeUTI")
            tag.setValue(note, forKey: "note")
            try context.save()
        }
        // Entity numbers: the root, then subentities depth first by name.
        #expect(try sqliteQuery(url, "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
            "1 ICCloudSyncingObject 0", "2 ICAttachment 1", "3 ICInlineAttachment 1", "4 ICMedia 1", "5 ICNote 1",
            "6 ICNoteContainer 1", "7 ICAccount 6", "8 ICFolder 6",
        ])
        let columns = Set(try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZICCLOUDSYNCINGOBJECT')"))
        #expect(columns.isSuperset(of: ["ZTITLE", "ZTITLE1", "ZTITLE2", "ZNOTE", "ZNOTE1", "ZTYPEUTI", "ZTYPEUTI1",
                                         "ZCREATIONDATE", "ZCREATIONDATE1", "ZCREATIONDATE2", "ZFOLDER", "ZPARENT"]))
        // The attachment's, the inline attachment's, the media's, the note's and the folder's account.
        #expect(columns.filter { $0.hasPrefix("ZACCOUNT") }.sorted() == ["ZACCOUNT", "ZACCOUNT1", "ZACCOUNT2", "ZACCOUNT3", "ZACCOUNT4"])
        #expect(!columns.contains { $0.range(of: #"^Z\d+_"#, options: .regularExpression) != nil })
        // Each entity's value in its own column, as a reader of NoteStore.sqlite expects it.
        #expect(try sqliteQuery(url, """
            SELECT p.Z_NAME || ' ' || coalesce(o.ZTITLE, o.ZTITLE1, o.ZTITLE2, o.ZNAME, o.ZTYPEUTI1)
            FROM ZICCLOUDSYNCINGOBJECT o JOIN Z_PRIMARYKEY p ON p.Z_ENT = o.Z_ENT ORDER BY o.Z_ENT
            """) == ["ICAttachment list.txt", "ICInlineAttachment com.apple.notes.inlinetextattachment.hashtag",
                     "ICNote Groceries", "ICAccount iCloud", "ICFolder Notes"])
        #expect(try sqliteQuery(url, """
            SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT n JOIN ZICCLOUDSYNCINGOBJECT f ON f.Z_PK = n.ZFOLDER
            WHERE n.ZTITLE1 = 'Groceries' AND f.ZTITLE2 = 'Notes' AND n.ZACCOUNT3 = f.ZACCOUNT4
            """) == ["1"])

        let other = try TestStack.context(model: Self.notesModel(), at: url)
        let read = try other.performAndWait {
            let note = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "ICNote")).first)
            let folder = note.value(forKey: "folder") as? ManagedObject
            let account = note.value(forKey: "account") as? ManagedObject
            let tags = (note.value(forKey: "inlineAttachments") as? Set<ManagedObject>)?.count ?? -1
            return "\(note.value(forKey: "title") as? String ?? "-") in \(folder?.value(forKey: "title") as? String ?? "-") "
                + "of \(account?.value(forKey: "name") as? String ?? "-"), \(tags) tag"
        }
        #expect(read == "Groceries in Notes of iCloud, 1 tag")
    }

    /// Stores made by earlier versions of this framework gave a to-one whose destination merely
    /// has a superentity a destination-entity column too (`Z7_ACCOUNT`); such a store still
    /// opens, reads and takes changes, the column left as it is.
    @Test func aStoreWithDestinationColumnsCoreDataDoesNotMakeStillOpens() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("NoteStore.sqlite")
        let context = try TestStack.context(model: Self.notesModel(), at: url)
        try context.performAndWait {
            let account = try context.insertNewObject(forEntityName: "ICAccount")
            account.setValue("iCloud", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "ICNote")
            note.setValue("Groceries", forKey: "title")
            note.setValue(account, forKey: "account")
            try context.save()
        }
        try SiblingPropertyColumnTests.sqlite(url, """
            ALTER TABLE ZICCLOUDSYNCINGOBJECT ADD COLUMN Z7_ACCOUNT3 INTEGER;
            ALTER TABLE ZICCLOUDSYNCINGOBJECT ADD COLUMN Z8_FOLDER INTEGER;
            UPDATE ZICCLOUDSYNCINGOBJECT SET Z7_ACCOUNT3 = 7 WHERE ZACCOUNT3 IS NOT NULL;
            """)
        let other = try TestStack.context(model: Self.notesModel(), at: url)
        try other.performAndWait {
            let note = try #require(try other.fetch(FetchRequest<ManagedObject>(entityName: "ICNote")).first)
            #expect((note.value(forKey: "account") as? ManagedObject)?.value(forKey: "name") as? String == "iCloud")
            let notes = try other.insertNewObject(forEntityName: "ICFolder")
            notes.setValue("Notes", forKey: "title")
            note.setValue(notes, forKey: "folder")
            try other.save()
        }
        #expect(try sqliteQuery(url, "SELECT ZTITLE1, ZFOLDER IS NOT NULL, Z8_FOLDER IS NULL, Z7_ACCOUNT3 FROM ZICCLOUDSYNCINGOBJECT WHERE ZTITLE1 IS NOT NULL")
                == ["Groceries|1|1|7"])
    }

    /// A to-one into an entity with subentities keeps, beside the key, the entity of the object
    /// it points at (`Z2_VEHICLE`), which Core Data always makes and every fetch reads. A store
    /// without it used to open and then fail every fetch of the table ("no such column"); it is
    /// refused when it opens, naming the table and the column, and the file is left as it was.
    @Test func aStoreLackingADestinationEntityColumnIsRefusedNamingIt() throws {
        func model() -> ManagedObjectModel {
            ManagedObjectModel(entities: [
                EntityDescription(name: "Vehicle", properties: [AttributeDescription(name: "plate", type: .string)]),
                EntityDescription(name: "Car", properties: [AttributeDescription(name: "doors", type: .integer16)], parent: "Vehicle"),
                EntityDescription(name: "Person", properties: [
                    AttributeDescription(name: "name", type: .string), RelationshipDescription(name: "vehicle", destination: "Vehicle"),
                ]),
            ])
        }
        let folder = try TemporaryFolder()
        let url = folder.file("garage.sqlite")
        let context = try TestStack.context(model: model(), at: url)
        try context.performAndWait {
            let ada = try context.insertNewObject(forEntityName: "Person")
            ada.setValue(try context.insertNewObject(forEntityName: "Car"), forKey: "vehicle")
            try context.save()
        }
        #expect(try sqliteQuery(url, "SELECT ZVEHICLE IS NOT NULL, Z2_VEHICLE FROM ZPERSON") == ["1|3"])
        try SiblingPropertyColumnTests.sqlite(url, "ALTER TABLE ZPERSON DROP COLUMN Z2_VEHICLE")
        let before = try Data(contentsOf: url)
        let error = #expect(throws: PersistenceError.self) { _ = try TestStack.context(model: model(), at: url) }
        #expect(error.map { "\($0)" }?.contains("table ZPERSON has no column Z2_VEHICLE") == true)
        #expect(try Data(contentsOf: url) == before)
    }

    /// A new table lists its columns as Core Data's do (Notes' `ZICCLOUDSYNCINGOBJECT`,
    /// Photos' `ZASSET`): by kind (integers and to-one keys, dates and floating point, strings,
    /// transformables, binary), within a kind entity by entity, each entity's attributes by
    /// name before its to-ones by name.
    @Test func aNewTableListsItsColumnsInCoreDataOrder() throws {
        let notes = AttributeDescription(name: "notes", type: .transformable)
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Item", properties: [
                AttributeDescription(name: "name", type: .string), AttributeDescription(name: "count", type: .integer16),
                AttributeDescription(name: "cover", type: .binaryData), RelationshipDescription(name: "shelf", destination: "Shelf"),
                AttributeDescription(name: "added", type: .date),
            ]),
            EntityDescription(name: "Book", properties: [
                RelationshipDescription(name: "author", destination: "Person"), AttributeDescription(name: "title", type: .string),
                notes, AttributeDescription(name: "weight", type: .double), AttributeDescription(name: "pages", type: .integer32),
            ], parent: "Item"),
            EntityDescription(name: "Person", properties: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Shelf", properties: [AttributeDescription(name: "label", type: .string)]),
        ])
        let folder = try TemporaryFolder()
        let url = folder.file("library.sqlite")
        _ = try TestStack.context(model: model, at: url)
        #expect(try sqliteQuery(url, "SELECT group_concat(name, ' ') FROM pragma_table_info('ZITEM')")
                == ["Z_PK Z_ENT Z_OPT ZCOUNT ZSHELF ZPAGES ZAUTHOR ZADDED ZWEIGHT ZNAME ZTITLE ZNOTES ZCOVER"])
    }

    /// Shaped like Photos.sqlite's keywords and assets: an indexed attribute, a fetch index, a
    /// uniqueness constraint and compound indexes, named as Photos' store names them
    /// (`Z_Keyword_title`, `Z_Keyword_byTitleIndex`, `Z_Keyword_UNIQUE_title`,
    /// `Z_Asset_compoundIndex2`), every column with its collation and order.
    @Test func indexesAreNamedAsPhotosStoreNamesThem() throws {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexed = true
        let keyword = EntityDescription(name: "Keyword", properties: [title])
        keyword.fetchIndexes = [FetchIndexDescription(name: "byTitleIndex", elements: [(property: "title", ascending: true)])]
        keyword.uniquenessConstraints = [["title"]]
        let asset = EntityDescription(name: "Asset", properties: [
            AttributeDescription(name: "directory", type: .string), AttributeDescription(name: "filename", type: .string),
            AttributeDescription(name: "dateCreated", type: .date), AttributeDescription(name: "favorite", type: .boolean),
            RelationshipDescription(name: "additionalAttributes", destination: "AdditionalAssetAttributes", inverse: "asset"),
        ])
        asset.compoundIndexes = [["dateCreated", "favorite"], ["favorite", "dateCreated"], ["directory", "filename"]]
        asset.fetchIndexes = [FetchIndexDescription(name: "byDateCreatedIndex", elements: [(property: "dateCreated", ascending: false)])]
        let attributes = EntityDescription(name: "AdditionalAssetAttributes", properties: [
            RelationshipDescription(name: "asset", destination: "Asset", inverse: "additionalAttributes"),
        ])
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        _ = try TestStack.context(model: ManagedObjectModel(entities: [keyword, asset, attributes]), at: url)
        let indexes = try sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        #expect(indexes == [
            "CREATE INDEX ZADDITIONALASSETATTRIBUTES_ZASSET_INDEX ON ZADDITIONALASSETATTRIBUTES (ZASSET)",
            "CREATE INDEX ZASSET_ZADDITIONALATTRIBUTES_INDEX ON ZASSET (ZADDITIONALATTRIBUTES)",
            "CREATE INDEX Z_Asset_byDateCreatedIndex ON ZASSET (ZDATECREATED COLLATE BINARY DESC)",
            "CREATE INDEX Z_Asset_compoundIndex ON ZASSET (ZDATECREATED COLLATE BINARY ASC, ZFAVORITE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Asset_compoundIndex1 ON ZASSET (ZFAVORITE COLLATE BINARY ASC, ZDATECREATED COLLATE BINARY ASC)",
            "CREATE INDEX Z_Asset_compoundIndex2 ON ZASSET (ZDIRECTORY COLLATE BINARY ASC, ZFILENAME COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX Z_Keyword_UNIQUE_title ON ZKEYWORD (ZTITLE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Keyword_byTitleIndex ON ZKEYWORD (ZTITLE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Keyword_title ON ZKEYWORD (ZTITLE COLLATE BINARY ASC)",
        ])
    }

    /// Shaped like Photos' albums and assets: a many-to-many, ordered on the album's side, kept
    /// in `Z_<album>ASSETS` with the album's key in `Z_<album>ALBUMS`, the asset's in
    /// `Z_<asset>ASSETS`, its position in `Z_FOK_<asset>ASSETS`, and the index Photos' store has
    /// on the asset's column; an ordered to-many whose inverse is a to-one keeps positions
    /// beside that key (`ZPARENTFOLDER`, `Z_FOK_PARENTFOLDER`).
    @Test func joinTablesAndPositionsAreNamedAsPhotosStoreNamesThem() throws {
        let assets = RelationshipDescription(name: "assets", destination: "Asset", inverse: "albums", toMany: true)
        assets.isOrdered = true
        let album = EntityDescription(name: "Album", properties: [
            AttributeDescription(name: "title", type: .string), assets,
            RelationshipDescription(name: "parentFolder", destination: "Folder", inverse: "childCollections"),
        ])
        let asset = EntityDescription(name: "Asset", properties: [
            AttributeDescription(name: "filename", type: .string),
            RelationshipDescription(name: "albums", destination: "Album", inverse: "assets", toMany: true),
        ])
        let children = RelationshipDescription(name: "childCollections", destination: "Album", inverse: "parentFolder", toMany: true)
        children.isOrdered = true
        let folderEntity = EntityDescription(name: "Folder", properties: [children])
        let folder = try TemporaryFolder()
        let url = folder.file("Photos.sqlite")
        _ = try TestStack.context(model: ManagedObjectModel(entities: [album, asset, folderEntity]), at: url)
        #expect(try sqliteQuery(url, "SELECT name FROM pragma_table_info('Z_1ASSETS') ORDER BY cid") == ["Z_1ALBUMS", "Z_2ASSETS", "Z_FOK_2ASSETS"])
        #expect(try sqliteQuery(url, "SELECT name FROM pragma_table_info('Z_1ASSETS') WHERE pk > 0 ORDER BY pk") == ["Z_1ALBUMS", "Z_2ASSETS"])
        #expect(try sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE tbl_name = 'Z_1ASSETS' AND type = 'index' AND sql IS NOT NULL")
                == ["CREATE INDEX Z_1ASSETS_Z_2ASSETS_INDEX ON Z_1ASSETS (Z_2ASSETS, Z_1ALBUMS)"])
        let albumColumns = Set(try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZALBUM')"))
        #expect(albumColumns.isSuperset(of: ["ZPARENTFOLDER", "Z_FOK_PARENTFOLDER"]))
    }
}
