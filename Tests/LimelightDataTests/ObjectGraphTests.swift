import Foundation
import Testing
@testable import LimelightData

/// A library lends books to members: validation rules of every kind, a bounded to-many, a
/// many-to-many, and a typed subclass with hooks.
enum LibraryGraph {
    static func make() -> ManagedObjectModel {
        let name = AttributeDescription(name: "name", type: .string, isOptional: false)
        name.minValue = 2
        name.maxValue = 20
        name.regularExpression = "[A-Z][a-z ]*"
        let founded = AttributeDescription(name: "founded", type: .date)
        founded.minValue = Date(timeIntervalSince1970: 0).timeIntervalSinceReferenceDate
        founded.maxValue = Date(timeIntervalSince1970: 4_000_000_000).timeIntervalSinceReferenceDate
        let books = RelationshipDescription(name: "books", destination: "LibraryBook", inverse: "library", toMany: true, deleteRule: .cascade)
        books.maxCount = 3
        let library = EntityDescription(name: "Library", properties: [
            name, founded,
            AttributeDescription(name: "code", type: .uuid),
            AttributeDescription(name: "visits", type: .integer32, isOptional: false, defaultValue: Int32(0)),
            books,
            RelationshipDescription(name: "members", destination: "Member", inverse: "libraries", toMany: true),
        ])
        library.managedObjectClassName = "TrackedLibrary"
        let book = EntityDescription(name: "LibraryBook", properties: [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "library", destination: "Library", inverse: "books"),
        ])
        let member = EntityDescription(name: "Member", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "libraries", destination: "Library", inverse: "members", toMany: true),
        ])
        return ManagedObjectModel(entities: [library, book, member])
    }

    static func context(_ url: URL?, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        ManagedObjectClassRegistry.shared.register(TrackedLibrary.self, as: "TrackedLibrary")
        return try TestStack.context(model: make(), at: url, options: options)
    }
}

/// Counts its hooks, and refuses names containing "Closed" through per-key validation.
final class TrackedLibrary: ManagedObject {
    @Managed var name: String?
    @Managed var visits: Int32
    @Managed var books: Set<ManagedObject>
    nonisolated(unsafe) var hooks: [String] = []

    override func awakeFromInsert() { hooks.append("awakeFromInsert") }
    override func awakeFromFetch() { hooks.append("awakeFromFetch") }
    override func willSave() { hooks.append("willSave") }
    override func didSave() { hooks.append("didSave") }
    override func didTurnIntoFault() { hooks.append("didTurnIntoFault") }
    override func validateValue(_ value: Any?, forKey key: String) throws {
        if key == "name", let text = value as? String, text.contains("Closed") {
            throw ValidationFailure(object: self, key: key, reason: "a closed library cannot be saved")
        }
    }
}

@Suite struct ObjectGraphTests {
    @Test func objectIDsAreTemporaryUntilSavedAndRoundTripThroughURIs() throws {
        let folder = try TemporaryFolder()
        let context = try LibraryGraph.context(folder.file("ids.sqlite"))
        let library = try context.insertNewObject(forEntityName: "Library")
        library.setValue("Central", forKey: "name")
        #expect(library.objectID.isTemporaryID)
        #expect(library.objectID.uriString.hasPrefix("x-coredata:///Library/t"))
        let book = try context.insertNewObject(forEntityName: "LibraryBook")
        try context.obtainPermanentIDs(for: [book])
        #expect(!book.objectID.isTemporaryID)
        try context.save()
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        #expect(!library.objectID.isTemporaryID)
        #expect(library.objectID.uriRepresentation().absoluteString == "x-coredata://\(store.identifier)/Library/p\(library.objectID.primaryKey ?? -1)")
        let coordinator = try #require(context.persistentStoreCoordinator)
        #expect(coordinator.managedObjectID(forURIRepresentation: library.objectID.uriRepresentation()) == library.objectID)
        #expect(coordinator.managedObjectID(forURIRepresentation: try #require(URL(string: "x-coredata://NOPE/Library/p1"))) == nil)
        // The same from the URI's text, as an index or a marker holds it.
        #expect(coordinator.managedObjectID(forURIString: library.objectID.uriString) == library.objectID)
        for text in ["x-coredata://NOPE/Library/p1", "x-coredata://\(store.identifier)/Library/1", "x-coredata://\(store.identifier)/Nope/p1", "", "Library"] {
            #expect(coordinator.managedObjectID(forURIString: text) == nil, "\(text)")
        }
        #expect(try ManagedObjectID.parse(uriString: "x-coredata://S-1/Café/p42")
            == ManagedObjectID.URIParts(storeIdentifier: "S-1", entityName: "Café", primaryKey: 42))
        for text in ["x-coredata://S/E", "x-coredata://S/E/p1/x", "x-coredata:///E/p1", "x-coredata://S//p1", "x-coredata://S/E/p0",
                     "x-coredata://S/E/p-2", "x-coredata://S/E/q1", "x-coredata://S/E/p", "x-coredata://S/E/", "x-core://S/E/p1"] {
            #expect(throws: (any Error).self, "\(text)") { try ManagedObjectID.parse(uriString: text) }
        }
        // IDs cross threads; objects do not.
        let id = library.objectID
        let seen = try DispatchQueue.global().sync { () throws -> String in
            let other = ManagedObjectContext(concurrencyType: .privateQueue)
            other.persistentStoreCoordinator = coordinator
            return try other.performAndWait { try other.existingObject(with: id).value(forKey: "name") as? String ?? "" }
        }
        #expect(seen == "Central")
        #expect(context.registeredObject(for: id) === library)
    }

    @Test func typedSubclassesTrackChangesAndCallTheirHooks() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("hooks.sqlite")
        let context = try LibraryGraph.context(url)
        let library = try #require(try context.insertNewObject(forEntityName: "Library") as? TrackedLibrary)
        #expect(library.hooks == ["awakeFromInsert"])
        #expect(library.visits == 0)
        library.name = "North"
        #expect(library.isInserted && library.hasChanges)
        #expect(library.changedValues()["name"] as? String == "North")
        try context.save()
        #expect(library.hooks == ["awakeFromInsert", "willSave", "didSave"])
        #expect(!library.hasChanges)

        library.name = "South"
        #expect(library.isUpdated)
        #expect(Set(library.changedValues().keys) == ["name"])
        #expect(library.committedValues(forKeys: ["name"])["name"] as? String == "North")
        // Primitive accessors bypass change tracking and undo.
        library.setPrimitiveValue(Int32(9), forKey: "visits")
        #expect(library.primitiveValue(forKey: "visits") as? Int32 == 9)
        context.rollback()
        #expect(library.name == "North")

        // Key paths through a to-one, and the mutable set proxy of a to-many.
        let book = try context.insertNewObject(forEntityName: "LibraryBook")
        book.setValue("Dune", forKey: "title")
        library.mutableSetValue(forKey: "books").insert(book)
        #expect(book.value(forKeyPath: "library.name") as? String == "North")
        #expect((library.value(forKeyPath: "books.title") as? [Any])?.compactMap { $0 as? String } == ["Dune"])
        try context.save()

        context.refresh(library, mergeChanges: false)
        #expect(library.isFault)
        #expect(library.hooks.last == "didTurnIntoFault")
        #expect(library.name == "North")
        #expect(library.hooks.last == "awakeFromFetch")
    }

    @Test func fetchedObjectsStayFaultsUntilTouchedAndFireInBatches() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("faults.sqlite")
        do {
            let context = try LibraryGraph.context(url)
            for index in 0..<20 {
                let member = try context.insertNewObject(forEntityName: "Member")
                member.setValue("Member \(index)", forKey: "name")
            }
            let library = try context.insertNewObject(forEntityName: "Library")
            library.setValue("Faulty", forKey: "name")
            let book = try context.insertNewObject(forEntityName: "LibraryBook")
            book.setValue(library, forKey: "library")
            try context.save()
        }
        let context = try LibraryGraph.context(url)
        let members = try context.fetch(FetchRequest<ManagedObject>(entityName: "Member"))
        #expect(members.count == 20 && members.allSatisfy(\.isFault))
        try context.fireFaults(members)
        #expect(members.allSatisfy { !$0.isFault })
        #expect(Set(members.compactMap { $0.value(forKey: "name") as? String }).count == 20)

        // A related object arrives as a fault; touching it loads it.
        let book = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "LibraryBook")).first)
        let library = try #require(book.value(forKey: "library") as? ManagedObject)
        #expect(library.isFault)
        #expect(library.value(forKey: "name") as? String == "Faulty")
        #expect(!library.isFault)
        #expect((library.value(forKey: "books") as? Set<ManagedObject>) == [book])
    }

    @Test func walkingAToManyFiresItsObjectsTogether() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("batches.sqlite")
        let count = 1_200
        do {
            let context = try LibraryGraph.context(url)
            let library = try context.insertNewObject(forEntityName: "Library")
            library.setValue("Big", forKey: "name")
            // One at a time through the set proxy, as an application fills a relationship.
            let members = library.mutableSetValue(forKey: "members")
            for index in 0..<count {
                let member = try context.insertNewObject(forEntityName: "Member")
                member.setValue("Member \(index)", forKey: "name")
                members.insert(member)
            }
            #expect(members.count == count)
            try context.save()
        }
        let context = try LibraryGraph.context(url)
        let log = try StatementLog(context)
        let library = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Library")).first)
        let (names, statements) = try log.during { () throws -> Set<String> in
            let members = try #require(library.value(forKey: "members") as? Set<ManagedObject>)
            return Set(members.compactMap { $0.value(forKey: "name") as? String })
        }
        #expect(names.count == count)
        // The relationship's IDs, then every member's row with the relationship's own query
        // (not key by key: no `IN (…)` batches).
        #expect(statements.count == 2, "\(statements)")
        #expect(statements.allSatisfy { $0.contains("ZMEMBER") && !$0.contains("IN (") }, "\(statements)")
    }

    @Test func aFetchWithABatchSizeLoadsRowsABatchAtATime() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("batched.sqlite")
        do {
            let context = try LibraryGraph.context(url)
            for index in 0..<1_000 { try context.insertNewObject(forEntityName: "Member").setValue("M\(index)", forKey: "name") }
            try context.save()
        }
        let context = try LibraryGraph.context(url)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Member", sortDescriptors: [QuerySortDescriptor(key: "name")])
        request.fetchBatchSize = 100
        let (members, fetchStatements) = try log.during { try context.fetch(request) }
        #expect(members.count == 1_000 && members.allSatisfy(\.isFault))
        #expect(fetchStatements.count == 1)
        let (names, walkStatements) = log.during { members.prefix(250).compactMap { $0.value(forKey: "name") as? String } }
        #expect(names == (0..<1_000).map { "M\($0)" }.sorted().prefix(250).map { $0 })
        #expect(walkStatements.count == 3)
        #expect(!members[299].isFault && members[300].isFault)   // the third batch, and no further
    }

    @Test func manyToManyKeepsBothSidesAndSurvivesReopening() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("m2m.sqlite")
        do {
            let context = try LibraryGraph.context(url)
            let a = try context.insertNewObject(forEntityName: "Library"), b = try context.insertNewObject(forEntityName: "Library")
            a.setValue("Alpha", forKey: "name")
            b.setValue("Beta", forKey: "name")
            let ann = try context.insertNewObject(forEntityName: "Member"), bob = try context.insertNewObject(forEntityName: "Member")
            ann.setValue("Ann", forKey: "name")
            bob.setValue("Bob", forKey: "name")
            a.mutableSetValue(forKey: "members").insert(ann)
            a.mutableSetValue(forKey: "members").insert(bob)
            b.mutableSetValue(forKey: "members").insert(ann)
            #expect((ann.value(forKey: "libraries") as? Set<ManagedObject>) == [a, b])
            try context.save()
            b.mutableSetValue(forKey: "members").remove(ann)
            #expect((ann.value(forKey: "libraries") as? Set<ManagedObject>) == [a])
            // Undo puts both sides back; redo takes them out again.
            context.processPendingChanges()
            context.undo()
            #expect((ann.value(forKey: "libraries") as? Set<ManagedObject>) == [a, b])
            #expect((b.value(forKey: "members") as? Set<ManagedObject>) == [ann])
            context.redo()
            #expect((ann.value(forKey: "libraries") as? Set<ManagedObject>) == [a])
            try context.save()
        }
        let context = try LibraryGraph.context(url)
        let ann = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Member", predicate: try QueryPredicate(format: "name == 'Ann'"))).first)
        let names = (ann.value(forKey: "libraries") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
        #expect(names == ["Alpha"])
        let alpha = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Library", predicate: try QueryPredicate(format: "name == 'Alpha'"))).first)
        #expect((alpha.value(forKey: "members") as? Set<ManagedObject>)?.count == 2)
    }

    @Test func undoAndRedoWorkAcrossSaves() throws {
        let folder = try TemporaryFolder()
        let context = try LibraryGraph.context(folder.file("undo.sqlite"))
        let library = try context.insertNewObject(forEntityName: "Library")
        library.setValue("First", forKey: "name")
        try context.save()
        library.setValue("Second", forKey: "name")
        try context.save()
        context.undo()
        #expect(library.value(forKey: "name") as? String == "First")
        #expect(library.isUpdated)
        context.redo()
        #expect(library.value(forKey: "name") as? String == "Second")
        context.undo()
        #expect(library.value(forKey: "name") as? String == "First")
        try context.save()
        let other = try LibraryGraph.context(folder.file("undo.sqlite"))
        // IDs belong to their coordinator; another one says so, and finds the object through its URI.
        #expect { try other.existingObject(with: library.objectID) } throws: { "\($0)".contains("managedObjectID(forURIRepresentation:)") }
        let id = try #require(other.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: library.objectID.uriRepresentation()))
        #expect(try other.existingObject(with: id).value(forKey: "name") as? String == "First")
    }

    @Test func aFailedSaveReportsEveryProblemAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("valid.sqlite")
        let context = try LibraryGraph.context(url)
        let good = try context.insertNewObject(forEntityName: "Library")
        good.setValue("Good", forKey: "name")
        try context.save()

        let short = try context.insertNewObject(forEntityName: "Library")
        short.setValue("x", forKey: "name")                                          // too short, and the pattern
        let lower = try context.insertNewObject(forEntityName: "Library")
        lower.setValue("lowercase", forKey: "name")                                  // pattern
        lower.setValue(Date(timeIntervalSince1970: -86_400), forKey: "founded")      // before the minimum date
        let closed = try context.insertNewObject(forEntityName: "Library")
        closed.setValue("Closed", forKey: "name")                                    // custom per-key validation
        let full = try context.insertNewObject(forEntityName: "Library")
        full.setValue("Full", forKey: "name")
        for _ in 0..<4 { full.mutableSetValue(forKey: "books").insert(try context.insertNewObject(forEntityName: "LibraryBook")) }
        let missing = try context.insertNewObject(forEntityName: "Library")          // required name missing
        _ = missing
        good.setValue("Renamed", forKey: "name")

        var reported: ValidationError?
        do { try context.save() } catch let error as ValidationError { reported = error }
        let failures = try #require(reported).failures
        let keyed = Set(failures.map { "\($0.objectID.map { _ in "" } ?? "")\($0.key ?? "-")" })
        #expect(keyed.contains("name") && keyed.contains("founded") && keyed.contains("books"))
        #expect(failures.filter { $0.key == "name" }.count == 4)   // the first broken rule of each key is reported
        #expect(failures.contains { $0.reason.contains("closed library") })
        // Nothing was written and the pending changes are intact.
        #expect(context.insertedObjects.count == 9)
        #expect(good.isUpdated)
        let other = try LibraryGraph.context(url)
        #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Library")) == 1)
        #expect(try other.fetch(FetchRequest<ManagedObject>(entityName: "Library")).first?.value(forKey: "name") as? String == "Good")
    }

    @Test func aReadOnlyStoreRefusesToSaveAndStaysUntouched() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("ro.sqlite")
        do {
            let context = try LibraryGraph.context(url)
            try context.insertNewObject(forEntityName: "Library").setValue("Kept", forKey: "name")
            try context.save()
        }
        let before = try Data(contentsOf: url)
        let context = try LibraryGraph.context(url, options: [StoreOption.readOnly: true])
        let library = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Library")).first)
        library.setValue("Changed", forKey: "name")
        #expect(throws: PersistenceError.self) { try context.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aModelInUseIsFrozen() throws {
        let model = LibraryGraph.make()
        #expect(model.isEditable)
        _ = try PersistentStoreCoordinator(managedObjectModel: model)
        #expect(!model.isEditable)
    }
}
