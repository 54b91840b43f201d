import Foundation
import Testing
@testable import LimelightData

/// Subentities of one parent that each declare a property of the same name (a blog's comments
/// and a reader's comments both have a `post`) share the column of their table; it is indexed
/// once. Stores of such models could not be made, nor migrated to.
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

    @Test func theSharedColumnIsIndexedOnceAndHoldsEachEntitysValues() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("remarks.sqlite")
        try Self.fill(url)
        let indexes = try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZREMARK' ORDER BY name")
        #expect(indexes.filter { $0 == "ZREMARK_ZABOUT_INDEX" }.count == 1)
        #expect(indexes.filter { $0 == "ZREMARK_ZSCORE_INDEX" }.count == 1)
        #expect(try Self.remarks(url, model: Self.model(withMood: false)) == ["Reply très bien 4 Über Käse", "Review - 2 Crème"])
    }

    @Test func aStoreMigratesToAVersionWhoseSiblingsShareAColumn() throws {
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

    /// A store Core Data made for such a model keeps the later sibling's values in a numbered
    /// column (ZABOUT1): it is refused naming both columns, and left as it was.
    @Test func aStoreWithCoreDatasNumberedSiblingColumnsIsRefused() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("remarks.sqlite")
        try Self.fill(url)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [url.path, "ALTER TABLE ZREMARK ADD COLUMN ZABOUT1 INTEGER"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        let before = try Data(contentsOf: url)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model(withMood: false))
        #expect {
            try coordinator.addPersistentStore(type: .sqlite, at: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains("ZREMARK") && text.contains("(ZABOUT, ZABOUT1)") && text.contains("numbered columns")
        }
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Data(contentsOf: url) == before)
    }
}
