import Foundation
import Testing
@testable import LimelightData

/// The persistent history tables as Core Data lays them out: the tables, keys and indexes its own
/// history model gives them, and the older layout without interned strings, which Core Data's
/// stores keep until Core Data (or this framework) next opens them for writing.
@Suite struct PersistentHistoryLayoutTests {
    @Test func theHistoryTablesAreIndexedAsCoreDataIndexesThem() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        _ = try PersistentHistoryTests.context(url)
        let indexes = try sqliteQuery(url, """
            SELECT name || ' ' || substr(sql, instr(sql, ' ON ') + 4) FROM sqlite_master \
            WHERE type = 'index' AND tbl_name LIKE 'A%' AND sql IS NOT NULL ORDER BY name
            """)
        #expect(indexes == [
            "ACHANGE_ZTRANSACTIONID_INDEX ACHANGE (ZTRANSACTIONID)",
            "ATRANSACTION_ZAUTHORTS_INDEX ATRANSACTION (ZAUTHORTS)",
            "ATRANSACTION_ZBUNDLEIDTS_INDEX ATRANSACTION (ZBUNDLEIDTS)",
            "ATRANSACTION_ZCONTEXTNAMETS_INDEX ATRANSACTION (ZCONTEXTNAMETS)",
            "ATRANSACTION_ZPROCESSIDTS_INDEX ATRANSACTION (ZPROCESSIDTS)",
            "Z_TRANSACTIONSTRING_UNIQUE_NAME ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
            "Z_TRANSACTION_TransactionAuthorIndex ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "Z_TRANSACTION_TransactionTimestampIndex ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        ])
        #expect(try sqliteQuery(url, "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            == ["16001 CHANGE 0", "16002 TRANSACTION 0", "16003 TRANSACTIONSTRING 0"])
    }

    /// History written before Core Data interned a transaction's names: `ATRANSACTION` keeps
    /// them in its `VARCHAR` columns, with no `…TS` keys and no `ATRANSACTIONSTRING`. Every save
    /// into such a store used to fail ("no such table: ATRANSACTIONSTRING"), and reading its
    /// history failed on the missing keys.
    @Test func historyWithoutInternedStringsIsReadAndBroughtUpToDate() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        do {
            let context = try PersistentHistoryTests.context(url)
            try context.performAndWait {
                try context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
                try context.save()
            }
        }
        try ExternalBinaryDataTests.sqliteWrite(url, """
            UPDATE ATRANSACTION SET ZAUTHOR = 'importer', ZCONTEXTNAME = 'editor';
            DROP TABLE ATRANSACTIONSTRING; DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'TRANSACTIONSTRING';
            DROP INDEX ATRANSACTION_ZAUTHORTS_INDEX; DROP INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX;
            DROP INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX; DROP INDEX ATRANSACTION_ZPROCESSIDTS_INDEX;
            ALTER TABLE ATRANSACTION DROP COLUMN ZAUTHORTS; ALTER TABLE ATRANSACTION DROP COLUMN ZBUNDLEIDTS;
            ALTER TABLE ATRANSACTION DROP COLUMN ZCONTEXTNAMETS; ALTER TABLE ATRANSACTION DROP COLUMN ZPROCESSIDTS;
            """)
        let before = try Data(contentsOf: url)
        // Read-only, the layout stays as it is and the names come from the plain columns.
        let reader = try PersistentHistoryTests.context(url, options: [StoreOption.readOnly: true])
        try reader.performAndWait {
            let transactions = try PersistentHistoryTests.transactions(reader)
            #expect(transactions.map(\.author) == ["importer"] && transactions.map(\.contextName) == ["editor"])
        }
        #expect(try Data(contentsOf: url) == before)
        let context = try PersistentHistoryTests.context(url)
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try context.save()
            let transactions = try PersistentHistoryTests.transactions(context)
            #expect(transactions.map(\.author) == ["importer", "importer"])
            #expect(transactions.map { $0.changes?.count } == [1, 1])
        }
        #expect(try sqliteQuery(url, "SELECT count(*) FROM pragma_table_info('ATRANSACTION') WHERE name LIKE 'Z%TS'") == ["4"])
        #expect(try sqliteQuery(url, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ATRANSACTION_Z%TS_INDEX'") == ["4"])
        #expect(try sqliteQuery(url, "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT = 16003") == ["TRANSACTIONSTRING"])
    }
}
