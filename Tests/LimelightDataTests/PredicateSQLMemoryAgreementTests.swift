import Foundation
import Testing
@testable import LimelightData

/// Forms that evaluation in memory answered and SQL refused: bare SUBQUERYs (`== 0`, `SELF IN`),
/// places in ordered to-manys, comparisons of values of different kinds. A fetch must select
/// what `evaluate(with:)` selects, or both must refuse.
@Suite struct PredicateSQLMemoryAgreementTests {
    /// Shelves keep books in order; readers keep favourite books in order (a many-to-many, whose
    /// positions sit in the join table); books have unordered tags.
    static func model() -> ManagedObjectModel {
        let books = RelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true)
        books.isOrdered = true
        let favorites = RelationshipDescription(name: "favorites", destination: "Book", inverse: "fans", toMany: true)
        favorites.isOrdered = true
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Shelf", properties: [AttributeDescription(name: "name", type: .string), books]),
            EntityDescription(name: "Reader", properties: [AttributeDescription(name: "name", type: .string), favorites]),
            EntityDescription(name: "Book", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "pages", type: .integer32),
                AttributeDescription(name: "code", type: .string),
                RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
                RelationshipDescription(name: "fans", destination: "Reader", inverse: "favorites", toMany: true),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "books", toMany: true),
            ]),
            EntityDescription(name: "Tag", properties: [
                AttributeDescription(name: "label", type: .string),
                RelationshipDescription(name: "books", destination: "Book", inverse: "tags", toMany: true),
            ]),
        ])
    }

    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext

        /// Books are inserted in the reverse of their shelves' order, so key order is not list order.
        init() throws {
            folder = try TemporaryFolder()
            context = try TestStack.context(model: PredicateSQLMemoryAgreementTests.model(), at: folder.file("shelves.sqlite"))
            var books: [String: ManagedObject] = [:]
            let rows: [(String, Int32?, String?)] = [("Ulysses", 730, "730"), ("Emma", 474, nil), ("Dune", 412, "Dune"),
                                                     ("Walden", 352, "x"), ("Ubik", 202, nil), ("Nada", nil, nil)]
            for (title, pages, code) in rows.reversed() {
                let book = try context.insertNewObject(forEntityName: "Book")
                book.setValue(title, forKey: "title")
                book.setValue(pages, forKey: "pages")
                book.setValue(code, forKey: "code")
                books[title] = book
            }
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("classic", forKey: "label")
            tag.setValue(Set(["Emma", "Walden"].compactMap { books[$0] }), forKey: "books")
            for (name, titles) in [("Top", ["Dune", "Emma", "Ulysses"]), ("Low", ["Ubik", "Walden"]), ("Empty", [])] {
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                shelf.setValue(name, forKey: "name")
                shelf.setValue(titles.compactMap { books[$0] }, forKey: "books")
            }
            for (name, titles) in [("Ann", ["Walden", "Dune"]), ("Bob", ["Dune", "Ubik", "Emma"])] {
                let reader = try context.insertNewObject(forEntityName: "Reader")
                reader.setValue(name, forKey: "name")
                reader.setValue(titles.compactMap { books[$0] }, forKey: "favorites")
            }
            try context.save()
            context.reset()
        }

        /// The names (or titles) of the objects the predicate selects, the same from SQL and in memory.
        func names(_ entity: String, _ format: String, _ arguments: [Any?] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            let fromSQL = try context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
            let inMemory = try all.filter { try predicate.evaluate(with: $0) }
            func names(_ objects: [ManagedObject]) -> [String] {
                objects.map { ($0.value(forKey: entity == "Book" ? "title" : "name") as? String) ?? "-" }.sorted()
            }
            #expect(names(fromSQL) == names(inMemory), "\(format)", sourceLocation: sourceLocation)
            return names(inMemory)
        }

        /// Both the fetch and evaluation in memory refuse the predicate; the fetch's error names `part`.
        func refused(_ entity: String, _ format: String, naming part: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let predicate = try QueryPredicate(format: format)
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            #expect(sourceLocation: sourceLocation) { try context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)) } throws: {
                "\($0)".contains(part)
            }
            #expect(throws: (any Error).self, sourceLocation: sourceLocation) { try all.filter { try predicate.evaluate(with: $0) } }
        }
    }

    @Test func placesInAnOrderedToManyFollowItsOrderNotItsKeys() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("Shelf", "books[FIRST].title == 'Dune'") == ["Top"])
        #expect(try fixture.names("Shelf", "books[LAST].title == 'Walden'") == ["Low"])
        #expect(try fixture.names("Shelf", "books[1].title == 'Emma'") == ["Top"])
        #expect(try fixture.names("Shelf", "books[2].pages > 700") == ["Top"])
        // A place past the end, or before the start, is no member.
        #expect(try fixture.names("Shelf", "books[5] == nil") == ["Empty", "Low", "Top"])
        #expect(try fixture.names("Shelf", "books[-1] == nil") == ["Empty", "Low", "Top"])
        #expect(try fixture.names("Shelf", "books[FIRST] == nil") == ["Empty"])
        #expect(try fixture.names("Shelf", "books[SIZE] == 2") == ["Low"])
        // In a many-to-many, the positions are those of the join table.
        #expect(try fixture.names("Reader", "favorites[FIRST].title == 'Dune'") == ["Bob"])
        #expect(try fixture.names("Reader", "favorites[LAST].title == 'Dune'") == ["Ann"])
        #expect(try fixture.names("Reader", "favorites[FIRST].shelf.name == 'Low'") == ["Ann"])
    }

    @Test func aPlaceInAnUnorderedToManyIsRefusedByBoth() throws {
        let fixture = try Fixture()
        try fixture.refused("Book", "tags[FIRST].label == 'classic'", naming: "the to-many tags is unordered")
        try fixture.refused("Book", "tags[0] != nil", naming: "the to-many tags is unordered")
        #expect(try fixture.names("Book", "tags[SIZE] == 1") == ["Emma", "Walden"])
    }

    @Test func aBareSubqueryIsItsObjects() throws {
        let fixture = try Fixture()
        // A collection equals no number: == never holds and != always does, as NSArray's isEqual: says.
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400) == 0").isEmpty)
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400) != 0") == ["Empty", "Low", "Top"])
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400) == nil").isEmpty)
        #expect(try fixture.names("Book", "SELF IN SUBQUERY(shelf.books, $b, $b.pages > 400)") == ["Dune", "Emma", "Ulysses"])
        #expect(try fixture.names("Book", "NOT SELF IN SUBQUERY(shelf.books, $b, $b.pages > 400)") == ["Nada", "Ubik", "Walden"])
        // Objects of another table are never among a shelf's books.
        #expect(try fixture.names("Shelf", "SELF IN SUBQUERY(books, $b, $b.pages > 0)").isEmpty)
        try fixture.refused("Shelf", "SUBQUERY(books, $b, $b.pages > 400) > 0", naming: "count them with .@count")
    }

    @Test func subqueryCountsInEveryPlaceAppsWriteThem() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("Shelf", "0 < SUBQUERY(books, $b, $b.pages > 400).@count") == ["Top"])
        #expect(try fixture.names("Shelf", "NOT (SUBQUERY(books, $b, $b.pages > 400).@count > 0)") == ["Empty", "Low"])
        #expect(try fixture.names("Shelf", "name != 'Top' AND SUBQUERY(books, $b, $b.pages < 300).@count != 0") == ["Low"])
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.title BEGINSWITH 'U').@count == books.@count") == ["Empty"])
        // Over a many-to-many, nested, and through a to-one of the variable.
        #expect(try fixture.names("Reader", "SUBQUERY(favorites, $f, $f.shelf.name == 'Low').@count > 0") == ["Ann", "Bob"])
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, SUBQUERY($b.fans, $r, $r.name == 'Ann').@count > 0).@count > 0") == ["Low", "Top"])
        #expect(try fixture.names("Book", "SUBQUERY(fans, $r, SUBQUERY($r.favorites, $f, $f.shelf.name == 'Low').@count == 1).@count > 0")
                == ["Dune", "Emma", "Ubik", "Walden"])
    }

    @Test func valuesOfDifferentKindsAreNeverEqual() throws {
        let fixture = try Fixture()
        // "730" is no number: the book with 730 pages and the code "730" is not equal to it either.
        #expect(try fixture.names("Book", "pages == code") == ["Nada"])
        #expect(try fixture.names("Book", "pages != code").count == 5)
        #expect(try fixture.names("Book", "pages == '730'").isEmpty)
        #expect(try fixture.names("Book", "pages != '730'").count == 6)
        #expect(try fixture.names("Book", "pages IN {'730', 412}") == ["Dune"])
        #expect(try fixture.names("Book", "fans.@count != 'Hello'").count == 6)
        // Nil on both sides is equal, whatever their kinds (Nada has neither pages nor a code).
        #expect(try fixture.names("Book", "pages == nil AND pages == code") == ["Nada"])
        // An order between a number and a string is no answer in memory either.
        try fixture.refused("Book", "pages < code", naming: "type mismatch")
    }
}
