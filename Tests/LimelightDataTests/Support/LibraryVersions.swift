import Foundation
@testable import LimelightData

/// Two versions of a small library model, built in code, whose differences cover every kind of
/// change a lightweight migration infers.
enum LibraryVersions {
    static func version1() -> ManagedObjectModel {
        let author = EntityDescription(name: "Author", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer16),
            RelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true),
        ])
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "pages", type: .integer16),
            RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books"),
        ])
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true),
        ])
        let publication = EntityDescription(name: "Publication", properties: [AttributeDescription(name: "title", type: .string)])
        let magazine = EntityDescription(name: "Magazine", properties: [AttributeDescription(name: "issue", type: .integer32)], parent: "Publication")
        let comic = EntityDescription(name: "Comic", properties: [AttributeDescription(name: "hero", type: .string)], parent: "Publication")
        let model = ManagedObjectModel(entities: [author, book, shelf, publication, magazine, comic])
        model.versionIdentifiers = ["1"]
        return model
    }

    /// Author renamed Writer, `name` renamed `fullName`, `nickname` and Shelf removed, `rating`
    /// widened, `country` added with a default, `pages` made required with a default, Book's
    /// to-one `author` made the to-many `authors` (a new many-to-many), Review added, Comic moved
    /// under Magazine in the same table, a uniqueness constraint and a fetch index added.
    static func version2() -> ManagedObjectModel {
        let fullName = AttributeDescription(name: "fullName", type: .string, isOptional: false)
        fullName.renamingIdentifier = "name"
        let writer = EntityDescription(name: "Writer", properties: [
            fullName,
            AttributeDescription(name: "rating", type: .integer64),
            AttributeDescription(name: "country", type: .string, isOptional: false, defaultValue: "unknown"),
            AttributeDescription(name: "website", type: .uri),
            RelationshipDescription(name: "books", destination: "Book", inverse: "authors", toMany: true),
        ])
        writer.renamingIdentifier = "Author"
        writer.uniquenessConstraints = [["fullName"]]
        let authors = RelationshipDescription(name: "authors", destination: "Writer", inverse: "books", toMany: true)
        authors.renamingIdentifier = "author"
        let book = EntityDescription(name: "Book", properties: [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "pages", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            authors,
            RelationshipDescription(name: "reviews", destination: "Review", inverse: "book", toMany: true),
        ])
        book.fetchIndexes = [FetchIndexDescription(name: "byTitle", elements: [(property: "title", ascending: true)])]
        let review = EntityDescription(name: "Review", properties: [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "book", destination: "Book", inverse: "reviews"),
        ])
        let publication = EntityDescription(name: "Publication", properties: [AttributeDescription(name: "title", type: .string)])
        let magazine = EntityDescription(name: "Magazine", properties: [AttributeDescription(name: "issue", type: .integer32)], parent: "Publication")
        let comic = EntityDescription(name: "Comic", properties: [AttributeDescription(name: "hero", type: .string)], parent: "Magazine")
        let model = ManagedObjectModel(entities: [writer, book, review, publication, magazine, comic])
        model.versionIdentifiers = ["2"]
        return model
    }

    /// Version 1 with changes no lightweight migration can infer.
    static func unmappable() -> ManagedObjectModel {
        let model = version1()
        let book = model.entity(named: "Book")
        let title = book?.ownProperties.first { $0.name == "title" } as? AttributeDescription
        title?.attributeType = .integer32
        book?.addProperty(AttributeDescription(name: "isbn", type: .string, isOptional: false))
        let books = model.entity(named: "Author")?.ownProperties.first { $0.name == "books" } as? RelationshipDescription
        books?.isToManyFlag = false
        books?.maxCount = 1
        return model
    }

    /// Keys of the objects `fill` saved, by name.
    typealias Keys = [String: Int64]

    /// A version 1 store with two authors, three books on a shelf, a magazine and a comic; the
    /// store is closed again so its file is complete.
    static func makeStore(at url: URL) throws -> Keys {
        let context = try TestStack.context(model: version1(), at: url)
        func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let ann = try insert("Author", ["name": "Ann", "nickname": "A", "rating": Int16(3)])
        let bob = try insert("Author", ["name": "Bob"])
        let shelf = try insert("Shelf", ["label": "fiction"])
        let one = try insert("Book", ["title": "One", "author": ann, "shelf": shelf])
        let two = try insert("Book", ["title": "Two", "pages": Int16(200), "author": ann, "shelf": shelf])
        let three = try insert("Book", ["title": "Three", "pages": Int16(10), "author": bob])
        let magazine = try insert("Magazine", ["title": "Monthly", "issue": Int32(7)])
        let comic = try insert("Comic", ["title": "Strips", "hero": "Cat"])
        try context.save()
        let coordinator = context.persistentStoreCoordinator
        for store in coordinator?.persistentStores ?? [] { coordinator?.remove(store) }
        let objects = ["ann": ann, "bob": bob, "one": one, "two": two, "three": three, "magazine": magazine, "comic": comic]
        return objects.mapValues { $0.objectID.primaryKey ?? -1 }
    }
}
