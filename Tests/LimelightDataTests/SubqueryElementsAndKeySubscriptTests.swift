import Foundation
import Testing
@testable import LimelightData

/// ANY/ALL/NONE over the objects a bare SUBQUERY keeps, and string subscripts of to-manys
/// (`tags['label']`): a fetch selects what `evaluate(with:)` selects, or both refuse. The shelves
/// are those of `PredicateSQLMemoryAgreementTests`: Top holds Dune (412 pages), Emma (474) and
/// Ulysses (730); Low holds Ubik (202) and Walden (352); Empty holds none. Emma and Walden are
/// tagged classic. Ann's favourites are Walden and Dune; Bob's Dune, Ubik and Emma.
@Suite struct SubqueryElementsAndKeySubscriptTests {
    typealias Fixture = PredicateSQLMemoryAgreementTests.Fixture

    @Test func anyAllAndNoneRangeOverTheObjectsASubqueryKeeps() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 400).title == 'Emma'") == ["Top"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 500).title == 'Emma'").isEmpty)
        #expect(try fixture.names("Shelf", "NONE SUBQUERY(books, $b, $b.pages > 400).title == 'Emma'") == ["Empty", "Low"])
        // ALL of no objects holds, as in memory.
        #expect(try fixture.names("Shelf", "ALL SUBQUERY(books, $b, $b.pages < 400).title BEGINSWITH 'U'") == ["Empty", "Top"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 400).title BEGINSWITH[c] 'u'") == ["Top"])
        // Through a to-one and a to-many of each kept object, and with the right side from the owner.
        #expect(try fixture.names("Reader", "ALL SUBQUERY(favorites, $f, $f.pages > 300).shelf.name == 'Top'") == ["Bob"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 300).tags.label == 'classic'") == ["Low", "Top"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 0).title == name").isEmpty)
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 0).shelf == SELF") == ["Low", "Top"])
        // The kept objects themselves, compared with an object.
        let emma = try #require(try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Book", predicate: try QueryPredicate(format: "title == 'Emma'"))).first)
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 400) == %@", [emma]) == ["Top"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 500) == %@", [emma]).isEmpty)
    }

    @Test func containsAndInLookThroughTheValuesOfTheKeptObjects() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400).title CONTAINS 'Dune'") == ["Top"])
        #expect(try fixture.names("Shelf", "'Walden' IN SUBQUERY(books, $b, $b.pages > 300).title") == ["Low"])
        #expect(try fixture.names("Shelf", "NOT 'Walden' IN SUBQUERY(books, $b, $b.pages > 400).title") == ["Empty", "Low", "Top"])
        // As one value they are a collection, which equals no string, as NSArray's isEqual: says.
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400).title == 'Dune'").isEmpty)
        #expect(try fixture.names("Shelf", "SUBQUERY(books, $b, $b.pages > 400).title != 'Dune'") == ["Empty", "Low", "Top"])
        try fixture.refused("Shelf", "SUBQUERY(books, $b, $b.pages > 400).title > 'A'", naming: "a SUBQUERY's values of title")
    }

    @Test func aStringSubscriptReadsThatKeyOfEveryMember() throws {
        let fixture = try Fixture()
        #expect(try fixture.names("Book", "ANY tags['label'] == 'classic'") == ["Emma", "Walden"])
        #expect(try fixture.names("Book", "NONE tags['label'] == 'classic'") == ["Dune", "Nada", "Ubik", "Ulysses"])
        #expect(try fixture.names("Book", "tags['label'] CONTAINS 'classic'") == ["Emma", "Walden"])
        #expect(try fixture.names("Shelf", "ANY books['title'] BEGINSWITH 'U'") == ["Low", "Top"])
        #expect(try fixture.names("Shelf", "ALL books['pages'] > 300") == ["Empty", "Top"])
        #expect(try fixture.names("Shelf", "ANY SUBQUERY(books, $b, $b.pages > 400)['title'] == 'Dune'") == ["Top"])
        // Of one object it is that object's key, as valueForKey: reads it.
        #expect(try fixture.names("Book", "shelf['name'] == 'Low'") == ["Ubik", "Walden"])
        #expect(try fixture.names("Book", "SELF['title'] == 'Dune'") == ["Dune"])
        // A number picks a place, which a set has not; a key's name has no dots.
        try fixture.refused("Book", "tags[0] != nil", naming: "the to-many tags is unordered")
        try fixture.refused("Book", "ANY tags['books.title'] == 'Dune'", naming: "names one property")
    }

    /// Without ANY, ALL or NONE the values of a to-many's members are no single value to compare:
    /// Core Data's fetch refuses such a key path, and evaluation in memory refuses it too.
    @Test func aToManysValuesComparedAsOneAreRefusedByBoth() throws {
        let fixture = try Fixture()
        try fixture.refused("Book", "tags['label'] == 'classic'", naming: "the to-many key path tags[\"label\"] with == needs ANY, ALL or NONE")
        try fixture.refused("Book", "tags.label == 'classic'", naming: "the to-many key path tags.label with == needs ANY, ALL or NONE")
        try fixture.refused("Book", "tags.label BEGINSWITH 'c'", naming: "needs ANY, ALL or NONE")
    }
}
