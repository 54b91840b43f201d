import Foundation
import Testing
@testable import LimelightData

/// Aggregates built piece by piece, as Core Data code builds them: an empty
/// `NSExpressionDescription()` given a name, an `NSExpression(forFunction:arguments:)` over
/// `NSExpression(forKeyPath:)` and a result type, grouped and filtered by HAVING.
@Suite struct ExpressionBuildingTests {
    static func totalCost() -> ExpressionDescription {
        let description = ExpressionDescription()
        description.name = "totalCost"
        description.expression = QueryExpression(forFunction: "sum:", arguments: [QueryExpression(forKeyPath: "replacementCost")])
        description.expressionResultType = .double
        return description
    }

    @Test func builtExpressionsReadAsTheirFormats() throws {
        #expect(QueryExpression(forFunction: "sum:", arguments: [QueryExpression(forKeyPath: "price")]) == (try QueryExpression(format: "sum:(price)")))
        #expect(QueryExpression(forFunction: "count", arguments: [.expressionForEvaluatedObject()]) == (try QueryExpression(format: "count:(SELF)")))
        #expect(QueryExpression(forFunction: "add:to:", arguments: [QueryExpression(forConstantValue: 2), QueryExpression(forVariable: "n")])
            == (try QueryExpression(format: "2 + $n")))
        #expect(QueryExpression(forAggregate: [QueryExpression(forConstantValue: "a")]) == (try QueryExpression(format: "{'a'}")))
    }

    @Test func anEmptyDescriptionGivenItsPartsGroupsAndFilters() throws {
        let folder = try TemporaryFolder()
        let context = try LibraryModel.stack(at: folder.file("library.sqlite"))
        try context.performAndWait {
            try LibraryModel.fill(context)
            let request = FetchRequest<[String: Any]>(entityName: "Book")
            request.propertiesToFetch = ["author.name", Self.totalCost()]
            request.propertiesToGroupBy = ["author.name"]
            request.havingPredicate = try QueryPredicate(format: "$totalCost > 50")
            let rows = try context.fetch(request)
            #expect(rows.count == 1)
            #expect(rows.first?["author.name"] as? String == "Hillegass")
            #expect(rows.first?["totalCost"] as? Double == 133.25)
        }
    }

    @Test func aDescriptionWithoutNameOrExpressionIsRefusedByName() throws {
        let folder = try TemporaryFolder()
        let context = try LibraryModel.stack(at: folder.file("library.sqlite"))
        try context.performAndWait {
            try LibraryModel.fill(context)
            let unnamed = ExpressionDescription()
            unnamed.expression = QueryExpression(forFunction: "max:", arguments: [QueryExpression(forKeyPath: "pages")])
            let request = FetchRequest<[String: Any]>(entityName: "Book")
            request.propertiesToFetch = [unnamed]
            #expect { try context.fetch(request) } throws: { "\($0)".contains("has no name") }
            let empty = ExpressionDescription()
            empty.name = "pages"
            request.propertiesToFetch = [empty]
            #expect { try context.fetch(request) } throws: { "\($0)".contains("'pages'") && "\($0)".contains("has no expression") }
        }
    }
}
