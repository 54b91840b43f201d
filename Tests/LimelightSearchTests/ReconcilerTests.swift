import Foundation
import LimelightData
import LimelightSearch
import Testing

/// Reconcile: markers against the index by modification time, on a real store and index.
struct ReconcilerTests {
    @Test func indexesNewAndChangedMarkersAndRemovesDocumentsWhoseMarkersAreGone() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        var books: [ManagedObject] = []
        for number in 0..<5 { books.append(try LibraryModel.addBook(context, title: "Book \(number)", summary: "volume\(number)", pages: Int32(number))) }
        try context.save()
        try LibraryModel.flush(context)
        let roots = LibraryModel.roots(scratch)
        let indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch), importerDirectories: [])

        let first = try Reconciler.plan(index: indexer.index, roots: roots)
        #expect(first.changed.count == 5)
        #expect(first.removedURIs.isEmpty)
        indexer.apply(changed: first.changed, removedURIs: first.removedURIs)
        let settled = try Reconciler.plan(index: indexer.index, roots: roots)
        #expect(settled.changed.isEmpty && settled.removedURIs.isEmpty && settled.unchanged == 5)

        // One edited (its marker rewritten), one deleted (its marker removed), one added.
        books[1].setValue("revised", forKey: "summary")
        let changedMarker = try LibraryModel.marker(of: books[1], in: scratch)
        let deletedURI = books[3].objectID.uriRepresentation().absoluteString
        context.delete(books[3])
        let added = try LibraryModel.addBook(context, title: "Book 5", summary: "volume5", pages: 5)
        try context.save()
        try LibraryModel.flush(context)
        let plan = try Reconciler.plan(index: indexer.index, roots: roots)
        #expect(Set(plan.changed) == [changedMarker, try LibraryModel.marker(of: added, in: scratch)])
        #expect(plan.removedURIs == [deletedURI])
        #expect(plan.unchanged == 3)
        indexer.apply(changed: plan.changed, removedURIs: plan.removedURIs)
        #expect(indexer.index.documentCount == 5)
        #expect(!(try indexer.index.contains(uniqueTerm: "Q" + deletedURI)))
        let reader = try SearchIndexReader(path: indexer.index.path)
        #expect(try reader.search(SearchQuery(text: "revised")).hits.count == 1)
    }

    @Test func aMarkerTouchedWithoutAnEventIsFoundByItsTime() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        let book = try LibraryModel.addBook(context, title: "Touched", summary: "text", pages: 1)
        try context.save()
        try LibraryModel.flush(context)
        let roots = LibraryModel.roots(scratch)
        let indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch), importerDirectories: [])
        indexer.apply(changed: try Reconciler.plan(index: indexer.index, roots: roots).changed, removedURIs: [])
        let marker = try LibraryModel.marker(of: book, in: scratch)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: marker)
        #expect(try Reconciler.plan(index: indexer.index, roots: roots).changed == [marker])
    }

    @Test func reconcilingOneStoreLeavesOtherRegisteredStoresAlone() throws {
        let scratch = try Scratch()
        let context = try LibraryModel.open(in: scratch)
        try LibraryModel.addBook(context, title: "First store", summary: "alpha", pages: 1)
        try context.save()
        try LibraryModel.flush(context)
        // A second store, registered in the same registry.
        let other = try Scratch()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: LibraryModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: other.url.appendingPathComponent("Other.sqlite"), options: [
            StoreOption.externalRecordExtension: "book", StoreOption.recordsRegistryDirectory: LibraryModel.registry(scratch).path,
        ])
        let otherContext = ManagedObjectContext(concurrencyType: .privateQueue)
        otherContext.persistentStoreCoordinator = coordinator
        try LibraryModel.addBook(otherContext, title: "Second store", summary: "beta", pages: 2)
        try otherContext.save()
        try LibraryModel.flush(otherContext)
        let roots = LibraryModel.roots(scratch)
        #expect(roots.count == 2)
        let indexer = try Indexer(indexPath: scratch.url.appendingPathComponent("index"), registry: LibraryModel.registry(scratch), importerDirectories: [])
        indexer.apply(changed: try Reconciler.plan(index: indexer.index, roots: roots).changed, removedURIs: [])
        #expect(indexer.index.documentCount == 2)

        let firstStore = try #require(roots.first { $0.value.path.hasPrefix(scratch.url.path) })
        let alone = try Reconciler.plan(index: indexer.index, roots: [firstStore.key: firstStore.value], registered: Set(roots.keys))
        #expect(alone.removedURIs.isEmpty)
        #expect(alone.unchanged == 1)
        // A store no longer registered at all loses its documents.
        let orphaned = try Reconciler.plan(index: indexer.index, roots: [firstStore.key: firstStore.value], registered: [firstStore.key])
        #expect(orphaned.removedURIs.count == 1)
        #expect(orphaned.removedURIs.first?.contains(firstStore.key) == false)
    }

    @Test func markersAreListedInKeyOrderAndOnlyNamesThatNameAnObjectCount() throws {
        let scratch = try Scratch()
        let root = scratch.url.appendingPathComponent("0C0FFEE0-0000-4000-8000-000000000001")
        let names = ["10.note", "9.note", "007.note", "3", "x.note", "0.note", "-4.note", "12.note.tmp", ".5.note", "8.a.b"]
        for folder in ["Note", ".Hidden"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            for name in names { try Data().write(to: root.appendingPathComponent("\(folder)/\(name)")) }
        }
        let markers = Reconciler.markers(in: root)
        #expect(markers.map { ($0 as NSString).lastPathComponent } == ["3", "007.note", "9.note", "10.note"])
        // The plan names each marker's object as the marker path itself does.
        let index = try SearchIndex(path: scratch.url.appendingPathComponent("index").path)
        let plan = try Reconciler.plan(index: index, roots: [root.lastPathComponent: root])
        #expect(plan.changed == markers)
        #expect(markers.compactMap(IndexLayout.objectURI(forMarker:)) == [3, 7, 9, 10].map { "x-coredata://\(root.lastPathComponent)/Note/p\($0)" })
    }
}
