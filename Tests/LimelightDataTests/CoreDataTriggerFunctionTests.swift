import Foundation
import Testing
@testable import LimelightData

/// The SQL functions that triggers kept in Core Data's stores call: a store holding such a
/// trigger is saved to through it, or refused with a message naming what stopped the save.
@Suite struct CoreDataTriggerFunctionTests {
    /// A memo whose `text` Core Data derives from `body`, an attribute in its mergeable string
    /// storage: the two triggers Core Data keeps for it, in the shape it writes them.
    static let mergeableTriggers = """
        CREATE TRIGGER IF NOT EXISTS Z_DA_ZMEMO_Memo_text_INSERT AFTER INSERT ON ZMEMO FOR EACH ROW WHEN (NEW.ZBODY NOT NULL) \
        BEGIN UPDATE ZMEMO SET ZTEXT = NSCoreDataDATriggerMergeableString('ZMEMO', Z_ENT, Z_PK, 'text', ZBODY) WHERE Z_PK = NEW.Z_PK; \
        SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZMEMO', Z_ENT, Z_PK, 'text', ZTEXT) FROM ZMEMO WHERE Z_PK = NEW.Z_PK; END;
        CREATE TRIGGER IF NOT EXISTS Z_DA_ZMEMO_Memo_text_UPDATE AFTER UPDATE OF ZBODY ON ZMEMO FOR EACH ROW \
        BEGIN UPDATE ZMEMO SET ZTEXT = NSCoreDataDATriggerMergeableString('ZMEMO', Z_ENT, Z_PK, 'text', ZBODY) WHERE Z_PK = NEW.Z_PK; \
        SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZMEMO', Z_ENT, Z_PK, 'text', ZTEXT) FROM ZMEMO WHERE Z_PK = NEW.Z_PK; END;
        """

    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Memo", properties: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "body", type: .binaryData),
            AttributeDescription(name: "text", type: .string),
        ])])
    }

    /// Before `NSCoreDataDATriggerMergeableString` was registered, every save touching a memo's
    /// body failed with "no such function"; now a body cleared saves (no value derives none),
    /// and a body set is refused naming the table and attribute, with nothing written.
    @Test func aMergeableStringTriggerRunsOrSaysWhyItCannot() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("memos.sqlite")
        do {
            let context = try TestStack.context(model: Self.model(), at: url)
            try context.performAndWait {
                try context.insertNewObject(forEntityName: "Memo").setValue("Shopping", forKey: "title")
                try context.save()
            }
        }
        // A memo as Core Data wrote it: its body in mergeable storage, its text derived.
        try ExternalBinaryDataTests.sqliteWrite(url, "UPDATE ZMEMO SET ZBODY = x'0a0362726561640a', ZTEXT = 'bread';" + Self.mergeableTriggers)
        let context = try TestStack.context(model: Self.model(), at: url)
        try context.performAndWait {
            let memo = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Memo")).first)
            memo.setValue("Groceries", forKey: "title")
            try context.save()
            memo.setValue(nil, forKey: "body")
            try context.save()
            let added = try context.insertNewObject(forEntityName: "Memo")
            added.setValue("Errands", forKey: "title")
            try context.save()
            added.setValue(Data([0x0a, 0x01]), forKey: "body")
            let error = #expect(throws: PersistenceError.self) { try context.save() }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("NSCoreDataDATriggerMergeableString: ZMEMO.text") && message.contains("mergeable string storage"))
        }
        #expect(try sqliteQuery(url, "SELECT ZTITLE || '|' || typeof(ZBODY) || '|' || typeof(ZTEXT) FROM ZMEMO ORDER BY Z_PK")
            == ["Groceries|null|null", "Errands|null|null"])
    }
}
