import Foundation
import LimelightData
import LimelightSearch
import ScratchFolders

/// A fresh temporary folder per test, removed when the value goes away.
final class Scratch: ScratchFolder {
    init() throws { try super.init(prefix: "limelight-search-tests-") }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A plain query over documents written with `document(_:)`: `name:` and `body:` fields and
    /// the `kind:` filter.
    static func query(_ text: String) -> SearchQuery {
        var query = SearchQuery(text: text)
        query.fieldPrefixes = ["name": "XPNAME", "body": "XPBODY"]
        query.booleanPrefixes = ["kind": "XK"]
        return query
    }

    /// A document with a name and a body field, a `kind` filter term and a numeric value in slot 10.
    static func document(_ id: String, name: String, body: String, kind: String = "Note", rank: Double = 0) -> IndexDocument {
        IndexDocument(uniqueTerm: "Q" + id, booleanTerms: [IndexLayout.booleanTerm("XK", kind)],
                      fields: [("XPNAME", name), ("XPBODY", body)],
                      values: [10: SearchIndex.sortableSerialise(rank), 2: Data("\(name) — \(body)".utf8)],
                      data: Data(id.utf8))
    }
}

/// Which documents a search returns, by their data (the `id` given to `Scratch.document`).
func ids(_ reader: SearchIndexReader, _ query: SearchQuery) throws -> [String] {
    try reader.search(query).hits.map { String(decoding: $0.data, as: UTF8.self) }
}

func ids(_ reader: SearchIndexReader, _ text: String) throws -> Set<String> {
    Set(try ids(reader, Scratch.query(text)))
}

/// A library model: books with indexed title, summary and page count, and an indexed to-many
/// relationship to authors whose `name` is indexed; books show their title (entity userInfo
/// `displayNameKey`). Notes have no display-name key, so their first indexed string names them.
enum LibraryModel {
    static func make() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        let summary = AttributeDescription(name: "summary", type: .string)
        summary.isIndexedBySpotlight = true
        let pages = AttributeDescription(name: "pages", type: .integer32)
        pages.isIndexedBySpotlight = true
        let shelf = AttributeDescription(name: "shelf", type: .string)
        let authors = RelationshipDescription(name: "authors", destination: "Author", inverse: "book", toMany: true)
        authors.isIndexedBySpotlight = true
        let book = EntityDescription(name: "Book", properties: [title, summary, pages, shelf, authors])
        book.userInfo["displayNameKey"] = "title"
        let authorName = AttributeDescription(name: "name", type: .string)
        authorName.isIndexedBySpotlight = true
        let country = AttributeDescription(name: "country", type: .string)
        let author = EntityDescription(name: "Author", properties: [
            authorName, country, RelationshipDescription(name: "book", destination: "Book", inverse: "authors"),
        ])
        let count = AttributeDescription(name: "count", type: .integer16)
        let heading = AttributeDescription(name: "heading", type: .string)
        heading.isIndexedBySpotlight = true
        let text = AttributeDescription(name: "text", type: .string)
        text.isIndexedBySpotlight = true
        let note = EntityDescription(name: "Note", properties: [count, heading, text])
        return ManagedObjectModel(entities: [book, author, note])
    }

    /// A store with `.book` markers registered in `scratch`'s own registry.
    static func open(in scratch: Scratch) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: make())
        try coordinator.addPersistentStore(type: .sqlite, at: scratch.url.appendingPathComponent("Library.sqlite"), options: [
            StoreOption.externalRecordExtension: "book",
            StoreOption.recordsRegistryDirectory: registry(scratch).path,
        ])
        scratch.closeFirst(coordinator)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    static func registry(_ scratch: Scratch) -> URL { scratch.url.appendingPathComponent("roots") }

    static func roots(_ scratch: Scratch) -> [String: URL] { ExternalRecordsRegistry.registeredRoots(in: registry(scratch)) }

    @discardableResult
    static func addBook(_ context: ManagedObjectContext, title: String, summary: String, pages: Int32, authors: [String] = []) throws -> ManagedObject {
        let book = try context.insertNewObject(forEntityName: "Book")
        book.setValue(title, forKey: "title")
        book.setValue(summary, forKey: "summary")
        book.setValue(pages, forKey: "pages")
        book.setValue("A1", forKey: "shelf")
        for name in authors {
            let author = try context.insertNewObject(forEntityName: "Author")
            author.setValue(name, forKey: "name")
            author.setValue("nowhere", forKey: "country")
            author.setValue(book, forKey: "book")
        }
        return book
    }

    /// Waits for the markers of the context's saves: they are written after `save()` returns.
    static func flush(_ context: ManagedObjectContext) throws {
        try context.persistentStoreCoordinator?.flushExternalRecords()
    }

    /// The marker of an object, from its store's records root.
    static func marker(of object: ManagedObject, in scratch: Scratch) throws -> String {
        let uri = object.objectID.uriRepresentation().absoluteString
        let parts = uri.dropFirst("x-coredata://".count).split(separator: "/")
        guard parts.count == 3, let root = roots(scratch)[String(parts[0])] else { throw ScratchError("no root for \(uri)") }
        return root.appendingPathComponent("\(parts[1])/\(parts[2].dropFirst()).book").path
    }
}

struct ScratchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
