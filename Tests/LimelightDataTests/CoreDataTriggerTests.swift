import Foundation
import Testing
@testable import LimelightData

/// Stores Core Data made with its own triggers (derived attributes, history) accept saves here.
@Suite struct CoreDataTriggerTests {
    static func model() -> ManagedObjectModel {
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "bookCount", type: .integer64),
            RelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true),
        ])
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
        ])
        return ManagedObjectModel(entities: [shelf, book])
    }

    @Test func aTriggerCallingCoreDataFunctionsRunsOnSave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        do {
            let context = try PhotoModel.stack(at: url, model: Self.model())
            try context.insertNewObject(forEntityName: "Shelf").setValue("Kitchen", forKey: "label")
            try context.save()
        }
        // The shape of trigger Core Data adds for a derived count of a to-many.
        try ExternalBinaryDataTests.sqliteWrite(url, """
            CREATE TRIGGER Z_DA_ZBOOK_ZSHELF_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW WHEN NEW.ZSHELF IS NOT NULL \
            BEGIN UPDATE ZSHELF SET ZBOOKCOUNT = IFNULL(ZBOOKCOUNT, 0) + 1 WHERE Z_PK = NEW.ZSHELF; \
            SELECT NSCoreDataTriggerUpdateAffectedObjectValue('ZSHELF', Z_ENT, Z_PK, 'bookCount', ZBOOKCOUNT) FROM ZSHELF WHERE Z_PK = NEW.ZSHELF; END;
            """)
        do {
            let context = try PhotoModel.stack(at: url, model: Self.model())
            let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            for title in ["Salt", "Fat"] {
                let book = try context.insertNewObject(forEntityName: "Book")
                book.setValue(title, forKey: "title")
                book.setValue(shelf, forKey: "shelf")
            }
            try context.save()
        }
        #expect(try sqliteQuery(url, "SELECT ZBOOKCOUNT FROM ZSHELF") == ["2"])
        let context = try PhotoModel.stack(at: url, model: Self.model())
        let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        #expect(shelf.value(forKey: "bookCount") as? Int64 == 2)
    }
}
