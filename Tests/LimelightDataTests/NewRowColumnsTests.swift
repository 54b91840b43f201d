import Foundation
import Testing
@testable import LimelightData

/// A new row's `Z_ENT` and `Z_OPT`, which the insert statement carries in its text rather than
/// binding for every row: the row's own entity number (a sub-entity's, in its parent's table) and
/// version 1, whether the row comes from a save or a batch insert; and the fast reads of a row's
/// key and entity number (object IDs, to-ones, dictionaries) giving them back.
@Suite struct NewRowColumnsTests {
    static let model = StoreLayoutTests.model()

    @Test func aNewRowHoldsItsEntityNumberAndTheFirstVersion() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("rows.sqlite")
        let context = try TestStack.context(model: Self.model, at: url)
        let shelf = try context.insertNewObject(forEntityName: "Shelf")
        shelf.setValue("first", forKey: "label")
        let disc = try context.insertNewObject(forEntityName: "Disc")
        disc.setValue("Blue", forKey: "title")
        disc.setValue(shelf, forKey: "shelf")
        shelf.setValue(disc, forKey: "favourite")
        try context.save()
        try context.execute(BatchInsertRequest(entityName: "Volume", objects: [["title": "Red", "pages": Int32(10)], ["title": "Green"]]))
        var calls = 0
        try context.execute(BatchInsertRequest(entityName: "Disc", dictionaryHandler: { dictionary in
            calls += 1
            dictionary["title"] = "Grey"
            return calls > 1
        }))
        calls = 0
        try context.execute(BatchInsertRequest(entityName: "Volume", managedObjectHandler: { object in
            calls += 1
            object.setValue("White", forKey: "title")
            return calls > 1
        }))
        // Disc is 2, Volume 3 (sub-entities of Item, in ZITEM), Shelf 4.
        #expect(try sqliteQuery(url, "SELECT ZTITLE, Z_ENT, Z_OPT FROM ZITEM ORDER BY Z_PK")
            == ["Blue|2|1", "Red|3|1", "Green|3|1", "Grey|2|1", "White|3|1"])
        #expect(try sqliteQuery(url, "SELECT ZLABEL, Z_ENT, Z_OPT, Z1_FAVOURITE FROM ZSHELF") == ["first|4|1|2"])

        // Read back in a new context: IDs of each row's own entity, to-ones of the right entity
        // (through the type column), dictionaries' object IDs.
        let reader = try TestStack.context(model: Self.model, at: url)
        let request = FetchRequest<ManagedObjectID>(entityName: "Item")
        request.sortDescriptors = [QuerySortDescriptor(key: "title", ascending: true)]
        let ids = try reader.fetch(request)
        // Blue, Green, Grey, Red, White.
        #expect(ids.map(\.entity.name) == ["Disc", "Volume", "Disc", "Volume", "Volume"])
        #expect(ids.compactMap(\.primaryKey) == [1, 3, 4, 2, 5])
        let shelves = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf"))
        let favourite = try #require(shelves.first?.value(forKey: "favourite") as? ManagedObject)
        #expect(favourite.objectID == ids[0])
        #expect(favourite.entity.name == "Disc")
        let rows = FetchRequest<[String: Any]>(entityName: "Item")
        rows.propertiesToFetch = ["title", "shelf"]
        rows.sortDescriptors = [QuerySortDescriptor(key: "title", ascending: true)]
        let dictionaries = try reader.fetch(rows)
        #expect(dictionaries.count == 5)
        #expect(dictionaries.first?["shelf"] as? ManagedObjectID == shelves.first?.objectID)
        #expect(dictionaries.dropFirst().allSatisfy { $0["shelf"] == nil })

        // A later save counts the version on from 1.
        favourite.setValue("Navy", forKey: "title")
        try reader.save()
        #expect(try sqliteQuery(url, "SELECT Z_OPT FROM ZITEM WHERE ZTITLE = 'Navy'") == ["2"])
    }
}
