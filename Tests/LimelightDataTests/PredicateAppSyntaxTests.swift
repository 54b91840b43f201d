import Foundation
import Testing
@testable import LimelightData

/// Syntax that applications' predicates use and that Apple's parser and Core Data's SQLite store
/// accept: a key spliced in with %@ after a dot, key paths into the values a predicate gives,
/// collection operators written first, SUBQUERY over a to-many behind a to-one. Each parses, and a
/// fetch selects what evaluation in memory selects.
@Suite struct PredicateAppSyntaxTests {
    /// Shelves hold books and have a keeper; keepers have shelves.
    static func model() -> ManagedObjectModel {
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "rank", type: .integer64),
            AttributeDescription(name: "code", type: .uuid),
            AttributeDescription(name: "cover", type: .binaryData),
            AttributeDescription(name: "site", type: .uri),
            RelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true),
            RelationshipDescription(name: "keeper", destination: "Keeper", inverse: "shelves"),
        ])
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "pages", type: .integer64),
            AttributeDescription(name: "added", type: .date),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
        ])
        let keeper = EntityDescription(name: "Keeper", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "shelves", destination: "Shelf", inverse: "keeper", toMany: true),
        ])
        return ManagedObjectModel(entities: [shelf, book, keeper])
    }

    static let day = Date(timeIntervalSinceReferenceDate: 740_000_000)

    static func code(_ rank: Int64) -> UUID? { UUID(uuidString: "\(rank)0000000-0000-0000-0000-00000000000\(rank)") }

    /// Four shelves: Fiction (Dune 412, Emma 474) kept by Ann, Poems (Odes 80) kept by Ann,
    /// Empty kept by Bob, Loose (Ubik 202) kept by no one.
    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let shelves: [String: ManagedObject]

        init() throws {
            folder = try TemporaryFolder()
            context = try TestStack.context(model: PredicateAppSyntaxTests.model(), at: folder.file("shelves.sqlite"))
            var keepers: [String: ManagedObject] = [:]
            for name in ["Ann", "Bob"] {
                let keeper = try context.insertNewObject(forEntityName: "Keeper")
                keeper.setValue(name, forKey: "name")
                keepers[name] = keeper
            }
            let contents: [(String, Int64, String?, [(String, Int64)])] = [
                ("Fiction", 1, "Ann", [("Dune", 412), ("Emma", 474)]), ("Poems", 2, "Ann", [("Odes", 80)]),
                ("Empty", 3, "Bob", []), ("Loose", 4, nil, [("Ubik", 202)]),
            ]
            var shelves: [String: ManagedObject] = [:]
            for (index, (name, rank, keeper, books)) in contents.enumerated() {
                let shelf = try context.insertNewObject(forEntityName: "Shelf")
                shelf.setValue(name, forKey: "name")
                shelf.setValue(rank, forKey: "rank")
                shelf.setValue(PredicateAppSyntaxTests.code(rank), forKey: "code")
                shelf.setValue(Data([UInt8(rank), 0xFF]), forKey: "cover")
                shelf.setValue(URL(string: "https://example.org/shelf/\(rank)"), forKey: "site")
                shelf.setValue(keeper.flatMap { keepers[$0] }, forKey: "keeper")
                for (offset, (title, pages)) in books.enumerated() {
                    let book = try context.insertNewObject(forEntityName: "Book")
                    book.setValue(title, forKey: "title")
                    book.setValue(pages, forKey: "pages")
                    book.setValue(PredicateAppSyntaxTests.day.addingTimeInterval(Double(index * 2 + offset) * 86_400), forKey: "added")
                    book.setValue(shelf, forKey: "shelf")
                }
                shelves[name] = shelf
            }
            try context.save()
            self.shelves = shelves
        }

        /// Names of the shelves a fetch selects, after checking evaluation in memory selects the same.
        func names(_ predicate: QueryPredicate, entity: String = "Shelf") throws -> [String] {
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            let inMemory = try all.filter { try predicate.evaluate(with: $0) }
            let names = { (objects: [ManagedObject]) in objects.compactMap { $0.value(forKey: "name") as? String }.sorted() }
            #expect(names(fetched) == names(inMemory), "\(predicate): SQL and memory differ")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)) == inMemory.count)
            return names(fetched)
        }
    }

    @Test func aStringFormatArgumentAfterADotIsAKey() throws {
        let spliced = try QueryPredicate(format: "ANY SELF.%@.title == %@", "books", "Dune")
        #expect(spliced == (try QueryPredicate(format: "ANY books.title == 'Dune'")))
        let nested = try QueryPredicate(format: "SUBQUERY(SELF.%@, $b, $b.%K > 100).@count == 2", "books", "pages")
        #expect(nested.predicateFormat == "SUBQUERY(books, $b, $b.pages > 100).@count == 2")
        let fixture = try Fixture()
        #expect(try fixture.names(spliced) == ["Fiction"])
        #expect(try fixture.names(nested) == ["Fiction"])
        // Only a key can stand there: a number is an error naming the specifier and the argument.
        #expect { try QueryPredicate(format: "SELF.%@ == 1", 7) } throws: {
            "\($0)".contains("%@ after a dot") && "\($0)".contains("Int")
        }
    }

    @Test func keyPathsIntoGivenValuesAreComputedOnceInSQL() throws {
        let fixture = try Fixture()
        #expect(try fixture.names(try QueryPredicate(format: "{1, 2, 3}.@count == 3 AND rank > 2")) == ["Empty", "Loose"])
        #expect(try fixture.names(try QueryPredicate(format: "{}.@count == 0 AND rank == 1")) == ["Fiction"])
        // `%@.name` of objects given as the argument: the names they have, as a list for IN.
        let given = [fixture.shelves["Fiction"], fixture.shelves["Empty"]].compactMap { $0 }
        #expect(try fixture.names(try QueryPredicate(format: "NOT (SELF.name IN %@.name)", given)) == ["Loose", "Poems"])
        #expect(try fixture.names(try QueryPredicate(format: "name IN %@.name OR rank == 4", given)) == ["Empty", "Fiction", "Loose"])
        #expect(try fixture.names(try QueryPredicate(format: "rank == %@.@count", given)) == ["Poems"])
    }

    @Test func aCollectionOperatorWrittenFirstIsTheOneAfterTheToMany() throws {
        let fixture = try Fixture()
        // Fiction's books have 886 pages, Poems' 80, Loose's 202, Empty's none.
        #expect(try fixture.names(try QueryPredicate(format: "@sum.books.pages > 500")) == ["Fiction"])
        #expect(try fixture.names(try QueryPredicate(format: "@max.books.pages < 300")) == ["Loose", "Poems"])
        #expect(try fixture.names(try QueryPredicate(format: "@count.books == 0")) == ["Empty"])
    }

    @Test func valuesWithoutALiteralPrintAsCastsThatReadBackAsThemselves() throws {
        let fixture = try Fixture()
        let code = try #require(Self.code(2))
        let cover = Data([3, 0xFF])
        let site = try #require(URL(string: "https://example.org/shelf/4"))
        for (format, argument, expected) in [("code == %@", code as Any, "Poems"), ("cover == %@", cover, "Empty"), ("site == %@", site, "Loose")] {
            let predicate = try QueryPredicate(format: format, argument)
            let printed = predicate.predicateFormat
            #expect(printed.contains("CAST("), "\(printed)")
            let again = try QueryPredicate(format: printed)
            #expect(again == predicate, "\(printed)")
            #expect(try fixture.names(again) == [expected], "\(printed)")
        }
        #expect(try QueryPredicate(format: "code IN %@", [code]).predicateFormat
                == "code IN {CAST(\"20000000-0000-0000-0000-000000000002\", \"NSUUID\")}")
        // Text that is not one is an error naming the type it was cast to.
        #expect { try QueryPredicate(format: "code == CAST('nope', 'NSUUID')").evaluate(with: ["code": code]) } throws: {
            "\($0)".contains("NSUUID")
        }
    }

    @Test func anObjectOfAnotherEntityIsNoneOfTheseObjectsWhateverItsKey() throws {
        let fixture = try Fixture()
        // Shelves and keepers are numbered in their own tables: some shelf has the key a keeper has.
        let keepers = try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Keeper"))
        let shelves = try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf"))
        let (keeper, twin) = try #require(keepers.lazy.compactMap { keeper in
            shelves.first { $0.objectID.primaryKey == keeper.objectID.primaryKey }.map { (keeper, $0) }
        }.first)
        #expect(try fixture.names(try QueryPredicate(format: "keeper == %@", twin)) == [])
        #expect(try fixture.names(try QueryPredicate(format: "keeper != %@", twin)) == ["Empty", "Fiction", "Loose", "Poems"])
        #expect(try fixture.names(try QueryPredicate(format: "keeper IN %@", [twin])) == [])
        #expect(try fixture.names(try QueryPredicate(format: "ANY books == %@", keeper)) == [])
        #expect(try fixture.names(try QueryPredicate(format: "SELF == %@", keeper)) == [])
        let ann = try #require(keepers.first { $0.value(forKey: "name") as? String == "Ann" })
        #expect(try fixture.names(try QueryPredicate(format: "keeper == %@", ann)) == ["Fiction", "Poems"])
    }

    @Test func setExpressionsCombineCollections() throws {
        #expect(try QueryPredicate(format: "3 IN {1, 2} UNION {2, 3}").evaluate(with: nil))
        #expect(try !QueryPredicate(format: "1 IN {1, 2} MINUS {1}").evaluate(with: nil))
        #expect(try QueryPredicate(format: "{1, 2} INTERSECT {2, 3} CONTAINS 2 AND NOT {1, 2} INTERSECT {2, 3} CONTAINS 1").evaluate(with: nil))
        let printed = try QueryPredicate(format: "3 IN {1, 2} UNION {2, 3}").predicateFormat
        #expect(printed == "3 IN ({1, 2} UNION {2, 3})")
        #expect(try QueryPredicate(format: printed) == (try QueryPredicate(format: "3 IN {1, 2} UNION {2, 3}")))
        // Only after an operand is the word an operator: a key may still be called union.
        #expect(try QueryPredicate(format: "union == 1").predicateFormat == "union == 1")
        #expect { try QueryPredicate(format: "{1} UNION 2 CONTAINS 1").evaluate(with: nil) } throws: {
            "\($0)".contains("the right operand of UNION must be a collection")
        }
        let fixture = try Fixture()
        #expect(try fixture.names(try QueryPredicate(format: "name IN {'Fiction', 'Poems'} MINUS %@", ["Poems"])) == ["Fiction"])
        #expect(try fixture.names(try QueryPredicate(format: "rank IN %@ UNION {4}", [1])) == ["Fiction", "Loose"])
        // A comparison of given values only holds for every row or for none.
        #expect(try fixture.names(try QueryPredicate(format: "{1, 2} UNION %@ CONTAINS 3 AND rank == 1", [3])) == ["Fiction"])
        #expect(try fixture.names(try QueryPredicate(format: "{1} CONTAINS 2 OR rank == 4")) == ["Loose"])
        // With values from the store it is computed in memory only; SQL says which part it cannot say.
        let stored = try QueryPredicate(format: "'Dune' IN books.title UNION {'x'}")
        #expect(try stored.evaluate(with: fixture.shelves["Fiction"]))
        #expect { try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf", predicate: stored)) } throws: {
            "\($0)".contains("UNION")
        }
    }
}
