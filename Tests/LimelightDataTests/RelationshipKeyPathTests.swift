import Foundation
import Testing
@testable import LimelightData

/// Books, their authors and the authors' publishers, for key paths through to-one relationships.
final class ChainBook: ManagedObject {
    @Managed var title: String?
    @Managed var author: ChainAuthor?
    /// Declared non-optional, as a model whose books always have an editor would declare it.
    @Managed var editor: ChainAuthor
    /// Computed from one declaration after another, as a chain reads them.
    var authorName: String? { author?.name }
    /// Computed from several declarations side by side.
    var byline: String { "\(title ?? "") by \(author?.name ?? "")" }
    /// A computed to-one: the chain `lead?.name` reads `author`, then `name` on what it gave.
    var lead: ChainAuthor? { author ?? editor }
}

final class ChainAuthor: ManagedObject {
    @Managed var name: String?
    @Managed("birthYear") var born: Int32
    @Managed var publisher: ChainPublisher?
    @Managed var books: Set<ChainBook>
}

final class ChainPublisher: ManagedObject {
    @Managed var city: String?
    @Managed var founded: Date
    @Managed var authors: Set<ChainAuthor>
}

/// Reaches `Exposure`, whose `settings` are of a type with no empty value, through a to-one.
final class ChainDarkroom: ManagedObject {
    @Managed var exposure: Exposure?
    @Managed var aperture: Float
    @Managed var lastSettings: ExposureSettings?
}

enum ChainModel {
    static func make() -> ManagedObjectModel {
        let book = EntityDescription(name: "ChainBook", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "author", destination: "ChainAuthor", inverse: "books"),
            RelationshipDescription(name: "editor", destination: "ChainAuthor"),
        ])
        let author = EntityDescription(name: "ChainAuthor", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "birthYear", type: .integer32),
            RelationshipDescription(name: "publisher", destination: "ChainPublisher", inverse: "authors"),
            RelationshipDescription(name: "books", destination: "ChainBook", inverse: "author", toMany: true),
        ])
        let publisher = EntityDescription(name: "ChainPublisher", properties: [
            AttributeDescription(name: "city", type: .string),
            AttributeDescription(name: "founded", type: .date),
            RelationshipDescription(name: "authors", destination: "ChainAuthor", inverse: "publisher", toMany: true),
        ])
        for (entity, type) in [(book, ChainBook.self), (author, ChainAuthor.self), (publisher, ChainPublisher.self)] as [(EntityDescription, ManagedObject.Type)] {
            entity.managedObjectClassName = String(describing: type)
            ManagedObjectClassRegistry.shared.register(type)
        }
        return ManagedObjectModel(entities: [book, author, publisher])
    }

    /// Lisbon publishes Ana, Oslo publishes Ben, Cy has no publisher. Atlas and Bloom are Ana's,
    /// Tides is Ben's, Ember is Cy's, Quiet has no author.
    static func stack(_ folder: TemporaryFolder) throws -> ManagedObjectContext {
        let context = try TestStack.context(model: make(), at: folder.file("books.sqlite"))
        try context.performAndWait {
            let lisbon = try ChainPublisher(context: context), oslo = try ChainPublisher(context: context)
            lisbon.city = "Lisbon"
            oslo.city = "Oslo"
            var authors: [String: ChainAuthor] = [:]
            for (name, publisher) in [("Ana", lisbon), ("Ben", oslo), ("Cy", nil)] {
                let author = try ChainAuthor(context: context)
                author.name = name
                author.publisher = publisher
                authors[name] = author
            }
            for (title, author) in [("Atlas", "Ana"), ("Bloom", "Ana"), ("Tides", "Ben"), ("Ember", "Cy"), ("Quiet", nil)] {
                let book = try ChainBook(context: context)
                book.title = title
                book.author = author.flatMap { authors[$0] }
            }
            try context.save()
        }
        return context
    }
}

/// Swift key paths through relationships, as Core Data code writes them:
/// `NSSortDescriptor(keyPath: \Book.author.name, …)`, `#keyPath(Book.author.name)` in `%K`.
@Suite struct RelationshipKeyPathTests {
    @Test func keyPathsThroughToOneRelationshipsNameDottedKeyPaths() throws {
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.name) == "author.name")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.editor.name) == "editor.name")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.born) == "author.birthYear")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.publisher?.city) == "author.publisher.city")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.editor.publisher?.founded) == "editor.publisher.founded")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.publisher) == "author.publisher")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.books) == "author.books")
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.publisher?.authors) == "author.publisher.authors")
        // Back round a cycle, and through the fixtures' own classes (a non-optional to-one in the middle).
        #expect(ManagedKeyPathNames.name(of: \ChainAuthor.publisher?.authors) == "publisher.authors")
        #expect(ManagedKeyPathNames.name(of: \ChainDarkroom.exposure?.camera.photographer?.firstName)
                == "exposure.camera.photographer.firstName")
        #expect(ManagedKeyPathNames.name(of: \ChainDarkroom.exposure?.speed) == "exposure.shutterSpeed")
        #expect(QuerySortDescriptor(keyPath: \ChainBook.author?.name, ascending: false)
                == QuerySortDescriptor(key: "author.name", ascending: false))
        #expect(try QueryPredicate(format: "%K == %@", \ChainBook.author?.publisher?.city, "Oslo")
                == QueryPredicate(format: "author.publisher.city == 'Oslo'"))
        // Asked again: the same answer (kept).
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.name) == "author.name")
    }

    @Test func keyPathsThatAreNotAChainOfDeclarationsAreNotNamed() throws {
        // Computed properties: one reading a chain, one reading declarations side by side, and a
        // computed to-one whose reads look like a chain of declarations.
        #expect(ManagedKeyPathNames.name(of: \ChainBook.authorName) == nil)
        #expect(ManagedKeyPathNames.name(of: \ChainBook.byline) == nil)
        #expect(ManagedKeyPathNames.name(of: \ChainBook.lead?.name) == nil)
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.name?.count) == nil)
        // Past a to-many relationship.
        #expect(ManagedKeyPathNames.name(of: \ChainAuthor.books.count) == nil)
        #expect(ManagedKeyPathNames.name(of: \ChainBook.author?.books.isEmpty) == nil)
        // Left unnamed, the sort keeps the printed form, which the fetch refuses by name.
        let computed = QuerySortDescriptor(keyPath: \ChainBook.lead?.name)
        #expect(computed.key.contains("ChainBook"))
        #expect(throws: PredicateParseError.self) { try QueryPredicate(format: "%K == 'Ana'", \ChainBook.authorName) }
        let folder = try TemporaryFolder()
        let context = try ChainModel.stack(folder)
        context.performAndWait {
            let request = ChainBook.fetchRequest()
            request.sortDescriptors = [computed]
            #expect { try context.fetch(request) } throws: { "\($0)".contains("ChainBook") }
        }
    }

    @Test func aChainThatMayReachATypeWithNoValueIsNotRead() {
        // `settings` is declared `ExposureSettings`, which has no empty value: reading the chain
        // would stop the program, so it is left unnamed.
        #expect(ManagedKeyPathNames.name(of: \ChainDarkroom.exposure?.settings) == nil)
        // The same type declared optional on the root is read, and named.
        #expect(ManagedKeyPathNames.name(of: \ChainDarkroom.lastSettings) == "lastSettings")
        #expect(ManagedKeyPathNames.name(of: \ChainDarkroom.aperture) == "aperture")
    }

    @Test func probesOnManyThreadsAtOnceEachNameTheirOwnKeyPath() async {
        // Each call probes afresh (the kept answers are bypassed), many at the same time.
        let mismatches = await withTaskGroup(of: Set<String>.self) { group in
            for task in 0..<48 {
                group.addTask {
                    let cases: [(AnyKeyPath, String?)] = [
                        (\ChainBook.author?.publisher?.city, "author.publisher.city"),
                        (\ChainBook.editor.born, "editor.birthYear"),
                        (\ChainBook.title, "title"),
                        (\ChainBook.lead?.name, nil),
                        (\ChainAuthor.publisher?.founded, "publisher.founded"),
                        (\ChainBook.author?.books, "author.books"),
                        (\ChainBook.byline, nil),
                        (\ChainDarkroom.exposure?.camera.name, "exposure.camera.name"),
                    ]
                    var mismatches: Set<String> = []
                    for round in 0..<20 {
                        let (keyPath, expected) = cases[(task + round) % cases.count]
                        guard let root = type(of: keyPath).rootType as? ManagedObject.Type else { return ["\(keyPath) has no managed root"] }
                        let name = KeyPathProbe.name(of: keyPath, from: root)
                        if name != expected { mismatches.insert("\(keyPath): \(name ?? "nil"), expected \(expected ?? "nil")") }
                    }
                    return mismatches
                }
            }
            return await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        #expect(mismatches.isEmpty)
    }
}

/// Fetches sorted and filtered by key paths through relationships, from a real store, matched
/// in SQL and in memory.
@Suite struct RelationshipKeyPathFetchTests {
    static func titles(_ books: [ChainBook]) -> [String] { books.map { $0.title ?? "?" } }

    @Test func fetchesSortByKeyPathsThroughRelationships() throws {
        let folder = try TemporaryFolder()
        let context = try ChainModel.stack(folder)
        let (byAuthor, byCityDescending, byString) = try context.performAndWait {
            let request = ChainBook.fetchRequest()
            request.sortDescriptors = [QuerySortDescriptor(keyPath: \ChainBook.author?.name), QuerySortDescriptor(keyPath: \ChainBook.title)]
            let byAuthor = Self.titles(try context.fetch(request))
            request.sortDescriptors = [QuerySortDescriptor(keyPath: \ChainBook.author?.publisher?.city, ascending: false),
                                       QuerySortDescriptor(keyPath: \ChainBook.title)]
            let byCityDescending = Self.titles(try context.fetch(request))
            request.sortDescriptors = [QuerySortDescriptor(key: "author.publisher.city", ascending: false), QuerySortDescriptor(key: "title")]
            return (byAuthor, byCityDescending, Self.titles(try context.fetch(request)))
        }
        // No author (nil) sorts first, as in Core Data's SQLite store.
        #expect(byAuthor == ["Quiet", "Atlas", "Bloom", "Tides", "Ember"])
        #expect(byCityDescending == ["Tides", "Atlas", "Bloom", "Ember", "Quiet"])
        #expect(byCityDescending == byString)
    }

    @Test func predicatesTakeKeyPathsThroughRelationshipsInSQLAndInMemory() throws {
        let folder = try TemporaryFolder()
        let context = try ChainModel.stack(folder)
        let cases: [(QueryPredicate, [String])] = [
            (try QueryPredicate(format: "%K == %@", \ChainBook.author?.name, "Ana"), ["Atlas", "Bloom"]),
            (try QueryPredicate(format: "%K == %@", \ChainBook.author?.publisher?.city, "Oslo"), ["Tides"]),
            (try QueryPredicate(format: "%K == nil", \ChainBook.author?.publisher), ["Ember", "Quiet"]),
            (try QueryPredicate(format: "%K BEGINSWITH %@ AND %K != %@", \ChainBook.author?.publisher?.city, "L", \ChainBook.title, "Atlas"),
             ["Bloom"]),
        ]
        let results = try context.performAndWait {
            let all = try context.fetch(ChainBook.fetchRequest())
            return try cases.map { predicate, _ in
                let request = ChainBook.fetchRequest()
                request.predicate = predicate
                request.sortDescriptors = [QuerySortDescriptor(keyPath: \ChainBook.title)]
                let inMemory = try all.filter { try predicate.evaluate(with: $0) }
                return (Self.titles(try context.fetch(request)), Self.titles(inMemory).sorted())
            }
        }
        for ((predicate, expected), (inSQL, inMemory)) in zip(cases, results) {
            #expect(inSQL == expected, "\(predicate) in SQL")
            #expect(inMemory == expected, "\(predicate) in memory")
        }
    }

    @Test func aFetchedResultsControllerSortsByAKeyPathThroughRelationships() throws {
        let folder = try TemporaryFolder()
        let context = try ChainModel.stack(folder)
        let (fetched, followed) = try context.performAndWait {
            let request = ChainBook.fetchRequest()
            request.sortDescriptors = [QuerySortDescriptor(keyPath: \ChainBook.author?.publisher?.city),
                                       QuerySortDescriptor(keyPath: \ChainBook.title)]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            try controller.performFetch()
            let fetched = Self.titles(controller.fetchedObjects ?? [])
            // A new book of an Oslo author: placed by the controller's own (in-memory) sort.
            let ben = try context.fetch(ChainAuthor.fetchRequest()).first { $0.name == "Ben" }
            let anchor = try ChainBook(context: context)
            anchor.title = "Anchor"
            anchor.author = ben
            context.processPendingChanges()
            return (fetched, Self.titles(controller.fetchedObjects ?? []))
        }
        #expect(fetched == ["Ember", "Quiet", "Atlas", "Bloom", "Tides"])
        #expect(followed == ["Ember", "Quiet", "Atlas", "Bloom", "Anchor", "Tides"])
    }
}
