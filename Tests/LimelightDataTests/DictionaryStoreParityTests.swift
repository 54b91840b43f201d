import Foundation
import Testing
@testable import LimelightData

/// Dictionary fetches give the same answers on the in-memory store (computed from objects) as on
/// SQLite (computed in SQL).
@Suite struct DictionaryStoreParityTests {
    /// Requests covering columns, key paths, to-one IDs, expressions, grouping, HAVING, DISTINCT,
    /// order and paging.
    static func requests() throws -> [(String, FetchRequest)] {
        func request(where predicate: String? = nil, sort: [QuerySortDescriptor] = [], _ properties: [Any],
                     group: [Any] = [], having: String? = nil, distinct: Bool = false, limit: Int = 0, offset: Int = 0) throws -> FetchRequest {
            let request = FetchRequest(entityName: "Book", predicate: try predicate.map { try QueryPredicate(format: $0) }, sortDescriptors: sort)
            request.propertiesToFetch = properties
            request.propertiesToGroupBy = group
            request.havingPredicate = try having.map { try QueryPredicate(format: $0) }
            request.returnsDistinctResults = distinct
            request.fetchLimit = limit
            request.fetchOffset = offset
            return request
        }
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
    func sameAnswersInMemoryAndInSQLite(_ name: String, _ request: FetchRequest) throws {
        let folder = try TemporaryFolder()
        let sqlite = try LibraryModel.stack(at: folder.file("library.sqlite"))
        let memory = try LibraryModel.stack(at: nil)
        try LibraryModel.fill(sqlite)
        try LibraryModel.fill(memory)
        let fromSQL = try Self.normalized(try sqlite.fetchDictionaries(request), sqlite)
        let fromMemory = try Self.normalized(try memory.fetchDictionaries(request), memory)
        #expect(!fromSQL.isEmpty, "\(name)")
        #expect(fromSQL == fromMemory, "\(name)")
    }
}
