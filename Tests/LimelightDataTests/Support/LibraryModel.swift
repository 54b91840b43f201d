import Foundation
@testable import LimelightData

/// The read-only-data demo of the 2008 talk: books, the friends they are loaned to, their authors.
enum LibraryModel {
    static func make() -> ManagedObjectModel {
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "replacementCost", type: .double),
            AttributeDescription(name: "published", type: .date),
            AttributeDescription(name: "pages", type: .integer32),
            RelationshipDescription(name: "loanedTo", destination: "Friend", inverse: "books"),
            RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
        ])
        let friend = EntityDescription(name: "Friend", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "books", destination: "Book", inverse: "loanedTo", toMany: true),
        ])
        let author = EntityDescription(name: "Author", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true),
        ])
        return ManagedObjectModel(entities: [book, friend, author])
    }

    /// A context over a new store (SQLite at `url`, in memory for `nil`).
    static func stack(at url: URL?) throws -> ManagedObjectContext {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: make())
        try coordinator.addPersistentStore(type: url == nil ? .inMemory : .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    struct BookData {
        var title: String
        var cost: Double
        var published: Date
        var pages: Int32
        var loanedTo: String?
        var author: String
    }

    /// Four books, two friends, two loans (both to Alice), two authors.
    static let books: [BookData] = [
        BookData(title: "Cocoa Programming", cost: 49.5, published: Date(timeIntervalSinceReferenceDate: 100_000), pages: 450,
                 loanedTo: "Alice", author: "Hillegass"),
        BookData(title: "Core Data", cost: 35.25, published: Date(timeIntervalSinceReferenceDate: 300_000), pages: 250,
                 loanedTo: nil, author: "Zarra"),
        BookData(title: "Objective-C", cost: 29.0, published: Date(timeIntervalSinceReferenceDate: 50_000), pages: 320,
                 loanedTo: "Alice", author: "Hillegass"),
        BookData(title: "Advanced Mac OS X", cost: 54.75, published: Date(timeIntervalSinceReferenceDate: 200_000), pages: 800,
                 loanedTo: nil, author: "Hillegass"),
    ]

    /// Inserts the demo data and saves; returns the objects by title and name.
    @discardableResult
    static func fill(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        var byName: [String: ManagedObject] = [:]
        for name in ["Alice", "Bob"] {
            let friend = try context.insertNewObject(forEntityName: "Friend")
            friend.setValue(name, forKey: "name")
            byName[name] = friend
        }
        for name in ["Hillegass", "Zarra"] {
            let author = try context.insertNewObject(forEntityName: "Author")
            author.setValue(name, forKey: "name")
            byName[name] = author
        }
        for data in books {
            let book = try context.insertNewObject(forEntityName: "Book")
            book.setValue(data.title, forKey: "title")
            book.setValue(data.cost, forKey: "replacementCost")
            book.setValue(data.published, forKey: "published")
            book.setValue(data.pages, forKey: "pages")
            book.setValue(data.loanedTo.flatMap { byName[$0] }, forKey: "loanedTo")
            book.setValue(byName[data.author], forKey: "author")
            byName[data.title] = book
        }
        try context.save()
        return byName
    }
}

/// Collects the SQL statements a store runs, through its statement observer.
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    init(_ context: ManagedObjectContext) throws {
        guard let store = context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore else {
            throw PersistenceError.invalidRequest("the context has no SQLite store")
        }
        store.statementObserver = { [weak self] sql in self?.append(sql) }
    }

    private func append(_ sql: String) { lock.withLock { collected.append(sql) } }

    var statements: [String] { lock.withLock { collected } }

    /// The statements run while `body` ran.
    func during<T>(_ body: () throws -> T) rethrows -> (result: T, statements: [String]) {
        let before = statements.count
        let result = try body()
        return (result, Array(statements.dropFirst(before)))
    }
}
