import Foundation
import LimelightData
import LimelightSearch
import Testing

/// The model-driven importer and the indexer, on a real SQLite store with real marker files.
struct GenericImporterTests {
    @Test func importsEveryIndexedPropertyWithRelatedObjectsAndTheDisplayNameKey() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let book = try LibraryModel.addBook(context, title: "Dune", summary: "Spice and sand.", pages: 412,
                                            authors: ["Frank Herbert", "Brian Herbert"])
        try context.save()
        try LibraryModel.flush(context)
        let marker = try LibraryModel.marker(of: book, in: scratch)
        #expect(FileManager.default.fileExists(atPath: marker))

        let record = try GenericImporter(registry: LibraryModel.registry(scratch)).importRecord(markerPath: marker)
        #expect(record.displayName == "Dune")
        #expect(record.entity == "Book")
        #expect(record.uri == book.objectID.uriRepresentation().absoluteString)
        #expect(record.fields?["title"] == "Dune")
        #expect(record.fields?["summary"] == "Spice and sand.")
        #expect(record.fields?["pages"] == "412")
        // The related authors' indexed names, not their unindexed country.
        let authors = try #require(record.fields?["authors"])
        #expect(authors.contains("Frank Herbert") && authors.contains("Brian Herbert"))
        #expect(!authors.contains("nowhere"))
        // Unindexed attributes stay out.
        #expect(record.fields?["shelf"] == nil)
        #expect(record.values?["pages"] == .number(412))
        #expect(record.values?["title"] == .text("Dune"))
    }

    @Test func withoutADisplayNameKeyTheFirstIndexedStringNamesTheRecord() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let note = try context.insertNewObject(forEntityName: "Note")
        note.setValue("Shopping", forKey: "heading")
        note.setValue("eggs, flour", forKey: "text")
        note.setValue(Int16(3), forKey: "count")
        try context.save()
        try LibraryModel.flush(context)
        let root = try #require(LibraryModel.roots(scratch).values.first)
        let pk = note.objectID.uriRepresentation().lastPathComponent.dropFirst()
        let record = try GenericImporter(registry: LibraryModel.registry(scratch))
            .importRecord(markerPath: root.appendingPathComponent("Note/\(pk).book").path)
        #expect(record.displayName == "Shopping")
        #expect(record.fields?["count"] == nil)
    }

    @Test func readsCurrentValuesAfterAnotherSave() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let book = try LibraryModel.addBook(context, title: "Draft", summary: "first words", pages: 10)
        try context.save()
        try LibraryModel.flush(context)
        let importer = GenericImporter(registry: LibraryModel.registry(scratch))
        let marker = try LibraryModel.marker(of: book, in: scratch)
        #expect(try importer.importRecord(markerPath: marker).fields?["summary"] == "first words")
        book.setValue("second thoughts", forKey: "summary")
        try context.save()
        try LibraryModel.flush(context)
        #expect(try importer.importRecord(markerPath: marker).fields?["summary"] == "second thoughts")
    }

    @Test func refusesMarkersItCannotStandFor() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let book = try LibraryModel.addBook(context, title: "Gone", summary: "soon deleted", pages: 1)
        try context.save()
        try LibraryModel.flush(context)
        let marker = try LibraryModel.marker(of: book, in: scratch)
        let importer = GenericImporter(registry: LibraryModel.registry(scratch))
        context.delete(book)
        try context.save()
        try LibraryModel.flush(context)
        #expect(throws: (any Error).self) { try importer.importRecord(markerPath: marker) }
        let outside = scratch.url.appendingPathComponent("Book/1.book")
        try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: outside)
        let refused = try #require(throws: ExternalRecordError.self) { try importer.importRecord(markerPath: outside.path) }
        #expect(refused.reason.contains("not inside any registered records folder"))
    }

    @Test func indexedRecordsAreFoundAndResolvedToLiveObjects() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        try LibraryModel.addBook(context, title: "Dune", summary: "Spice and sand.", pages: 412, authors: ["Frank Herbert"])
        try LibraryModel.addBook(context, title: "Emma", summary: "Matchmaking in Highbury.", pages: 474, authors: ["Jane Austen"])
        try LibraryModel.addBook(context, title: "Ubik", summary: "Half-life and spray cans.", pages: 202, authors: ["Philip K. Dick"])
        try context.save()
        try LibraryModel.flush(context)
        let indexURL = scratch.url.appendingPathComponent("index")
        let indexer = try Indexer(indexPath: indexURL, registry: LibraryModel.registry(scratch), importerDirectories: [])
        let root = try #require(LibraryModel.roots(scratch).values.first)
        let report = indexer.apply(changed: Reconciler.markers(in: root), removedURIs: [])
        // Three books and their three authors: authors have an indexed name, so markers too.
        #expect(report.indexed == 6)
        #expect(report.failed == 0)

        let service = try SearchService(indexPath: indexURL, registry: LibraryModel.registry(scratch))
        func titles(_ text: String, sort: String? = nil) throws -> [String] {
            var options = SearchService.Options(query: text)
            options.sort = sort
            return try service.search(options).hits.map { $0.values["title"] as? String ?? "?" }
        }
        #expect(try titles("spice") == ["Dune"])
        #expect(try titles("authors:austen") == ["Emma"])
        #expect(try titles("title:emma OR title:ubik", sort: "title") == ["Emma", "Ubik"])
        #expect(try titles("entity:Book", sort: "pages") == ["Ubik", "Dune", "Emma"])
        #expect(try titles("entity:Book", sort: "pages:desc") == ["Emma", "Dune", "Ubik"])
        #expect(try titles("entity:Book", sort: "-displayName") == ["Ubik", "Emma", "Dune"])
        #expect(throws: SearchIndexError.self) { try titles("entity:Book", sort: "shelf") }
        var count = SearchService.Options(query: "entity:Book")
        count.limit = 1
        #expect(try service.count(count) == 3)
        #expect(try service.search(count).hits.count == 1)

        // Values come from the store as it is now, not from the index.
        let emma = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first { $0.value(forKey: "title") as? String == "Emma" })
        emma.setValue(500, forKey: "pages")
        try context.save()
        try LibraryModel.flush(context)
        let hit = try #require(try service.search(SearchService.Options(query: "highbury")).hits.first)
        #expect(hit.values["pages"] as? Int32 == 500)
        #expect(hit.document.displayName == "Emma")
        #expect(hit.snippet.contains("[Highbury]"))
    }

    @Test func hitsWhoseObjectIsGoneAreDroppedAndReported() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        try LibraryModel.addBook(context, title: "Kept", summary: "a common word", pages: 1)
        let doomed = try LibraryModel.addBook(context, title: "Doomed", summary: "a common word", pages: 2)
        try context.save()
        try LibraryModel.flush(context)
        let indexURL = scratch.url.appendingPathComponent("index")
        let indexer = try Indexer(indexPath: indexURL, registry: LibraryModel.registry(scratch), importerDirectories: [])
        let root = try #require(LibraryModel.roots(scratch).values.first)
        indexer.apply(changed: Reconciler.markers(in: root), removedURIs: [])
        // The row goes behind the index's back: straight through SQLite, the marker stays.
        let pk = doomed.objectID.uriRepresentation().lastPathComponent.dropFirst()
        try sqlite(scratch.url.appendingPathComponent("Library.sqlite"), "DELETE FROM ZBOOK WHERE Z_PK = \(pk);")
        let outcome = try SearchService(indexPath: indexURL, registry: LibraryModel.registry(scratch)).search(SearchService.Options(query: "common"))
        #expect(outcome.hits.map(\.document.displayName) == ["Kept"])
        #expect(outcome.dropped.map(\.document.displayName) == ["Doomed"])
        #expect(outcome.dropped.first?.reason.isEmpty == false)
    }

    @Test func searchesStemLikeTheIndexWasWritten() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        try LibraryModel.addBook(context, title: "Salsa", summary: "Chopped tomatoes", pages: 1)
        try context.save()
        try LibraryModel.flush(context)
        let indexURL = scratch.url.appendingPathComponent("index")
        let indexer = try Indexer(indexPath: indexURL, language: "none", registry: LibraryModel.registry(scratch), importerDirectories: [])
        indexer.apply(changed: Reconciler.markers(in: try #require(LibraryModel.roots(scratch).values.first)), removedURIs: [])
        let service = try SearchService(indexPath: indexURL, registry: LibraryModel.registry(scratch))
        // English stemming would look for the stem "tomato", which an unstemmed index lacks.
        #expect(try service.search(SearchService.Options(query: "tomatoes")).hits.count == 1)
        #expect(try service.search(SearchService.Options(query: "tomato")).hits.isEmpty)
        var english = SearchService.Options(query: "tomatoes")
        english.language = "english"
        #expect(try service.search(english).hits.isEmpty)
    }

    @Test func propertiesNamedLikeTheFiltersDoNotBreakSearching() throws {
        let scratch = try Scratch()
        let path = scratch.url.appendingPathComponent("index")
        let index = try SearchIndex(path: path.path)
        try index.setMetadata("name,store,entity", forKey: IndexLayout.fieldsKey)
        let data = IndexLayout.DocumentData(marker: scratch.path("Thing/1.x"), uri: "x-coredata://S/Thing/p1", entity: "Thing", store: "S", displayName: "One")
        try index.replaceDocument(IndexDocument(uniqueTerm: "Qx-coredata://S/Thing/p1", booleanTerms: ["XE:Thing"],
                                                fields: [("XPNAME", "widget"), ("XPSTORE", "corner shop")], data: try JSONEncoder().encode(data)))
        try index.commit()
        let service = try SearchService(indexPath: path, registry: LibraryModel.registry(scratch))
        let outcome = try service.search(SearchService.Options(query: "name:widget entity:Thing shop"))
        // Found, then dropped: no store is registered for it.
        #expect(outcome.hits.isEmpty)
        #expect(outcome.dropped.map(\.document.uri) == ["x-coredata://S/Thing/p1"])
    }

    /// Runs the sqlite3 shell on a store, as another program changing it would.
    private func sqlite(_ store: URL, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", store.path, sql]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ScratchError("sqlite3 exited \(process.terminationStatus)") }
    }
}
