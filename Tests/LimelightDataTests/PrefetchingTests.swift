import Foundation
import Testing
@testable import LimelightData

/// `relationshipKeyPathsForPrefetching` loads related objects with one query per relationship.
@Suite struct PrefetchingTests {
    /// A fresh context over the filled library store, so nothing is registered yet.
    static func library(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let url = folder.file("library.sqlite")
        try LibraryModel.fill(try LibraryModel.stack(at: url))
        return try LibraryModel.stack(at: url)
    }

    @Test func toOnePrefetchIsOneQueryAndFollowingItNeedsNone() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.relationshipKeyPathsForPrefetching = ["author"]
        let (books, fetchStatements) = try log.during { try context.fetch(request) }
        #expect(fetchStatements.count == 2)
        #expect(fetchStatements.last?.contains("FROM ZAUTHOR t0 WHERE t0.Z_PK IN (") == true)
        let (names, walkStatements) = log.during {
            books.map { ($0.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String }
        }
        #expect(walkStatements.isEmpty)
        #expect(Set(names.compactMap { $0 }) == Set(LibraryModel.books.map(\.author)))
    }

    @Test func withoutPrefetchingEachFaultIsItsOwnQuery() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let log = try StatementLog(context)
        let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
        let (_, walkStatements) = log.during {
            books.forEach { _ = ($0.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") }
        }
        // At least one single-row query per distinct author (more when a fault went away between books).
        #expect(walkStatements.count >= Set(LibraryModel.books.map(\.author)).count)
        #expect(walkStatements.allSatisfy { $0.hasSuffix("FROM ZAUTHOR t0 WHERE t0.Z_PK = ?") })
    }

    @Test func toManyPrefetchFillsEveryOwnersSetWithOneQuery() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Author")
        request.relationshipKeyPathsForPrefetching = ["books"]
        let (authors, fetchStatements) = try log.during { try context.fetch(request) }
        #expect(fetchStatements.count == 2)
        #expect(fetchStatements.last?.contains("WHERE t0.ZAUTHOR IN (") == true)
        let (titles, walkStatements) = log.during {
            Dictionary(uniqueKeysWithValues: authors.map { author in
                (author.value(forKey: "name") as? String ?? "",
                 Set(((author.value(forKey: "books") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }))
            })
        }
        #expect(walkStatements.isEmpty)
        let expected = Dictionary(grouping: LibraryModel.books, by: \.author).mapValues { Set($0.map(\.title)) }
        #expect(titles == expected)
    }

    @Test func dottedPathsPrefetchEachLevelWithOneQuery() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Friend")
        request.relationshipKeyPathsForPrefetching = ["books.author", "books"]
        let (friends, fetchStatements) = try log.during { try context.fetch(request) }
        #expect(fetchStatements.count == 3)
        let (authors, walkStatements) = log.during {
            friends.flatMap { friend in
                ((friend.value(forKey: "books") as? Set<ManagedObject>) ?? []).compactMap {
                    ($0.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String
                }
            }
        }
        #expect(walkStatements.isEmpty)
        #expect(authors.sorted() == LibraryModel.books.filter { $0.loanedTo != nil }.map(\.author).sorted())
    }

    @Test func batchedResultsPrefetchPerBatch() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")])
        request.fetchBatchSize = 2
        request.relationshipKeyPathsForPrefetching = ["author"]
        let (names, statements) = try log.during {
            try context.fetchBatched(request).map { ($0.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String }
        }
        #expect(names == LibraryModel.books.sorted { $0.title < $1.title }.map(\.author))
        // The IDs, then per batch of two: the books and their authors.
        #expect(statements.count == 1 + 2 * 2)
    }

    @Test func theInMemoryStorePrefetchesToo() throws {
        let context = try LibraryModel.stack(at: nil)
        try LibraryModel.fill(context)
        let request = FetchRequest<ManagedObject>(entityName: "Author", sortDescriptors: [QuerySortDescriptor(key: "name")])
        request.relationshipKeyPathsForPrefetching = ["books.loanedTo"]
        let authors = try context.fetch(request)
        let counts = authors.map { ($0.value(forKey: "books") as? Set<ManagedObject>)?.count ?? -1 }
        let expected = Dictionary(grouping: LibraryModel.books, by: \.author)
        #expect(counts == expected.keys.sorted().map { expected[$0]?.count ?? 0 })
    }

    @Test func anUnknownRelationshipNamesTheEntity() throws {
        let folder = try TemporaryFolder()
        let context = try Self.library(folder)
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.relationshipKeyPathsForPrefetching = ["publisher"]
        let error = #expect(throws: PersistenceError.self) { try context.fetch(request) }
        #expect("\(error.map { $0 } as Any)".contains("entity Book has no relationship 'publisher'"))
    }
}
