import Foundation
import LimelightData
@testable import LimelightSearch
import Testing

/// Objects a Core Spotlight delegate keeps out of the index: the index remembers their markers,
/// so a reconcile leaves them alone, while searches and counts never see them. Real stores,
/// markers, indexer and Xapian index.
struct SpotlightExclusionTests {
    typealias Library = SpotlightDelegateIndexingTests.Library

    /// Two books on the hidden shelf and one on a shelf of its own, indexed once.
    private func shelvedLibrary() throws -> (Library, visible: ManagedObject, hidden: [ManagedObject]) {
        let library = try Library()
        let visible = try LibraryModel.addBook(library.context, title: "Dune", summary: "sand and spice", pages: 412)
        var hidden: [ManagedObject] = []
        for title in ["Secret", "Diary"] {
            let book = try LibraryModel.addBook(library.context, title: title, summary: "sand, privately", pages: 1)
            book.setValue("hidden", forKey: "shelf")
            hidden.append(book)
        }
        try library.context.save()
        let first = try library.index()
        #expect(first.indexed == 1 && first.keptOut == 2 && first.failed == 0)
        return (library, visible, hidden)
    }

    @Test func aReconcileFindsKeptOutObjectsUpToDate() throws {
        let (library, _, _) = try shelvedLibrary()
        let plan = try Reconciler.plan(index: library.indexer.index, roots: LibraryModel.roots(library.scratch))
        #expect(plan.changed.isEmpty && plan.removedURIs.isEmpty && plan.unchanged == 3)
        // A new indexer on the same index, as a daemon's next start opens it, agrees.
        let again = try library.index()
        #expect(again == Indexer.BatchReport())
    }

    @Test func keptOutObjectsAreNeverHitsNorCounted() throws {
        let (library, _, _) = try shelvedLibrary()
        let reader = try library.reader
        #expect(reader.documentCount == 3)
        #expect(reader.searchableDocumentCount == 1)
        // An empty query matches every document, and a filter on the entity or the store matches
        // the stand-ins' terms: neither finds them.
        for text in ["", "entity:Book", "sand"] {
            var query = SearchQuery(text: text)
            query.booleanPrefixes = ["entity": IndexLayout.entityPrefix]
            query.limit = 0
            #expect(try reader.search(query).estimatedTotal == 1, "\(text)")
        }
        let service = try SearchService(indexPath: library.scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(library.scratch))
        #expect(try service.count(SearchService.Options(query: "entity:Book")) == 1)
        #expect(try library.search("privately").isEmpty)
    }

    @Test func aDescribedObjectReplacesItsStandIn() throws {
        let (library, _, hidden) = try shelvedLibrary()
        hidden[0].setValue("C3", forKey: "shelf")
        try library.context.save()
        let report = try library.index()
        #expect(report.indexed == 1 && report.keptOut == 0)
        #expect(try library.search("privately") == ["Book: Secret"])
        #expect(library.indexer.index.keptOutCount == 1)
        #expect(library.indexer.index.documentCount == 3)
    }

    @Test func aDeletedObjectsStandInGoes() throws {
        let (library, _, hidden) = try shelvedLibrary()
        library.context.delete(hidden[1])
        try library.context.save()
        let report = try library.index()
        #expect(report.removed == 1)
        #expect(library.indexer.index.keptOutCount == 1)
        #expect(library.indexer.index.documentCount == 2)
    }

    /// An importer program's `"excluded": true` becomes the same stand-in: no text, no data,
    /// the marker's time, the excluded term.
    @Test func anImporterProgramsExclusionIsAStandInToo() throws {
        let scratch = try Scratch()
        let indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch),
                                  importerDirectories: [])
        let record = IndexRecord(marker: "/records/0C1F4A2E-0000-0000-0000-000000000001/Note/4.note", excluded: true)
        let document = try indexer.document(for: record, markerTime: 12.5)
        #expect(document.booleanTerms.contains(IndexLayout.excludedTerm))
        #expect(document.fields.isEmpty && document.data.isEmpty)
        #expect(document.values == [IndexLayout.markerTimeSlot: SearchIndex.sortableSerialise(12.5)])
    }

    /// What the daemon does for a delegate's `deleteSpotlightIndex()`: one store's documents
    /// become stand-ins, another store's stay, and the markers are up to date for a reconcile.
    @Test func removingAStoresDocumentsLeavesOtherStoresAlone() throws {
        let (library, _, _) = try shelvedLibrary()
        let store = try #require(LibraryModel.roots(library.scratch).keys.first)
        let other = IndexRecord(marker: "/records/0C1F4A2E-0000-0000-0000-000000000001/Note/4.note", displayName: "Elsewhere",
                                text: "sand elsewhere")
        try library.indexer.index.replaceDocument(library.indexer.document(for: other, markerTime: 1))
        try library.indexer.index.commit()
        #expect(try library.indexer.removeDocuments(ofStore: store) == 1)
        #expect(library.indexer.index.searchableDocumentCount == 1)
        #expect(library.indexer.index.keptOutCount == 3)
        let reader = try library.reader
        var query = SearchQuery(text: "sand")
        query.limit = 10
        #expect(try reader.search(query).hits.count == 1)
        let plan = try Reconciler.plan(index: library.indexer.index, roots: LibraryModel.roots(library.scratch),
                                       registered: [store, "0C1F4A2E-0000-0000-0000-000000000001"])
        #expect(plan.changed.isEmpty && plan.removedURIs.isEmpty)
        #expect(throws: SearchIndexError.self) { try library.indexer.removeDocuments(ofStore: "a/b") }
    }
}
