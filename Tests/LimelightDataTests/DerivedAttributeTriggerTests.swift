import Foundation
import Testing
@testable import LimelightData

/// Derived attributes kept right in the store by its triggers, for writers that bypass contexts:
/// batch requests, and other programs writing the file.
struct DerivedAttributeTriggerTests {
    let orders = DerivedAttributeTests()

    func context(_ url: URL) throws -> ManagedObjectContext { try TestStack.context(model: try orders.model(), at: url) }

    /// Each order's derived columns, as the store holds them: `customer|customerKey|shout|itemCount|total`.
    func stored(_ url: URL) throws -> [String] {
        try sqliteQuery(url, "SELECT ZCUSTOMER || '|' || IFNULL(ZCUSTOMERKEY, 'NULL') || '|' || IFNULL(ZSHOUT, 'NULL') || '|' || IFNULL(ZITEMCOUNT, 'NULL') || '|' || IFNULL(ZTOTAL, 'NULL') FROM ZORDER ORDER BY Z_PK")
    }

    /// The order's `touched` column, in seconds since 2001.
    func touchedSeconds(_ url: URL) throws -> Double {
        let text = try #require(try sqliteQuery(url, "SELECT ZTOUCHED FROM ZORDER").first)
        return try #require(Double(text))
    }

    @Test func batchRequestsLeaveDerivedAttributesRight() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("orders.sqlite")
        let context = try context(url)
        _ = try context.execute(BatchInsertRequest(entityName: "Order", objects: [["customer": "Zoë Smith"], ["customer": "Ål Berg"]]))
        #expect(try stored(url) == ["Zoë Smith|zoe smith|ZOË SMITH|0|0.0", "Ål Berg|al berg|ÅL BERG|0|0.0"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM ZORDER WHERE ZTOUCHED IS NULL") == ["0"])

        let order = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Order", predicate: try QueryPredicate(format: "customer == 'Zoë Smith'"))).first)
        for price in [2.5, 4.0] { _ = try orders.item(price, in: order, context) }
        try context.save()
        #expect(try stored(url).first == "Zoë Smith|zoe smith|ZOË SMITH|2|6.5")

        // A batch update of what a derivation reads: the order's total, the items' copy of its customer.
        let prices = BatchUpdateRequest(entityName: "Item")
        prices.propertiesToUpdate = ["price": 10.0]
        _ = try context.execute(prices)
        #expect(try stored(url).first == "Zoë Smith|zoe smith|ZOË SMITH|2|20.0")
        let rename = BatchUpdateRequest(entityName: "Order")
        rename.predicate = try QueryPredicate(format: "customer == 'Zoë Smith'")
        rename.propertiesToUpdate = ["customer": "Émile Zola"]
        _ = try context.execute(rename)
        #expect(try stored(url).first == "Émile Zola|emile zola|ÉMILE ZOLA|2|20.0")
        #expect(try sqliteQuery(url, "SELECT DISTINCT ZORDEREDBY FROM ZITEM") == ["Émile Zola"])

        // A batch delete of one item: the aggregates over the to-many follow.
        let first = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).first)
        #expect(try context.execute(BatchDeleteRequest(objectIDs: [first.objectID])).count == 1)
        #expect(try stored(url).first == "Émile Zola|emile zola|ÉMILE ZOLA|1|10.0")

        // Another program's writes of what a derivation reads (the sqlite3 shell, which knows
        // none of the store's functions) are followed, and a derived column it sets is corrected.
        try ExternalBinaryDataTests.sqliteWrite(url, "DELETE FROM ZORDER WHERE ZCUSTOMER = 'Émile Zola'")
        #expect(try sqliteQuery(url, "SELECT IFNULL(ZORDEREDBY, 'NULL') FROM ZITEM") == ["NULL"])
        try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZORDER SET ZITEMCOUNT = 99")
        #expect(try stored(url) == ["Ål Berg|al berg|ÅL BERG|0|0.0"])
        let shout = BatchUpdateRequest(entityName: "Order")
        shout.propertiesToUpdate = ["shout": "no"]
        _ = try context.execute(shout)
        #expect(try stored(url) == ["Ål Berg|al berg|ÅL BERG|0|0.0"])
        try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZITEM SET ZORDER = (SELECT Z_PK FROM ZORDER), ZPRICE = 3")
        #expect(try stored(url) == ["Ål Berg|al berg|ÅL BERG|1|3.0"])
        #expect(try sqliteQuery(url, "SELECT ZORDEREDBY FROM ZITEM") == ["Ål Berg"])
    }

    @Test func aContextSaveAndTheTriggersAgree() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("orders.sqlite")
        let context = try context(url)
        let order = try context.insertNewObject(forEntityName: "Order")
        order.setValue("Zoë Smith", forKey: "customer")
        let item = try orders.item(2.5, in: order, context)
        try context.save()
        // The time the context set is the one stored: the triggers did not set it again.
        let touched = try #require(order.value(forKey: "touched") as? Date)
        let seconds = try touchedSeconds(url)
        // The shell prints 15 digits; SQLite's clock has milliseconds, the context's microseconds.
        #expect(abs(seconds - touched.timeIntervalSinceReferenceDate) < 0.000_01)
        item.setValue(7.5, forKey: "price")
        try context.save()
        #expect(try stored(url) == ["Zoë Smith|zoe smith|ZOË SMITH|1|7.5"])
        #expect(order.value(forKey: "total") as? Double == 7.5)

        // A batch update changes the row without a context: its time is taken in the store.
        let update = BatchUpdateRequest(entityName: "Order")
        update.propertiesToUpdate = ["customer": "Zoe"]
        _ = try context.execute(update)
        let later = try touchedSeconds(url)
        #expect(later > seconds)
    }

    @Test func aStoreWithoutTheTriggersGainsThemAndItsValuesAreBroughtUpToDate() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("orders.sqlite")
        do {
            let context = try context(url)
            let order = try context.insertNewObject(forEntityName: "Order")
            order.setValue("Zoë Smith", forKey: "customer")
            _ = try orders.item(2.5, in: order, context)
            try context.save()
        }
        let triggers = try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        #expect(!triggers.isEmpty && triggers.allSatisfy { $0.hasPrefix(SQLiteSchema.derivedTriggerPrefix) })
        // As a store made before the triggers were: none, and a value no save corrected.
        try ExternalBinaryDataTests.sqliteWrite(url, triggers.map { "DROP TRIGGER \($0);" }.joined() + "UPDATE ZORDER SET ZITEMCOUNT = 5")
        let context = try context(url)
        #expect(try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") == triggers)
        #expect(try stored(url) == ["Zoë Smith|zoe smith|ZOË SMITH|1|2.5"])
        // Opening again writes nothing: the triggers are in place.
        let before = try Data(contentsOf: url)
        _ = try self.context(url).fetch(FetchRequest<ManagedObject>(entityName: "Order"))
        #expect(try Data(contentsOf: url) == before)
        _ = context
    }

    @Test func aStoreKeepingItsOwnCoreDataTriggersGetsNoneOfOurs() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("orders.sqlite")
        do { _ = try context(url).fetch(FetchRequest<ManagedObject>(entityName: "Order")) }
        let ours = try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'trigger'")
        // The shape of Core Data's trigger for a derived count.
        try ExternalBinaryDataTests.sqliteWrite(url, ours.map { "DROP TRIGGER \($0);" }.joined() + """
            CREATE TRIGGER IF NOT EXISTS Z_DA_ZITEM_ZORDER_INSERT AFTER INSERT ON ZITEM FOR EACH ROW WHEN NEW.ZORDER IS NOT NULL \
            BEGIN UPDATE ZORDER SET ZITEMCOUNT = IFNULL(ZITEMCOUNT, 0) + 1 WHERE Z_PK = NEW.ZORDER; \
            SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZORDER', Z_ENT, Z_PK, 'itemCount', ZITEMCOUNT) FROM ZORDER WHERE Z_PK = NEW.ZORDER; END;
            """)
        let context = try context(url)
        let order = try context.insertNewObject(forEntityName: "Order")
        _ = try orders.item(1, in: order, context)
        try context.save()
        #expect(try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'trigger'") == ["Z_DA_ZITEM_ZORDER_INSERT"])
    }

    @Test func aCountOverAManyToManyFollowsItsJoinRows() throws {
        let noteCount = AttributeDescription(name: "noteCount", type: .integer64)
        noteCount.derivationExpression = .keyPath("notes.@count")
        let wordTotal = AttributeDescription(name: "wordTotal", type: .integer64)
        wordTotal.derivationExpression = .keyPath("notes.@sum.words")
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string), noteCount, wordTotal,
            RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
        ])
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "words", type: .integer64),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true),
        ])
        let model = ManagedObjectModel(entities: [tag, note])
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: model, at: url)
        let kitchen = try context.insertNewObject(forEntityName: "Tag")
        for words in [3, 4] {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(Int64(words), forKey: "words")
            note.setValue(Set([kitchen]), forKey: "tags")
        }
        try context.save()
        #expect(try sqliteQuery(url, "SELECT ZNOTECOUNT || '|' || ZWORDTOTAL FROM ZTAG") == ["2|7"])
        let update = BatchUpdateRequest(entityName: "Note")
        update.propertiesToUpdate = ["words": Int64(10)]
        _ = try context.execute(update)
        #expect(try sqliteQuery(url, "SELECT ZNOTECOUNT || '|' || ZWORDTOTAL FROM ZTAG") == ["2|20"])
        let first = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
        _ = try context.execute(BatchDeleteRequest(objectIDs: [first.objectID]))
        #expect(try sqliteQuery(url, "SELECT ZNOTECOUNT || '|' || ZWORDTOTAL FROM ZTAG") == ["1|10"])
    }
}
