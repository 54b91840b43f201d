import Foundation
import Testing
@testable import LimelightData

/// The 2008 talk's read-only-data demo: aggregates and dictionaries computed by SQLite.
@Suite struct LibraryDemoTests {
    let folder: TemporaryFolder
    let context: ManagedObjectContext
    let log: StatementLog
    let objects: [String: ManagedObject]

    init() throws {
        folder = try TemporaryFolder()
        context = try LibraryModel.stack(at: folder.file("library.sqlite"))
        objects = try LibraryModel.fill(context)
        log = try StatementLog(context)
    }

    func id(_ name: String) throws -> ManagedObjectID { try #require(objects[name]).objectID }

    @Test func totalReplacementCostIsASumComputedInSQL() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.resultType = .dictionary
        request.propertiesToFetch = [try ExpressionDescription(name: "total", format: "sum:(replacementCost)", resultType: .double)]
        let (rows, statements) = try log.during { try context.fetchDictionaries(request) }
        let expected = LibraryModel.books.map(\.cost).reduce(0, +)
        #expect(rows.count == 1)
        #expect(rows.first?["total"] as? Double == expected)
        #expect(statements.count == 1)
        #expect(statements.first?.contains("sum(t0.ZREPLACEMENTCOST)") == true)
    }

    @Test func aggregatesComeBackInTheAttributesTypes() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.propertiesToFetch = try [
            ExpressionDescription(name: "first", format: "min:(published)"),
            ExpressionDescription(name: "most", format: "max:(replacementCost)"),
            ExpressionDescription(name: "pages", format: "sum:(pages)"),
            ExpressionDescription(name: "mean", format: "average:(pages)"),
            ExpressionDescription(name: "books", format: "count:(title)"),
        ]
        let row = try #require(try context.fetchDictionaries(request).first)
        #expect(row["first"] as? Date == LibraryModel.books.map(\.published).min())
        #expect(row["most"] as? Double == LibraryModel.books.map(\.cost).max())
        let pages = LibraryModel.books.map { Int64($0.pages) }
        #expect(row["pages"] as? Int64 == pages.reduce(0, +))
        #expect(row["mean"] as? Double == Double(pages.reduce(0, +)) / Double(pages.count))
        #expect(row["books"] as? Int64 == Int64(LibraryModel.books.count))
    }

    @Test func medianModeAndStandardDeviationAreSQLAggregatesToo() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.propertiesToFetch = try [
            ExpressionDescription(name: "median", format: "median:(pages)"),
            ExpressionDescription(name: "mode", format: "mode:(pages)"),
            ExpressionDescription(name: "spread", format: "stddev:(replacementCost)"),
        ]
        let (rows, statements) = try log.during { try context.fetchDictionaries(request) }
        let row = try #require(rows.first)
        let pages = LibraryModel.books.map { Double($0.pages) }.sorted()
        #expect(row["median"] as? Double == (pages[1] + pages[2]) / 2)
        #expect(row["mode"] as? Double == pages.first)
        let costs = LibraryModel.books.map(\.cost)
        let mean = costs.reduce(0, +) / Double(costs.count)
        let spread = (costs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(costs.count)).squareRoot()
        #expect(abs((row["spread"] as? Double ?? 0) - spread) < 1e-9)
        #expect(statements.first?.contains("LL_MEDIAN(t0.ZPAGES)") == true)
    }

    @Test func titlesWithTheObjectIDOfTheFriendTheyAreLoanedTo() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")])
        request.propertiesToFetch = ["title", "loanedTo"]
        let rows = try context.fetchDictionaries(request)
        let expected = LibraryModel.books.sorted { $0.title < $1.title }
        #expect(rows.map { $0["title"] as? String } == expected.map(\.title))
        for (row, book) in zip(rows, expected) {
            #expect(row["loanedTo"] as? ManagedObjectID == (try book.loanedTo.map(id)))
            #expect(row.keys.contains("loanedTo") == (book.loanedTo != nil))
        }
    }

    @Test func propertyDescriptionsAreColumnsToo() throws {
        let book = try #require(context.persistentStoreCoordinator?.managedObjectModel.entity(named: "Book"))
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")])
        request.propertiesToFetch = [try #require(book.property(named: "title")), try #require(book.property(named: "author"))]
        let rows = try context.fetchDictionaries(request)
        let expected = LibraryModel.books.sorted { $0.title < $1.title }
        #expect(rows.map { $0["title"] as? String } == expected.map(\.title))
        #expect(rows.map { $0["author"] as? ManagedObjectID } == (try expected.map { try id($0.author) }))
    }

    @Test func sortingObjectsThroughAToOneHappensInSQL() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "author.name", ascending: false),
                                                                         QuerySortDescriptor(key: "title")])
        request.fetchLimit = 3
        let (books, statements) = try log.during { try context.fetch(request) }
        let expected = LibraryModel.books.sorted { ($0.author, $1.title) > ($1.author, $0.title) }.prefix(3).map(\.title)
        #expect(books.map { $0.value(forKey: "title") as? String } == expected)
        #expect(statements.first?.contains("ORDER BY (SELECT") == true)
        #expect(statements.first?.hasSuffix("LIMIT ? OFFSET ?") == true)
    }

    @Test func evaluatedObjectGivesEachBooksOwnID() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.propertiesToFetch = ["title", ExpressionDescription.objectID(named: "book")]
        let rows = try context.fetchDictionaries(request)
        #expect(rows.count == LibraryModel.books.count)
        for row in rows {
            let title = try #require(row["title"] as? String)
            #expect(row["book"] as? ManagedObjectID == (try id(title)))
        }
        #expect(context.registeredObjects.allSatisfy { $0.isFault || $0.hasChanges || objects.values.contains($0) })
    }

    @Test func groupByLoanedToCountsLoansHavingMoreThanOne() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", predicate: try QueryPredicate(format: "loanedTo != nil"))
        request.propertiesToFetch = ["loanedTo", try ExpressionDescription(name: "count", format: "count:(title)")]
        request.propertiesToGroupBy = ["loanedTo"]
        request.havingPredicate = try QueryPredicate(format: "$count > 1")
        let (rows, statements) = try log.during { try context.fetchDictionaries(request) }
        #expect(rows.count == 1)
        #expect(rows.first?["loanedTo"] as? ManagedObjectID == (try id("Alice")))
        #expect(rows.first?["count"] as? Int64 == 2)
        let sql = try #require(statements.first)
        #expect(sql.contains("GROUP BY") && sql.contains("HAVING count(t0.ZTITLE) > ?"))

        request.havingPredicate = try QueryPredicate(format: "count > 2")
        #expect(try context.fetchDictionaries(request).isEmpty)
    }

    @Test func groupingEveryBookByLoanIncludesTheUnloanedGroup() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "total", ascending: false)])
        request.propertiesToFetch = ["loanedTo", try ExpressionDescription(name: "total", format: "sum:(replacementCost)")]
        request.propertiesToGroupBy = ["loanedTo"]
        let rows = try context.fetchDictionaries(request)
        let lent = LibraryModel.books.filter { $0.loanedTo != nil }.map(\.cost).reduce(0, +)
        let kept = LibraryModel.books.filter { $0.loanedTo == nil }.map(\.cost).reduce(0, +)
        #expect(rows.count == 2)
        #expect(Set(rows.compactMap { $0["total"] as? Double }) == [lent, kept])
        #expect(rows.map { $0["total"] as? Double } == [max(lent, kept), min(lent, kept)])
    }

    @Test func keyPathsThroughToOnesAreJoined() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")])
        request.propertiesToFetch = ["title", "author.name", "loanedTo.name"]
        let (rows, statements) = try log.during { try context.fetchDictionaries(request) }
        let expected = LibraryModel.books.sorted { $0.title < $1.title }
        #expect(rows.map { $0["author.name"] as? String } == expected.map(\.author))
        #expect(rows.map { $0["loanedTo.name"] as? String } == expected.map(\.loanedTo))
        #expect(statements.first?.contains("LEFT JOIN ZAUTHOR") == true)
    }

    @Test func distinctResultsAreSelectedDistinct() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "author.name")])
        request.propertiesToFetch = ["author.name"]
        request.returnsDistinctResults = true
        let (rows, statements) = try log.during { try context.fetchDictionaries(request) }
        #expect(rows.map { $0["author.name"] as? String } == Array(Set(LibraryModel.books.map(\.author))).sorted())
        #expect(statements.first?.hasPrefix("SELECT DISTINCT") == true)
    }

    @Test func limitOffsetAndPredicateApplyToDictionaries() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", predicate: try QueryPredicate(format: "pages > %d", 300),
                                   sortDescriptors: [QuerySortDescriptor(key: "pages")])
        request.propertiesToFetch = ["pages"]
        request.fetchOffset = 1
        request.fetchLimit = 1
        let rows = try context.fetchDictionaries(request)
        let expected = LibraryModel.books.map(\.pages).filter { $0 > 300 }.sorted()
        #expect(rows.map { $0["pages"] as? Int32 } == [expected[1]])
    }

    @Test func misuseNamesTheKeyAndTheEntity() throws {
        let grouped = FetchRequest<ManagedObject>(entityName: "Book")
        grouped.propertiesToFetch = ["loanedTo", "title", try ExpressionDescription(name: "n", format: "count:(title)")]
        grouped.propertiesToGroupBy = ["loanedTo"]
        let groupError = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(grouped) }
        #expect("\(groupError.map { $0 } as Any)".contains("'title' of entity Book"))

        let hidden = FetchRequest<ManagedObject>(entityName: "Book")
        hidden.propertiesToFetch = [try ExpressionDescription(name: "n", format: "count:(title)")]
        hidden.propertiesToGroupBy = ["loanedTo"]
        let hiddenError = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(hidden) }
        #expect("\(hiddenError.map { $0 } as Any)".contains("'loanedTo' of entity Book is in propertiesToGroupBy but not in propertiesToFetch"))

        let unknown = FetchRequest<ManagedObject>(entityName: "Book")
        unknown.propertiesToFetch = ["loanedTo.nickname"]
        let unknownError = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(unknown) }
        #expect("\(unknownError.map { $0 } as Any)".contains("entity Friend has no property 'nickname'"))

        let toMany = FetchRequest<ManagedObject>(entityName: "Friend")
        toMany.propertiesToFetch = ["books"]
        #expect(throws: PersistenceError.self) { try context.fetchDictionaries(toMany) }

        let havingAlone = FetchRequest<ManagedObject>(entityName: "Book")
        havingAlone.propertiesToFetch = ["title"]
        havingAlone.havingPredicate = try QueryPredicate(format: "title != nil")
        #expect(throws: PersistenceError.self) { try context.fetchDictionaries(havingAlone) }

        let mixed = FetchRequest<ManagedObject>(entityName: "Book")
        mixed.propertiesToFetch = ["title", try ExpressionDescription(name: "n", format: "count:(title)")]
        let mixedError = #expect(throws: PersistenceError.self) { try context.fetchDictionaries(mixed) }
        #expect("\(mixedError.map { $0 } as Any)".contains("neither in propertiesToGroupBy nor an aggregate"))
    }

    @Test func objectIDResultsReadOnlyKeys() throws {
        let fresh = try LibraryModel.stack(at: folder.file("library.sqlite"))
        let freshLog = try StatementLog(fresh)
        let request = FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")])
        request.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try fresh.execute(request) else { Issue.record("not object IDs"); return }
        // Another coordinator's IDs: the same rows, compared by primary key.
        #expect(ids.map(\.primaryKey) == (try LibraryModel.books.map(\.title).sorted().map { try id($0).primaryKey }))
        #expect(fresh.registeredObjects.isEmpty)
        #expect(freshLog.statements.last?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZBOOK") == true)
    }

    @Test func withoutPropertyValuesObjectsAreFaults() throws {
        let fresh = try LibraryModel.stack(at: folder.file("library.sqlite"))
        let request = FetchRequest<ManagedObject>(entityName: "Book", predicate: try QueryPredicate(format: "loanedTo.name == 'Alice'"))
        request.includesPropertyValues = false
        let freshLog = try StatementLog(fresh)
        let books = try fresh.fetch(request)
        #expect(freshLog.statements.count == 1)
        #expect(freshLog.statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZBOOK t0 WHERE") == true)
        #expect(books.count == 2)
        #expect(books.allSatisfy { $0.isFault })
        #expect(Set(books.compactMap { $0.value(forKey: "title") as? String }) == ["Cocoa Programming", "Objective-C"])
    }

    @Test func fetchRefusesARequestForOtherResults() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book")
        request.resultType = .dictionary
        let error = #expect(throws: PersistenceError.self) { try context.fetch(request) }
        #expect("\(error.map { $0 } as Any)".contains("fetchDictionaries"))
    }

    @Test func countResultType() throws {
        let request = FetchRequest<ManagedObject>(entityName: "Book", predicate: try QueryPredicate(format: "replacementCost > 30"))
        request.resultType = .count
        guard case .count(let count) = try context.execute(request) else { Issue.record("not a count"); return }
        #expect(count == LibraryModel.books.filter { $0.cost > 30 }.count)
    }
}
