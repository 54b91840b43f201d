import Foundation
import LimelightData
@testable import LimelightSearch
import Testing

/// `context.search(_:)`: an application's search of the real index for its own objects, resolved
/// in its own context, on real stores indexed by the real indexer.
struct SpotlightQueryTests {
    /// A library store with three books and an author, indexed.
    final class Library {
        let scratch: Scratch
        let context: ManagedObjectContext
        let indexer: Indexer
        var indexURL: URL { scratch.url.appendingPathComponent("index") }

        init() throws {
            scratch = try Scratch()
            context = try LibraryModel.open(in: scratch)
            try LibraryModel.addBook(context, title: "Dune", summary: "sand and spice on a desert planet", pages: 412, authors: ["Frank Herbert"])
            try LibraryModel.addBook(context, title: "The Sand Child", summary: "a novel of the desert", pages: 165)
            try LibraryModel.addBook(context, title: "Solaris", summary: "an ocean planet", pages: 204)
            try context.save()
            indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch),
                                  importerDirectories: [])
            try index()
        }

        /// Brings the index in step with the markers, as the daemon does after saves.
        func index() throws {
            try LibraryModel.flush(context)
            let plan = try Reconciler.plan(index: indexer.index, roots: LibraryModel.roots(scratch))
            indexer.apply(changed: plan.changed, removedURIs: plan.removedURIs)
        }

        func query(_ text: String) -> SpotlightQuery {
            var query = SpotlightQuery(text)
            query.indexURL = indexURL
            return query
        }

        func titles(_ query: SpotlightQuery) throws -> [String] {
            try context.search(query).hits.map { $0.object.value(forKey: "title") as? String ?? "?" }
        }

        func book(_ title: String) throws -> ManagedObject {
            let request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try QueryPredicate(format: "title == %@", title)
            return try #require(try context.fetch(request).first)
        }
    }

    @Test func hitsAreTheContextsOwnObjects() throws {
        let library = try Library()
        let results = try library.context.search(library.query("desert"))
        #expect(Set(results.hits.map { $0.object.value(forKey: "title") as? String }) == ["Dune", "The Sand Child"])
        #expect(results.estimatedTotal == 2)
        let dune = try library.book("Dune")
        let hit = try #require(results.hits.first { $0.object.objectID == dune.objectID })
        #expect(hit.object === dune)
        #expect(hit.relevance > 0 && hit.relevance <= 100)
        #expect(hit.snippet.contains("[desert]"))
        #expect(hit.displayName == "Dune")
        #expect(FileManager.default.fileExists(atPath: hit.markerURL.path))
        // A field, a phrase, a wildcard and a stem, as `limelight search` takes them.
        #expect(try library.titles(library.query("title:solaris")) == ["Solaris"])
        #expect(try library.titles(library.query("\"ocean planet\"")) == ["Solaris"])
        #expect(Set(try library.titles(library.query("plan*"))) == ["Dune", "Solaris"])
        #expect(Set(try library.titles(library.query("planets"))) == ["Dune", "Solaris"])
    }

    @Test func entitiesSortingAndPaging() throws {
        let library = try Library()
        var authors = library.query("herbert")
        authors.entityNames = ["Author"]
        #expect(try library.context.search(authors).hits.map { $0.object.entity.name } == ["Author"])
        // A book's document holds its authors' indexed names: the book is found by them too.
        authors.entityNames = ["Book"]
        #expect(try library.titles(authors) == ["Dune"])
        authors.entityNames = ["Shelf"]
        let unknown = try #require(throws: SearchIndexError.self) { try library.context.search(authors) }
        #expect("\(unknown)".contains("Shelf"))

        var byPages = library.query("")
        byPages.entityNames = ["Book"]
        byPages.sortKey = "pages"
        #expect(try library.titles(byPages) == ["The Sand Child", "Solaris", "Dune"])
        byPages.ascending = false
        #expect(try library.titles(byPages) == ["Dune", "Solaris", "The Sand Child"])
        byPages.fetchOffset = 1
        byPages.fetchLimit = 1
        #expect(try library.titles(byPages) == ["Solaris"])
        byPages.sortKey = "shelf"
        #expect(throws: SearchIndexError.self) { try library.context.search(byPages) }
    }

    @Test func unsavedChangesShowAndDeletedObjectsAreSkipped() throws {
        let library = try Library()
        let dune = try library.book("Dune")
        dune.setValue("Dune Messiah", forKey: "title")
        let child = try library.book("The Sand Child")
        library.context.delete(child)
        let results = try library.context.search(library.query("desert"))
        // The index still has the saved text; the hit shows the object as the context has it.
        #expect(results.hits.map { $0.object.value(forKey: "title") as? String } == ["Dune Messiah"])
        #expect(results.skipped.count == 1)
        #expect(results.skipped.first?.objectURI == child.objectID.uriRepresentation().absoluteString)
        #expect(results.skipped.first?.reason.contains("deleted") == true)

        // Saved, but not yet indexed: the object is gone from the store and skipped all the same.
        try library.context.save()
        let fresh = try LibraryModel.open(in: library.scratch)
        var query = library.query("desert")
        query.fetchLimit = 10
        let stale = try fresh.search(query)
        #expect(stale.hits.count == 1 && stale.skipped.count == 1)
        // Once indexed, the search sees the index's new revision.
        try library.index()
        let current = try fresh.search(library.query("messiah"))
        #expect(current.hits.map { $0.object.value(forKey: "title") as? String } == ["Dune Messiah"])
        #expect(try fresh.search(query).skipped.isEmpty)
    }

    @Test func aContextSeesOnlyItsOwnStores() throws {
        let library = try Library()
        // A second library in the same registry and index.
        let other = try PersistentStoreCoordinator(managedObjectModel: LibraryModel.make())
        try other.addPersistentStore(type: .sqlite, at: library.scratch.url.appendingPathComponent("Other.sqlite"), options: [
            StoreOption.externalRecordExtension: "book",
            StoreOption.recordsRegistryDirectory: LibraryModel.registry(library.scratch).path,
        ])
        let otherContext = ManagedObjectContext(concurrencyType: .privateQueue)
        otherContext.persistentStoreCoordinator = other
        try otherContext.performAndWait {
            try LibraryModel.addBook(otherContext, title: "Desert Solitaire", summary: "a season in the desert", pages: 269)
            try otherContext.save()
        }
        try other.flushExternalRecords()
        try library.index()
        #expect(Set(try library.titles(library.query("desert"))) == ["Dune", "The Sand Child"])
        let theirs = try otherContext.search(library.query("desert")).hits
        #expect(theirs.count == 1)
        #expect(theirs.first?.object.managedObjectContext === otherContext)
    }

    @Test func searchesFromManyThreadsAtOnce() throws {
        let library = try Library()
        let contexts = try (0..<4).map { _ in try LibraryModel.open(in: library.scratch) }
        let failures = FailureList()
        let desert = library.query("desert"), ocean = library.query("ocean")
        DispatchQueue.concurrentPerform(iterations: 40) { round in
            let context = contexts[round % contexts.count]
            do {
                let hits = try context.search(round % 2 == 0 ? desert : ocean).hits
                let expected = round % 2 == 0 ? 2 : 1
                let inContext = context.performAndWait { hits.allSatisfy { $0.object.managedObjectContext === context } }
                if hits.count != expected || !inContext { failures.add("round \(round): \(hits.count) hits") }
            } catch {
                failures.add("round \(round): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
    }

    /// A live query hands over new results when the index moves on: real inotify on the index
    /// folder, real commits by the indexer.
    @Test func aLiveQueryFollowsTheIndex() throws {
        let library = try Library()
        let updates = UpdateList()
        let live = LiveSpotlightQuery(library.query("desert"), in: library.context) { results in
            updates.add(results.hits.map { $0.object.value(forKey: "title") as? String ?? "?" }.sorted())
        }
        try live.start()
        #expect(updates.all == [["Dune", "The Sand Child"]])
        try library.context.performAndWait {
            try LibraryModel.addBook(library.context, title: "Desert Solitaire", summary: "a season in the wilderness", pages: 269)
            try library.context.save()
        }
        try library.index()
        try updates.wait(for: 2)
        #expect(updates.all.last == ["Desert Solitaire", "Dune", "The Sand Child"])
        // A commit that changes nothing the query shows hands nothing over.
        try library.context.performAndWait {
            try LibraryModel.addBook(library.context, title: "Solaris II", summary: "the ocean again", pages: 10)
            try library.context.save()
        }
        try library.index()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(updates.all.count == 2)
        live.stop()
        try library.context.performAndWait {
            library.context.delete(try library.book("Dune"))
            try library.context.save()
        }
        try library.index()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(updates.all.count == 2)
        #expect(live.results?.hits.count == 3)

        var missing = library.query("desert")
        missing.indexURL = library.scratch.url.appendingPathComponent("no-index")
        #expect(throws: SearchIndexError.self) { try LiveSpotlightQuery(missing, in: library.context) { _ in }.start() }
    }

    @Test func badQueriesAndMissingIndexesSayWhat() throws {
        let library = try Library()
        let parse = try #require(throws: SearchIndexError.self) { try library.context.search(library.query("desert AND")) }
        #expect(parse.kind == .queryParse)
        var missing = library.query("desert")
        missing.indexURL = library.scratch.url.appendingPathComponent("no-index")
        let opening = try #require(throws: SearchIndexError.self) { try library.context.search(missing) }
        #expect(opening.kind == .opening)
        #expect("\(opening)".contains("no-index"))
    }
}

/// Failures gathered from several threads.
final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []
    func add(_ failure: String) { lock.lock(); failures.append(failure); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return failures }
}

/// Results a live query handed over, gathered from the context's queue.
final class UpdateList: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [[String]] = []
    func add(_ update: [String]) { lock.lock(); updates.append(update); lock.unlock() }
    var all: [[String]] { lock.lock(); defer { lock.unlock() }; return updates }

    /// Waits until `count` updates arrived, or fails after ten seconds.
    func wait(for count: Int) throws {
        let deadline = Date().addingTimeInterval(10)
        while all.count < count {
            guard Date() < deadline else { throw ScratchError("only \(all.count) of \(count) updates arrived") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
