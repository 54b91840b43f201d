import Foundation
import Testing
@testable import LimelightData

/// A history request narrowed by a fetch request on transactions or changes, the way Core Data
/// code filters the history it reads (`request.fetchRequest = NSPersistentHistoryTransaction.fetchRequest!`).
@Suite struct PersistentHistoryFetchRequestTests {
    /// Three saves: the importer's person and photo, the app's person, the importer's photo.
    static func store(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let url = folder.file("people.sqlite")
        let context = try PersistentHistoryTests.context(url)
        let app = try PersistentHistoryTests.context(url)
        app.transactionAuthor = "app"
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Person").setValue("Ada", forKey: "firstName")
            try context.insertNewObject(forEntityName: "Photo").setValue("Engine", forKey: "name")
            try context.save()
        }
        try app.performAndWait {
            try app.insertNewObject(forEntityName: "Person").setValue("Grace", forKey: "firstName")
            try app.save()
        }
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Photo").setValue("Loom", forKey: "name")
            try context.save()
        }
        return context
    }

    static func transactions(_ context: ManagedObjectContext, _ request: PersistentHistoryChangeRequest) throws -> [PersistentHistoryTransaction] {
        try context.performAndWait { try context.execute(request).result as? [PersistentHistoryTransaction] ?? [] }
    }

    @Test func aFetchRequestOnTransactionsKeepsThoseItsPredicateMatches() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(folder)
        let notMine = try #require(PersistentHistoryTransaction.fetchRequest)
        notMine.predicate = try QueryPredicate(format: "author != %@", "app")
        let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        request.fetchRequest = notMine
        let kept = try Self.transactions(context, request)
        #expect(kept.map(\.transactionNumber) == [1, 3])
        #expect(kept.first?.changes?.count == 2)

        // Its limit keeps the first so many; a token from the last read moves on from there.
        notMine.fetchLimit = 1
        let first = try Self.transactions(context, request)
        #expect(first.map(\.transactionNumber) == [1])
        let next = PersistentHistoryChangeRequest.fetchHistory(after: first.last?.token)
        next.fetchRequest = notMine
        #expect(try Self.transactions(context, next).map(\.transactionNumber) == [3])

        // It narrows the request's own predicate rather than replacing it.
        request.transactionPredicate = try QueryPredicate(format: "transactionNumber > 1")
        notMine.fetchLimit = 0
        #expect(try Self.transactions(context, request).map(\.transactionNumber) == [3])
    }

    @Test func aFetchRequestOnChangesKeepsThoseItsPredicateMatches() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(folder)
        let photos = try #require(PersistentHistoryChange.fetchRequest)
        photos.predicate = try QueryPredicate(format: "entityName == 'Photo'")
        let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        request.fetchRequest = photos
        let kept = try Self.transactions(context, request)
        #expect(kept.map(\.transactionNumber) == [1, 3])
        #expect(kept.allSatisfy { $0.changes?.map(\.changedObjectID.entity.name) == ["Photo"] })
    }

    @Test func aFetchRequestOnAnythingElseIsRefusedByName() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(folder)
        let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        request.fetchRequest = FetchRequest<FetchRequestResult>(entityName: "Person")
        do {
            _ = try Self.transactions(context, request)
            Issue.record("a history request on Person was answered")
        } catch PersistenceError.invalidRequest(let reason) {
            #expect(reason.contains("not Person"))
        }
    }
}
