import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// Dictionary fetches give the same answers on the in-memory store (computed from objects) as on
/// SQLite (computed in SQL).
@Suite struct DictionaryStoreParityTests {
    /// A dictionary request on Book with the given clauses.
    static func request(where predicate: String? = nil, sort: [QuerySortDescriptor] = [], _ properties: [Any],
                        group: [Any] = [], having: String? = nil, distinct: Bool = false, limit: Int = 0, offset: Int = 0) throws -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Book", predicate: try predicate.map { try QueryPredicate(format: $0) }, sortDescriptors: sort)
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = group
        request.havingPredicate = try having.map { try QueryPredicate(format: $0) }
        request.returnsDistinctResults = distinct
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    /// Requests covering columns, key paths, to-one IDs, expressions, grouping, HAVING, DISTINCT,
    /// order and paging.
    static func requests() throws -> [(String, FetchRequest<ManagedObject>)] {
        let byTitle = [QuerySortDescriptor(key: "title")]
        return [
            ("columns", try request(sort: byTitle, ["title", "replacementCost", "published", "pages"])),
            ("to-one IDs", try request(sort: byTitle, ["title", "loanedTo", "author"])),
            ("key paths", try request(sort: byTitle, ["title", "author.name", "loanedTo.name"])),
            ("evaluated object", try request(sort: byTitle, ["title", ExpressionDescription.objectID(named: "me")])),
            ("predicate and paging", try request(where: "pages >= 300", sort: [QuerySortDescriptor(key: "pages", ascending: false)], ["title", "pages"],
                                                 limit: 2, offset: 1)),
            ("sum", try request([try ExpressionDescription(name: "total", format: "sum:(replacementCost)")])),
            ("aggregates", try request([
                ExpressionDescription(name: "n", format: "count:(title)"),
                ExpressionDescription(name: "first", format: "min:(published)"),
                ExpressionDescription(name: "last", format: "max:(published)"),
                ExpressionDescription(name: "pages", format: "sum:(pages)"),
                ExpressionDescription(name: "mean", format: "average:(replacementCost)"),
                ExpressionDescription(name: "median", format: "median:(pages)"),
                ExpressionDescription(name: "mode", format: "mode:(pages)"),
            ])),
            ("group by author", try request(sort: [QuerySortDescriptor(key: "author.name")],
                                            ["author.name", ExpressionDescription(name: "n", format: "count:(title)"),
                                             ExpressionDescription(name: "cost", format: "sum:(replacementCost)")],
                                            group: ["author.name"])),
            ("group by loan having", try request(where: "loanedTo != nil", ["loanedTo", ExpressionDescription(name: "count", format: "count:(title)")],
                                                 group: ["loanedTo"], having: "$count > 1")),
            ("having on author", try request(["author", ExpressionDescription(name: "count", format: "count:(title)")],
                                        group: ["author"], having: "count > 2")),
            ("distinct", try request(sort: [QuerySortDescriptor(key: "author.name", ascending: false)], ["author.name"], distinct: true)),
            ("arithmetic", try request(sort: byTitle, ["title", ExpressionDescription(name: "double", format: "pages * 2")])),
            ("nothing matches", try request(where: "pages > 10000", [ExpressionDescription(name: "n", format: "count:(title)")])),
        ]
    }

    /// A row with object IDs replaced by the title or name of their object, so the two stores'
    /// IDs compare.
    /// The request's normalized rows from an SQLite store and an in-memory store filled alike.
    static func answers(_ request: FetchRequest<ManagedObject>, fill: (ManagedObjectContext) throws -> Void) throws
        -> (sql: [[String: String]], memory: [[String: String]]) {
        let folder = try TemporaryFolder()
        let sqlite = try LibraryModel.stack(at: folder.file("library.sqlite"))
        let memory = try LibraryModel.stack(at: nil)
        try fill(sqlite)
        try fill(memory)
        return (try normalized(try sqlite.fetchDictionaries(request), sqlite), try normalized(try memory.fetchDictionaries(request), memory))
    }

    static func normalized(_ rows: [[String: Any]], _ context: ManagedObjectContext) throws -> [[String: String]] {
        try rows.map { row in
            try row.mapValues { value in
                if let id = value as? ManagedObjectID {
                    let object = try context.existingObject(with: id)
                    return "\(id.entity.name):\(object.value(forKey: "title") ?? object.value(forKey: "name") ?? "?")"
                }
                return "\(type(of: value)):\(value)"
            }
        }
    }

    @Test(arguments: try requests())
    func sameAnswersInMemoryAndInSQLite(_ name: String, _ request: FetchRequest<ManagedObject>) throws {
        let (fromSQL, fromMemory) = try Self.answers(request) { _ = try LibraryModel.fill($0) }
        #expect(!fromSQL.isEmpty, "\(name)")
        #expect(fromSQL == fromMemory, "\(name)")
    }
}

/// The same comparison on a generated library: thousands of books, many authors and friends,
/// missing values.
@Suite struct GeneratedDictionaryParityTests {
    static func fill(_ context: ManagedObjectContext, books: Int = 2_000) throws {
        var random = SeededGenerator(seed: 2008)
        let authors = try (0..<25).map { index -> ManagedObject in
            let author = try context.insertNewObject(forEntityName: "Author")
            author.setValue("Author \(index)", forKey: "name")
            return author
        }
        let friends = try (0..<40).map { index -> ManagedObject in
            let friend = try context.insertNewObject(forEntityName: "Friend")
            friend.setValue(index % 7 == 0 ? nil : "Friend \(index)", forKey: "name")
            return friend
        }
        for index in 0..<books {
            let book = try context.insertNewObject(forEntityName: "Book")
            book.setValue("Book \(index)", forKey: "title")
            book.setValue(Double(Int.random(in: 100...9_999, using: &random)) / 4, forKey: "replacementCost")
            book.setValue(Int.random(in: 0...9, using: &random) == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(index * 3_600)),
                          forKey: "published")
            book.setValue(Int32.random(in: 40...1_200, using: &random), forKey: "pages")
            book.setValue(Bool.random(using: &random) ? friends.randomElement(using: &random) : nil, forKey: "loanedTo")
            book.setValue(authors.randomElement(using: &random), forKey: "author")
        }
        try context.save()
    }

    static func requests() throws -> [(String, FetchRequest<ManagedObject>)] {
        func make(_ properties: [Any], where predicate: String? = nil, sort: [String] = [], group: [Any] = [], having: String? = nil,
                  distinct: Bool = false, limit: Int = 0, offset: Int = 0) throws -> FetchRequest<ManagedObject> {
            try DictionaryStoreParityTests.request(where: predicate, sort: sort.map { QuerySortDescriptor(key: $0) }, properties,
                                                   group: group, having: having, distinct: distinct, limit: limit, offset: offset)
        }
        let count = try ExpressionDescription(name: "count", format: "count:(title)")
        let cost = try ExpressionDescription(name: "cost", format: "sum:(replacementCost)")
        return [
            ("page of columns", try make(["title", "pages", "published", "loanedTo", "author.name"], sort: ["title"], limit: 50, offset: 700)),
            ("filtered IDs", try make([ExpressionDescription.objectID(named: "me"), "title"], where: "pages > 1000 AND loanedTo.name BEGINSWITH 'Friend 1'",
                                      sort: ["title"])),
            ("per author", try make(["author.name", count, cost, ExpressionDescription(name: "latest", format: "max:(published)")],
                                    sort: ["author.name"], group: ["author.name"])),
            ("per friend having", try make(["loanedTo", count, ExpressionDescription(name: "pages", format: "sum:(pages)")],
                                           where: "loanedTo != nil", group: ["loanedTo"], having: "$count >= 25")),
            ("per friend name", try make(["loanedTo.name", count], group: ["loanedTo.name"])),
            ("distinct pairs", try make(["author.name", "loanedTo.name"], distinct: true)),
            ("totals", try make([count, cost, ExpressionDescription(name: "first", format: "min:(published)"),
                                 ExpressionDescription(name: "median", format: "median:(pages)")], where: "published != nil")),
        ]
    }

    @Test(arguments: try requests())
    func sameAnswersInMemoryAndInSQLite(_ name: String, _ request: FetchRequest<ManagedObject>) throws {
        var (fromSQL, fromMemory) = try DictionaryStoreParityTests.answers(request) { try Self.fill($0) }
        if request.sortDescriptors?.isEmpty ?? true {
            // Without a sort the order of groups is the store's own; compare the rows as a whole.
            let canonical = { (row: [String: String]) in row.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
            fromSQL.sort { canonical($0) < canonical($1) }
            fromMemory.sort { canonical($0) < canonical($1) }
        }
        #expect(fromSQL.count > 1 || name == "totals", "\(name)")
        #expect(fromSQL == fromMemory, "\(name)")
    }
}
