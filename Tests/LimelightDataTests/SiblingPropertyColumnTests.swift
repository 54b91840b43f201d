import Foundation
import Testing
@testable import LimelightData

/// Subentities of one parent that each declare a property of the same name (a blog's comments
/// and a reader's comments both have a `post`) have columns of their own, numbered as Core Data
/// numbers them (ZPOST, ZPOST1); stores made by earlier versions of this framework, which shared
/// one column among them, are still read and written in that layout, and migrate to Core Data's.
@Suite struct SiblingPropertyColumnTests {
    /// Remarks: replies about articles and reviews about products, each with an indexed score.
    static func model(withMood: Bool) -> ManagedObjectModel {
        var remarkProperties: [PropertyDescription] = [AttributeDescription(name: "text", type: .string)]
        if withMood { remarkProperties.append(AttributeDescription(name: "mood", type: .string)) }
        let remark = EntityDescription(name: "Remark", properties: remarkProperties)
        remark.isAbstract = true
        func score() -> AttributeDescription {
            let score = AttributeDescription(name: "score", type: .integer32)
            score.isIndexed = true
            return score
        }
        let reply = EntityDescription(name: "Reply", properties: [
            score(), RelationshipDescription(name: "about", destination: "Article", inverse: "replies"),
        ], parent: "Remark")
        let review = EntityDescription(name: "Review", properties: [
            score(), RelationshipDescription(name: "about", destination: "Product", inverse: "reviews"),
        ], parent: "Remark")
        let article = EntityDescription(name: "Article", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "replies", destination: "Reply", inverse: "about", toMany: true),
        ])
        let product = EntityDescription(name: "Product", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "reviews", destination: "Review", inverse: "about", toMany: true),
        ])
        return ManagedObjectModel(entities: [remark, reply, review, article, product])
    }

    static func fill(_ url: URL) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model(withMood: false))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let article = try context.insertNewObject(forEntityName: "Article")
            article.setValue("Über Käse", forKey: "title")
            let product = try context.insertNewObject(forEntityName: "Product")
            product.setValue("Crème", forKey: "title")
            let reply = try context.insertNewObject(forEntityName: "Reply")
            reply.setValue("très bien", forKey: "text")
            reply.setValue(Int32(4), forKey: "score")
            reply.setValue(article, forKey: "about")
            let review = try context.insertNewObject(forEntityName: "Review")
            review.setValue(Int32(2), forKey: "score")
            review.setValue(product, forKey: "about")
            try context.save()
        }
        coordinator.remove(store)
    }

    /// Each reply and review with its score and what it is about, read from a fresh coordinator.
    static func remarks(_ url: URL, model: ManagedObjectModel, options: [String: any Sendable]? = nil) throws -> [String] {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Remark")).map { remark in
                let about = remark.value(forKey: "about") as? ManagedObject
                return "\(remark.entity.name) \(remark.value(forKey: "text") as? String ?? "-") "
                    + "\(remark.value(forKey: "score") as? Int32 ?? -1) \(about?.value(forKey: "title") as? String ?? "-")"
            }.sorted()
        }
    }

    /// Runs the `sqlite3` program on a store, as another tool changing the file would.
    static func sqlite(_ url: URL, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func eachSiblingsPropertyHasANumberedColumnOfItsOwnAsInCoreData() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("remarks.sqlite")
        try Self.fill(url)
        // Reply comes before Review: its properties keep the plain names.
        let columns = try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZREMARK') ORDER BY cid")
        // Listed as Core Data lists them: integers and keys entity by entity, then strings.
        #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZSCORE", "ZABOUT", "ZSCORE1", "ZABOUT1", "ZTEXT"])
        #expect(try sqliteQuery(url, "SELECT ZSCORE, ZABOUT, ZSCORE1, ZABOUT1 FROM ZREMARK ORDER BY Z_ENT") == ["4|1||", "||2|1"])
        let indexes = try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZREMARK' ORDER BY name")
        #expect(indexes == ["ZREMARK_ZABOUT1_INDEX", "ZREMARK_ZABOUT_INDEX", "ZREMARK_Z_ENT_INDEX", "Z_Reply_score", "Z_Review_score"])
        #expect(try sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE name = 'Z_Review_score'") == ["CREATE INDEX Z_Review_score ON ZREMARK (ZSCORE1 COLLATE BINARY ASC)"])
        #expect(try Self.remarks(url, model: Self.model(withMood: false)) == ["Reply très bien 4 Über Käse", "Review - 2 Crème"])
    }

    /// Two to-ones of one name into an inheritance tree: the column of the destination's entity
    /// number is numbered too (Z2_TOPIC, Z2_TOPIC1), after its foreign key.
    @Test func destinationEntityColumnsAreNumberedAfterTheirForeignKeys() throws {
        let topic = EntityDescription(name: "Topic", properties: [AttributeDescription(name: "title", type: .string)])
        let event = EntityDescription(name: "Event", properties: [AttributeDescription(name: "place", type: .string)], parent: "Topic")
        let note = EntityDescription(name: "Note", properties: [AttributeDescription(name: "text", type: .string)])
        let draft = EntityDescription(name: "Draft", properties: [RelationshipDescription(name: "topic", destination: "Topic")], parent: "Note")
        let memo = EntityDescription(name: "Memo", properties: [
            AttributeDescription(name: "text2", type: .string), RelationshipDescription(name: "topic", destination: "Topic"),
        ], parent: "Note")
        let model = ManagedObjectModel(entities: [topic, event, note, draft, memo])
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try TestStack.context(model: model, at: url)
        try context.performAndWait {
            let party = try context.insertNewObject(forEntityName: "Event")
            party.setValue("Garden", forKey: "place")
            let plain = try context.insertNewObject(forEntityName: "Topic")
            plain.setValue("Plain", forKey: "title")
            let first = try context.insertNewObject(forEntityName: "Draft")
            first.setValue(party, forKey: "topic")
            let second = try context.insertNewObject(forEntityName: "Memo")
            second.setValue(plain, forKey: "topic")
            try context.save()
        }
        // Entity numbers: Note 1, Draft 2, Memo 3, Topic 4, Event 5.
        let columns = try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZNOTE') ORDER BY cid")
        #expect(columns == ["Z_PK", "Z_ENT", "Z_OPT", "ZTOPIC", "Z4_TOPIC", "ZTOPIC1", "Z4_TOPIC1", "ZTEXT", "ZTEXT2"])
        #expect(try sqliteQuery(url, "SELECT Z_ENT, ZTOPIC IS NOT NULL, Z4_TOPIC, ZTOPIC1 IS NOT NULL, Z4_TOPIC1 FROM ZNOTE ORDER BY Z_ENT")
                == ["2|1|5|0|", "3|0||1|4"])
        let other = try TestStack.context(model: model, at: url)
        let topics = try other.performAndWait {
            try other.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { note in
                let topic = note.value(forKey: "topic") as? ManagedObject
                return "\(note.entity.name) → \(topic?.entity.name ?? "-") \(topic?.value(forKey: "title") as? String ?? topic?.value(forKey: "place") as? String ?? "-")"
            }.sorted()
        }
        #expect(topics == ["Draft → Event Garden", "Memo → Topic Plain"])
        let matched = try other.performAndWait {
            try other.fetch(FetchRequest<ManagedObject>(entityName: "Memo", predicate: QueryPredicate(format: "topic.title == 'Plain'"))).count
        }
        #expect(matched == 1)
    }

    /// A store made when siblings shared one column (ZSCORE for both) is read and written in
    /// that layout, and migrating it to a new version moves each value into its own column.
    @Test func aStoreWhoseSiblingsShareAColumnIsReadWrittenAndMigrated() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("remarks.sqlite")
        try Self.fill(url)
        // The earlier layout: the review's values in the shared columns, no numbered ones.
        try Self.sqlite(url, """
            UPDATE ZREMARK SET ZSCORE = ZSCORE1, ZABOUT = ZABOUT1 WHERE ZSCORE1 IS NOT NULL;
            DROP INDEX Z_Review_score; DROP INDEX ZREMARK_ZABOUT1_INDEX;
            ALTER TABLE ZREMARK DROP COLUMN ZSCORE1; ALTER TABLE ZREMARK DROP COLUMN ZABOUT1;
            """)
        let expected = ["Reply très bien 4 Über Käse", "Review - 2 Crème"]
        #expect(try Self.remarks(url, model: Self.model(withMood: false)) == expected)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model(withMood: false))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let review = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Review")).first)
            review.setValue(Int32(3), forKey: "score")
            try context.save()
        }
        coordinator.remove(store)
        #expect(try sqliteQuery(url, "SELECT ZSCORE FROM ZREMARK ORDER BY Z_ENT") == ["4", "3"])

        let options: [String: any Sendable] = [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: [Self.model(withMood: false)],
        ]
        #expect(try Self.remarks(url, model: Self.model(withMood: true), options: options)
                == ["Reply très bien 4 Über Käse", "Review - 3 Crème"])
        #expect(try sqliteQuery(url, "SELECT ZSCORE, ZABOUT, ZSCORE1, ZABOUT1 FROM ZREMARK ORDER BY Z_ENT") == ["4|1||", "||3|1"])
    }

    @Test func aStoreMigratesToAVersionWithSiblingColumns() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("remarks.sqlite")
        try Self.fill(url)
        let options: [String: any Sendable] = [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
            StoreOption.migrationSourceModels: [Self.model(withMood: false)],
        ]
        let expected = ["Reply très bien 4 Über Käse", "Review - 2 Crème"]
        #expect(try Self.remarks(url, model: Self.model(withMood: true), options: options) == expected)
        // The migrated store opens again without migrating and takes a change.
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model(withMood: true))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let reply = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Reply")).first)
            reply.setValue("heiter", forKey: "mood")
            try context.save()
        }
        coordinator.remove(store)
        let moods = try sqliteQuery(url, "SELECT ZMOOD FROM ZREMARK WHERE ZMOOD IS NOT NULL")
        #expect(moods == ["heiter"])
    }
}
