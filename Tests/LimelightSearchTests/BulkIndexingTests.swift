import Foundation
import LimelightData
@testable import LimelightSearch
import Testing

/// The bulk paths of indexing give what the one-record paths give: batch imports, the caching
/// marker decoder, marker paths taken apart as text, sort keys, and batches larger than one
/// import chunk (read on a second thread), on a real store and a real index.
struct BulkIndexingTests {
    @Test func aBatchImportGivesWhatImportingOneByOneGives() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        var books: [ManagedObject] = []
        for number in 0..<7 {
            books.append(try LibraryModel.addBook(context, title: "Book \(number)", summary: "volume \(number)", pages: Int32(number),
                                                  authors: number % 2 == 0 ? ["Author \(number)"] : []))
        }
        try context.save()
        try LibraryModel.flush(context)
        var markers = try books.map { try LibraryModel.marker(of: $0, in: scratch) }
        // One whose object is deleted (its marker kept as a copy) and one outside every root.
        let gone = scratch.url.appendingPathComponent("gone.book")
        try FileManager.default.copyItem(atPath: markers[3], toPath: gone.path)
        context.delete(books[3])
        try context.save()
        try LibraryModel.flush(context)
        try FileManager.default.moveItem(atPath: gone.path, toPath: markers[3])
        let outside = scratch.url.appendingPathComponent("Book/1.book")
        try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: outside)
        markers.append(outside.path)

        // A chunk size of 2 makes several queries, and one chunk holds the deleted object.
        let batch = GenericImporter(registry: LibraryModel.registry(scratch)).importRecords(markerPaths: markers, chunkSize: 2)
        let single = GenericImporter(registry: LibraryModel.registry(scratch))
        #expect(batch.count == markers.count)
        for (marker, outcome) in zip(markers, batch) {
            switch (outcome, Result { try single.importRecord(markerPath: marker) }) {
            case (.success(let many), .success(let one)):
                #expect(many == one)
            case (.failure(let many), .failure(let one)):
                #expect("\(many)" == "\(one)")
            default:
                Issue.record("\(marker): batch \(outcome) but alone otherwise")
            }
        }
        #expect(batch.filter { if case .failure = $0 { true } else { false } }.count == 2)
        if case .success(let record) = batch[0] { #expect(record.fields?["authors"] == "Author 0") }
    }

    @Test func theCachingDecoderAgreesWithDecodingEachMarkerAlone() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let book = try LibraryModel.addBook(context, title: "Dune", summary: "sand", pages: 1)
        try context.save()
        try LibraryModel.flush(context)
        let marker = try LibraryModel.marker(of: book, in: scratch)
        let roots = LibraryModel.roots(scratch)
        let root = try #require(roots.values.first)
        let decoder = ExternalRecordPathDecoder(roots: roots)
        let paths = [marker, marker + "/", root.appendingPathComponent("Book/../Book/1.book").path,
                     root.appendingPathComponent("Book/12.txt").path, root.appendingPathComponent("Shelf/1.book").path,
                     root.appendingPathComponent("Book/x1.book").path, scratch.url.appendingPathComponent("1.book").path]
        for path in paths {
            switch (Result { try decoder.decode(path) }, Result { try ExternalRecordPath.decode(path, roots: roots) }) {
            case (.success(let cached), .success(let alone)):
                #expect(cached == alone)
            case (.failure(let cached), .failure(let alone)):
                #expect("\(cached)" == "\(alone)")
            default:
                Issue.record("\(path): the decoders disagree")
            }
        }
        #expect(try decoder.decode(marker).objectURI == book.objectID.uriRepresentation())
        // A marker that is a symlink to a file outside every root is refused, folder cached or not.
        let elsewhere = scratch.url.appendingPathComponent("elsewhere.book")
        try Data().write(to: elsewhere)
        let link = root.appendingPathComponent("Book/99.book")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
        let refused = try #require(throws: ExternalRecordError.self) { try decoder.decode(link.path) }
        #expect(refused.reason.contains("not inside any registered records folder"))
    }

    @Test func markerPathsTakenApartAsTextMatchFileURLs() {
        for path in ["/r/STORE/Note/12.note", "/r/STORE/Note/12", "/STORE/Note/7.a.b", "/x/S/E/.hidden",
                     "/r/STORE/Note/12.note/", "/r//STORE//Note//12.note", "/r/STÖRE/Nöte/5.nöte"] {
            let url = URL(fileURLWithPath: path)
            let parts = IndexLayout.MarkerParts(path)
            #expect(parts.fileName == url.lastPathComponent, "\(path)")
            #expect(parts.key == url.deletingPathExtension().lastPathComponent, "\(path)")
            #expect(parts.entity == url.deletingLastPathComponent().lastPathComponent, "\(path)")
            #expect(parts.store == url.deletingLastPathComponent().deletingLastPathComponent().lastPathComponent, "\(path)")
            #expect(IndexLayout.fileExtension(ofMarker: path) == url.pathExtension, "\(path)")
        }
        #expect(IndexLayout.objectURI(forMarker: "/r/STORE/Note/12.note") == "x-coredata://STORE/Note/p12")
        #expect(IndexLayout.objectURI(forMarker: "/r/STORE/.Note/12.note") == nil)
        #expect(IndexLayout.objectURI(forMarker: "/r/STORE/Note/0.note") == nil)
    }

    @Test func sortKeysAreTheLowercasedText() {
        for text in ["Plain ASCII 42", "Crème Brûlée", "ÉCOLE", "Straße", "İstanbul", "ΣΊΣΥΦΟΣ", "ǅemal", "", "日本語 Text", "🍅 Salsa"] {
            #expect(Indexer.sortKey(text) == Data(text.lowercased().utf8), "\(text)")
        }
    }

    @Test func aBatchLargerThanOneImportChunkIndexesEveryRecord() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let count = Indexer.importChunkSize * 2 + 7
        for number in 0..<count {
            _ = try LibraryModel.addBook(context, title: "Title \(number)", summary: number % 100 == 0 ? "centennial" : "ordinary",
                                         pages: Int32(number))
        }
        try context.save()
        try LibraryModel.flush(context)
        let roots = LibraryModel.roots(scratch)
        let indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch),
                                  importerDirectories: [])
        let plan = try Reconciler.plan(index: indexer.index, roots: roots)
        var reported: [Int] = []
        let report = indexer.apply(changed: plan.changed, removedURIs: []) { reported.append($0) }
        #expect(report.indexed == count && report.failed == 0)
        #expect(reported == Array(1...count))
        #expect(indexer.index.documentCount == count)
        let reader = try SearchIndexReader(path: indexer.index.path)
        var query = SearchQuery(text: "centennial")
        query.limit = count
        #expect(try reader.search(query).hits.count == (count + 99) / 100)
        #expect(try Reconciler.plan(index: indexer.index, roots: roots).unchanged == count)
    }

    /// A bulk run into an empty index writes two shards and swaps their merge in: the result is
    /// the index one writer would have made (documents, metadata, searches), nothing is left
    /// beside it, and later batches go into it as usual.
    @Test func aBulkRunAsLargeAsTheIndexMergesShardsIntoPlace() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let count = Indexer.importChunkSize * 3 + 11
        var books: [ManagedObject] = []
        for number in 0..<count {
            books.append(try LibraryModel.addBook(context, title: "Title \(number)", summary: number % 10 == 0 ? "decimal" : "plain",
                                                  pages: Int32(number)))
        }
        try context.save()
        try LibraryModel.flush(context)
        let roots = LibraryModel.roots(scratch)
        let indexURL = scratch.url.appendingPathComponent("index")
        let indexer = try Indexer(indexPath: indexURL, registry: LibraryModel.registry(scratch), importerDirectories: [])
        let before = try FileManager.default.attributesOfItem(atPath: indexURL.path)[.systemFileNumber] as? Int
        let report = indexer.apply(changed: try Reconciler.plan(index: indexer.index, roots: roots).changed, removedURIs: [])
        #expect(report.indexed == count && report.failed == 0)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            // Swapped in whole: the index folder is another one now.
            #expect(try FileManager.default.attributesOfItem(atPath: indexURL.path)[.systemFileNumber] as? Int != before)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).allSatisfy { !$0.contains(".bulk-") })
        #expect(indexer.index.documentCount == count)
        #expect(try indexer.index.metadata(forKey: IndexLayout.languageKey) == "english")
        #expect(try indexer.index.metadata(forKey: IndexLayout.fieldsKey)?.contains("summary") == true)
        var query = SearchQuery(text: "summary:decimal")
        query.fieldPrefixes = ["summary": IndexLayout.fieldPrefix("summary")]
        query.limit = count
        #expect(try SearchIndexReader(path: indexURL.path).search(query).hits.count == (count + 9) / 10)
        // Each shard recorded the stems of the words it met first; the merge keeps both tables.
        var stemmed = query
        stemmed.text = "summary:decimals OR summary:plains"
        #expect(try SearchIndexReader(path: indexURL.path).search(stemmed).hits.count == count)

        // The writer goes on in the merged index: a change replaces its document, not adds one.
        books[5].setValue("decimal", forKey: "summary")
        try context.save()
        try LibraryModel.flush(context)
        let plan = try Reconciler.plan(index: indexer.index, roots: roots)
        #expect(plan.changed.count == 1)
        #expect(indexer.apply(changed: plan.changed, removedURIs: []).indexed == 1)
        #expect(indexer.index.documentCount == count)
        #expect(try SearchIndexReader(path: indexURL.path).search(query).hits.count == (count + 9) / 10 + 1)

        // A batch as large as the index goes through shards again: its documents replace their
        // old versions, removals go, and the rest of the index stays.
        for book in books { book.setValue("rewritten", forKey: "summary") }
        for book in books.prefix(2) { context.delete(book) }
        for number in 0..<11 { _ = try LibraryModel.addBook(context, title: "Late \(number)", summary: "rewritten", pages: 1) }
        try context.save()
        try LibraryModel.flush(context)
        let big = try Reconciler.plan(index: indexer.index, roots: roots)
        #expect(big.changed.count == count + 9 && big.removedURIs.count == 2)
        let merged = try FileManager.default.attributesOfItem(atPath: indexURL.path)[.systemFileNumber] as? Int
        let second = indexer.apply(changed: big.changed, removedURIs: big.removedURIs)
        #expect(second.indexed == count + 9 && second.removed == 2 && second.failed == 0)
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            #expect(try FileManager.default.attributesOfItem(atPath: indexURL.path)[.systemFileNumber] as? Int != merged)
        }
        #expect(indexer.index.documentCount == count + 9)
        let reader = try SearchIndexReader(path: indexURL.path)
        #expect(try reader.search(query).hits.isEmpty)
        query.text = "summary:rewritten"
        query.limit = count + 20
        #expect(try reader.search(query).hits.count == count + 9)
        #expect(try Reconciler.plan(index: indexer.index, roots: roots).unchanged == count + 9)
    }
}
