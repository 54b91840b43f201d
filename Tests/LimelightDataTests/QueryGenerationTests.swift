import Foundation
import Testing
@testable import LimelightData

/// Query generations: contexts pinned to a snapshot of real SQLite stores while other contexts,
/// and other coordinators on the same file, save.
struct QueryGenerationTests {
    static func model() -> ManagedObjectModel {
        let list = EntityDescription(name: "List", properties: [AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "list", toMany: true)])
        let item = EntityDescription(name: "Item", properties: [AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "list", destination: "List", inverse: "items")])
        return ManagedObjectModel(entities: [list, item])
    }

    struct Stack {
        let folder: TemporaryFolder
        let coordinator: PersistentStoreCoordinator
        var url: URL { folder.file("lists.sqlite") }

        init(folder: TemporaryFolder? = nil) throws {
            self.folder = try folder ?? TemporaryFolder()
            coordinator = try PersistentStoreCoordinator(managedObjectModel: QueryGenerationTests.model())
            try coordinator.addPersistentStore(type: .sqlite, at: self.folder.file("lists.sqlite"))
        }

        func context() -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return context
        }
    }

    func count(_ context: ManagedObjectContext, _ entity: String = "Item") throws -> Int {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).count
    }

    func addItems(_ names: [String], to list: ManagedObject? = nil, in context: ManagedObjectContext) throws {
        for name in names {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(name, forKey: "name")
            if let list { item.setValue(list, forKey: "list") }
        }
        try context.save()
    }

    @Test func aPinnedContextReadsItsSnapshotUntilItMovesOn() throws {
        let stack = try Stack()
        let writer = stack.context()
        let list = try writer.insertNewObject(forEntityName: "List")
        list.setValue("Groceries", forKey: "title")
        try addItems(["milk", "eggs", "bread"], to: list, in: writer)

        let reader = stack.context()
        try reader.setQueryGenerationFrom(.current)
        #expect(reader.queryGenerationToken != nil)
        #expect(try count(reader) == 3)
        let readerList = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "List")).first)

        try addItems(["tea", "jam"], to: list, in: writer)
        list.setValue("Shopping", forKey: "title")
        try writer.save()
        // Fetches, counts, re-read objects and to-many faults all come from the snapshot.
        #expect(try count(reader) == 3)
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 3)
        reader.refresh(readerList, mergeChanges: false)
        #expect(readerList.value(forKey: "title") as? String == "Groceries")
        #expect((readerList.value(forKey: "items") as? Set<ManagedObject>)?.count == 3)
        // An unpinned context sees it all.
        #expect(try count(stack.context()) == 5)

        // Refreshing everything moves a context pinned with `.current` on.
        reader.refreshAllObjects()
        #expect(try count(reader) == 5)
        #expect(readerList.value(forKey: "title") as? String == "Shopping")
        try addItems(["salt"], in: writer)
        #expect(try count(reader) == 5)
        // So do a save of its own and a reset.
        try addItems(["pepper"], in: reader)
        #expect(try count(reader) == 7)
        try addItems(["oil"], in: writer)
        reader.reset()
        #expect(try count(reader) == 8)
        try reader.setQueryGenerationFrom(nil)
        #expect(reader.queryGenerationToken == nil)
        try addItems(["rice"], in: writer)
        #expect(try count(reader) == 9)
    }

    @Test func aContextIsPinnedAtItsNextReadNotWhenAsked() throws {
        let stack = try Stack()
        let writer = stack.context()
        try addItems(["a"], in: writer)
        let reader = stack.context()
        try reader.setQueryGenerationFrom(.current)
        try addItems(["b"], in: writer)
        #expect(try count(reader) == 2)
        try addItems(["c"], in: writer)
        #expect(try count(reader) == 2)
    }

    @Test func aSharedTokenKeepsItsSnapshot() throws {
        let stack = try Stack()
        let writer = stack.context()
        try addItems(["a", "b"], in: writer)
        let first = stack.context()
        try first.setQueryGenerationFrom(.current)
        #expect(try count(first) == 2)
        let token = try #require(first.queryGenerationToken)
        try addItems(["c"], in: writer)

        let second = stack.context()
        try second.setQueryGenerationFrom(token)
        #expect(second.queryGenerationToken == token)
        #expect(try count(second) == 2)
        // A context given a token keeps it through a reset; the one pinned with `.current` moves on.
        second.reset()
        first.reset()
        #expect(try count(second) == 2)
        #expect(try count(first) == 3)
        #expect(first.queryGenerationToken != token)
        #expect("\(token)".hasPrefix("QueryGenerationToken("))

        // Tokens belong to their coordinator.
        let other = try Stack(folder: stack.folder)
        #expect(throws: PersistenceError.self) { try other.context().setQueryGenerationFrom(token) }
    }

    /// Another coordinator on the same file stands for another process.
    @Test func savesOfAnotherCoordinatorWaitForTheNextGeneration() throws {
        let stack = try Stack()
        try addItems(["a"], in: stack.context())
        let reader = stack.context()
        try reader.setQueryGenerationFrom(.current)
        #expect(try count(reader) == 1)
        let elsewhere = try Stack(folder: stack.folder)
        try addItems(["b", "c"], in: elsewhere.context())
        #expect(try count(reader) == 1)
        reader.mergeChanges(fromContextDidSave: Notification(name: ManagedObjectContext.didSaveObjectIDsNotification))
        #expect(try count(reader) == 3)
    }

    @Test func aStoreOutsideWALModeHasNoGenerations() throws {
        let folder = try TemporaryFolder()
        do {
            let stack = try Stack(folder: folder)
            try addItems(["a"], in: stack.context())
        }
        let db = try SQLiteConnection(path: folder.file("lists.sqlite").path, readOnly: false)
        try db.execute("PRAGMA journal_mode=DELETE")
        db.close()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("lists.sqlite"), options: [StoreOption.readOnly: true])
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.setQueryGenerationFrom(.current)
        let error = try #require(throws: PersistenceError.self) { try count(reader) }
        #expect("\(error)".contains("WAL") && "\(error)".contains("lists.sqlite"))
        try reader.setQueryGenerationFrom(nil)
        #expect(try count(reader) == 1)
    }
}
