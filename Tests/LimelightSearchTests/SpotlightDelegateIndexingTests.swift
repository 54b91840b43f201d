import Foundation
import LimelightData
@testable import LimelightSearch
import Testing

/// The indexer takes a Core Spotlight delegate's descriptions from the markers: real stores, real
/// markers, the real indexer and a real Xapian index.
struct SpotlightDelegateIndexingTests {
    /// Describes books by title and summary, with the shelf as keywords (the shelf is not an
    /// indexed property); books on the shelf "hidden" are kept out.
    final class BookIndexing: CoreDataCoreSpotlightDelegate, @unchecked Sendable {
        override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
            guard object.entity.name == "Book" else { return super.attributeSet(for: object) }
            let shelf = object.value(forKey: "shelf") as? String ?? ""
            if shelf == "hidden" { return nil }
            let title = object.value(forKey: "title") as? String ?? ""
            var set = SearchableItemAttributeSet(displayName: "Book: \(title)", title: title)
            set.contentDescription = object.value(forKey: "summary") as? String
            set.keywords = ["shelf\(shelf)"]
            return set
        }
    }

    struct Library {
        let scratch: Scratch
        let context: ManagedObjectContext
        let indexing: BookIndexing
        let indexer: Indexer
        var reader: SearchIndexReader { get throws { try SearchIndexReader(path: scratch.url.appendingPathComponent("index").path) } }

        init() throws {
            scratch = try Scratch()
            context = try LibraryModel.open(in: scratch)
            let coordinator = try #require(context.persistentStoreCoordinator)
            let store = try #require(coordinator.persistentStores.first)
            let description = PersistentStoreDescription(url: store.url)
            indexing = BookIndexing(forStoreWith: description, coordinator: coordinator)
            try indexing.startSpotlightIndexing()
            indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch),
                                  importerDirectories: [])
        }

        /// Brings the index in step with the markers, as the daemon does.
        @discardableResult
        func index() throws -> Indexer.BatchReport {
            try LibraryModel.flush(context)
            let plan = try Reconciler.plan(index: indexer.index, roots: LibraryModel.roots(scratch))
            return indexer.apply(changed: plan.changed, removedURIs: plan.removedURIs)
        }

        func search(_ text: String) throws -> [String] {
            let service = try SearchService(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch))
            var options = SearchService.Options(query: text)
            options.limit = 5_000
            return try service.search(options).hits.map(\.document.displayName).sorted()
        }
    }

    @Test func descriptionsAreWhatIsIndexed() throws {
        let library = try Library()
        let dune = try LibraryModel.addBook(library.context, title: "Dune", summary: "sand and spice", pages: 412, authors: ["Herbert"])
        dune.setValue("A7", forKey: "shelf")
        try LibraryModel.addBook(library.context, title: "Secret", summary: "sand again", pages: 1).setValue("hidden", forKey: "shelf")
        try library.context.save()
        let report = try library.index()
        #expect(report.failed == 0)
        #expect(try library.search("sand") == ["Book: Dune"])
        #expect(try library.search("shelfa7") == ["Book: Dune"])
        #expect(try library.search("keywords:shelfa7") == ["Book: Dune"])
        #expect(try library.search("contentDescription:spice") == ["Book: Dune"])
        // Authors are described by the default: their indexed properties, under their own names.
        #expect(try library.search("name:herbert") == ["Herbert"])

        // The shelf is no indexed property, yet moving the book changes what is found.
        dune.setValue("hidden", forKey: "shelf")
        try library.context.save()
        let hiding = try library.index()
        // One: the book hidden before is remembered as kept out, and not imported again.
        #expect(hiding.keptOut == 1 && hiding.indexed == 0 && hiding.removed == 0 && hiding.failed == 0)
        #expect(try library.search("sand").isEmpty)
        #expect(library.indexer.index.searchableDocumentCount == 1)
        #expect(library.indexer.index.keptOutCount == 2)
        dune.setValue("B2", forKey: "shelf")
        try library.context.save()
        try library.index()
        #expect(try library.search("shelfb2") == ["Book: Dune"])
    }

    /// A bulk run (written in shards and merged) takes descriptions and exclusions alike, and
    /// leaves no document of an excluded object behind.
    @Test func aBulkRunTakesDescriptionsAndExclusions() throws {
        let library = try Library()
        var books: [ManagedObject] = []
        for number in 0..<2_400 {
            let book = try LibraryModel.addBook(library.context, title: "Volume \(number)", summary: "series", pages: Int32(number))
            book.setValue(number % 4 == 0 ? "hidden" : "S", forKey: "shelf")
            books.append(book)
        }
        try library.context.save()
        try library.index()
        #expect(library.indexer.index.searchableDocumentCount == 1_800)
        #expect(library.indexer.index.keptOutCount == 600)
        #expect(try library.search("\"volume 5\"") == ["Book: Volume 5"])
        #expect(try library.search("\"volume 8\"").isEmpty)
        // Every book described anew as hidden, in a second bulk run over an index that has them.
        for book in books { book.setValue("hidden", forKey: "shelf") }
        try library.context.save()
        let second = try library.index()
        // The books hidden before did not change, and are not imported again.
        #expect(second.keptOut == 1_800 && second.indexed == 0 && second.failed == 0)
        #expect(library.indexer.index.searchableDocumentCount == 0)
        #expect(library.indexer.index.keptOutCount == 2_400)
        #expect(try Reconciler.plan(index: library.indexer.index, roots: LibraryModel.roots(library.scratch)).changed.isEmpty)
    }
}
