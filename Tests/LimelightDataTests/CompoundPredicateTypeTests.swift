import Foundation
import Testing
@testable import LimelightData

/// `QueryPredicate(type:subpredicates:)`, Core Data's `NSCompoundPredicate(type:subpredicates:)`,
/// in fetches and in memory.
@Suite struct CompoundPredicateTypeTests {
    static func filled(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Article", properties: [
                AttributeDescription(name: "feed", type: .integer32, isOptional: false, defaultValue: Int32(0)),
                AttributeDescription(name: "unread", type: .boolean, isOptional: false, defaultValue: true),
            ]),
        ])
        let context = try TestStack.context(model: model, at: folder.file("articles.sqlite"))
        for index in 0..<12 {
            let article = try context.insertNewObject(forEntityName: "Article")
            article.setValue(Int32(index % 3), forKey: "feed")
            article.setValue(index % 2 == 0, forKey: "unread")
        }
        try context.save()
        return context
    }

    func count(_ predicate: QueryPredicate, in context: ManagedObjectContext) throws -> Int {
        try context.count(for: FetchRequest<ManagedObject>(entityName: "Article", predicate: predicate))
    }

    @Test func joinsAsTheTypeSays() throws {
        let folder = try TemporaryFolder()
        let context = try Self.filled(folder)
        let unread = try QueryPredicate(format: "unread == %@", NSNumber(value: true))
        let feed = try QueryPredicate(format: "feed == %d", Int32(1))
        #expect(try count(QueryPredicate(type: .and, subpredicates: [unread, feed]), in: context) == 2)
        #expect(try count(QueryPredicate(type: .or, subpredicates: [unread, feed]), in: context) == 8)
        #expect(try count(QueryPredicate(type: .not, subpredicates: [feed]), in: context) == 8)
        #expect(try count(QueryPredicate(type: .not, subpredicates: [unread, feed]), in: context) == 10)
        #expect(QueryPredicate(type: .and, subpredicates: [unread, feed]) == QueryPredicate(andPredicateWithSubpredicates: [unread, feed]))
    }

    @Test func emptyCompoundsAreConstants() throws {
        #expect(try QueryPredicate(type: .and, subpredicates: []).evaluate(with: nil))
        #expect(try !QueryPredicate(type: .or, subpredicates: []).evaluate(with: nil))
        #expect(try !QueryPredicate(type: .not, subpredicates: []).evaluate(with: nil))
    }
}
