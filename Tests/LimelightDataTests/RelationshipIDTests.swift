import Foundation
import Testing
@testable import LimelightData

/// `objectIDs(forRelationshipNamed:)` gives a relationship's IDs without making its objects.
@Suite struct RelationshipIDTests {
    @Test func idsComeFromBothKindsOfRelationship() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shelves.sqlite")
        // Compared as URIs: each stack here has its own model, and IDs of different models differ.
        var bookIDs: Set<String> = [], shelfID = ""
        do {
            let context = try PhotoModel.stack(at: url, model: CoreDataTriggerTests.model())
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            let books = try (0..<3).map { _ in try context.insertNewObject(forEntityName: "Book") }
            for book in books { book.setValue(shelf, forKey: "shelf") }
            try context.save()
            bookIDs = Set(books.map(\.objectID.uriString))
            shelfID = shelf.objectID.uriString
        }
        let context = try PhotoModel.stack(at: url, model: CoreDataTriggerTests.model())
        let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        #expect(Set(shelf.objectIDs(forRelationshipNamed: "books").map(\.uriString)) == bookIDs)
        let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first)
        #expect(book.objectIDs(forRelationshipNamed: "shelf").map(\.uriString) == [shelfID])
        #expect(book.objectIDs(forRelationshipNamed: "title").isEmpty)
        #expect(book.objectIDs(forRelationshipNamed: "nothing").isEmpty)
    }
}
