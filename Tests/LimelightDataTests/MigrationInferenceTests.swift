import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// Lightweight migration of stores made with models built in code: each kind of inferable change
/// carries the data over; what cannot be inferred is refused, all of it at once, file untouched.
@Suite struct MigrationInferenceTests {
    let raw = CoreDataFixtureTests()

    func migratingOptions(_ versions: [ManagedObjectModel]) -> [String: any Sendable] {
        [StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true,
         StoreOption.migrationSourceModels: versions]
    }

    @Test func everyInferableChangeCarriesTheDataOver() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("library.sqlite")
        let keys = try LibraryVersions.makeStore(at: url)
        // A table the application keeps in the same file travels with the store.
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TABLE APP_NOTES (ID INTEGER PRIMARY KEY, TEXT VARCHAR); CREATE INDEX APP_NOTES_TEXT ON APP_NOTES (TEXT); INSERT INTO APP_NOTES (TEXT) VALUES ('kept')", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let context = try TestStack.context(model: LibraryVersions.version2(), at: url,
                                            options: migratingOptions([LibraryVersions.version1()]))
        func object(_ entity: String, _ key: String) throws -> ManagedObject {
            let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            return try #require(objects.first { $0.objectID.primaryKey == keys[key] })
        }
        // Renamed entity and attribute, removed attribute, widened type, added attributes.
        let ann = try object("Writer", "ann"), bob = try object("Writer", "bob")
        #expect(ann.value(forKey: "fullName") as? String == "Ann")
        #expect(ann.value(forKey: "rating") as? Int64 == 3)
        #expect(bob.value(forKey: "rating") == nil)
        #expect(ann.value(forKey: "country") as? String == "unknown")
        #expect(ann.value(forKey: "website") == nil)
        // Optional made required with a default; to-one made many-to-many.
        let one = try object("Book", "one"), two = try object("Book", "two"), three = try object("Book", "three")
        #expect(one.value(forKey: "pages") as? Int16 == 0)
        #expect(two.value(forKey: "pages") as? Int16 == 200)
        func keysOf(_ value: Any?) -> Set<Int64> { Set(((value as? Set<ManagedObject>) ?? []).compactMap(\.objectID.primaryKey)) }
        #expect(keysOf(one.value(forKey: "authors")) == [keys["ann"] ?? 0])
        #expect(keysOf(three.value(forKey: "authors")) == [keys["bob"] ?? 0])
        #expect(keysOf(ann.value(forKey: "books")) == [keys["one"] ?? 0, keys["two"] ?? 0])
        #expect(keysOf(one.value(forKey: "reviews")).isEmpty)
        // Comic moved under Magazine in the same table.
        let comic = try object("Comic", "comic")
        #expect(comic.value(forKey: "hero") as? String == "Cat")
        #expect(comic.value(forKey: "issue") == nil)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Magazine")) == 2)
        #expect(try object("Magazine", "magazine").value(forKey: "issue") as? Int32 == 7)

        #expect(try raw.rawRows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
            ["1", "Book", "0"], ["2", "Publication", "0"], ["3", "Magazine", "2"], ["4", "Comic", "3"], ["5", "Review", "0"], ["6", "Writer", "0"],
        ])
        let names = Set(try raw.rawRows(url, "SELECT name FROM sqlite_master").map { $0[0] })
        #expect(names.isSuperset(of: ["ZWRITER", "ZREVIEW", "Z_1AUTHORS", "Z_Writer_UNIQUE_fullName", "Z_Book_byTitle"]))
        #expect(!names.contains("ZSHELF") && !names.contains("ZAUTHOR"))
        #expect(names.contains("APP_NOTES_TEXT"))
        #expect(try raw.rawRows(url, "SELECT TEXT FROM APP_NOTES") == [["kept"]])
        #expect(try raw.rawRows(url, "PRAGMA integrity_check") == [["ok"]])

        // The migrated store takes new objects, and opens again without migrating.
        let review = try context.insertNewObject(forEntityName: "Review")
        review.setValue("Fine", forKey: "text")
        review.setValue(one, forKey: "book")
        try context.save()
        #expect(try !MigrationManager.storeNeedsMigration(at: url, for: LibraryVersions.version2()))
        let reopened = try TestStack.context(model: LibraryVersions.version2(), at: url)
        #expect(try reopened.count(for: FetchRequest<ManagedObject>(entityName: "Review")) == 1)
    }

    @Test func theMappingListsEachChange() throws {
        let mapping = try MappingModel(inferringFrom: LibraryVersions.version1(), to: LibraryVersions.version2())
        #expect(mapping.unmappableChanges.isEmpty)
        let writer = try #require(mapping.mapping(forDestination: "Writer"))
        #expect(writer.kind == .rename && writer.sourceEntityName == "Author")
        #expect(writer.mapping(forDestination: "fullName")?.kind == .rename)
        #expect(writer.mapping(forDestination: "rating")?.kind == .retype)
        #expect(writer.mapping(forDestination: "country")?.kind == .add)
        #expect(writer.propertyMappings.contains { $0.kind == .remove && $0.sourceName == "nickname" })
        let book = try #require(mapping.mapping(forDestination: "Book"))
        #expect(book.mapping(forDestination: "pages")?.kind == .required)
        #expect(book.mapping(forDestination: "authors")?.kind == .cardinality)
        #expect(book.otherChanges.contains { $0.contains("byTitle") })
        #expect(mapping.mapping(forDestination: "Review")?.kind == .add)
        #expect(mapping.mapping(forDestination: "Comic")?.otherChanges.contains { $0.contains("parent changes from Publication to Magazine") } == true)
        #expect(mapping.entityMappings.contains { $0.kind == .remove && $0.sourceEntityName == "Shelf" })
        #expect(!mapping.isIdentity)
        #expect(try MappingModel(inferringFrom: LibraryVersions.version1(), to: LibraryVersions.version1()).isIdentity)
    }

    @Test func unmappableChangesAreAllListedAndTheFileIsUntouched() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("library.sqlite")
        _ = try LibraryVersions.makeStore(at: url)
        let before = try Data(contentsOf: url)
        let manager = try MigrationManager(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.unmappable())
        // A new required attribute without a default is the data's concern, not the mapping's:
        // the rows are checked when the migration runs (`RequiredValueMigrationTests`).
        #expect(manager.mappingModel.unmappableChanges.count == 2)
        do {
            try manager.migrateStore(at: url)
            Issue.record("an unmappable migration ran")
        } catch MigrationError.unmappable(_, let changes) {
            #expect(changes.contains("Book.title: type changes from String to Integer 32"))
            #expect(!changes.contains { $0.hasPrefix("Book.isbn") })
            #expect(changes.contains { $0.hasPrefix("Author.books: changes from to-many to to-one") })
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: LibraryVersions.unmappable())
        #expect(throws: MigrationError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: migratingOptions([LibraryVersions.version1()]))
        }
        #expect(try Data(contentsOf: url) == before)
        // Reading the store's metadata may leave SQLite's empty WAL files; nothing else is left.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(files.filter { !["library.sqlite", "library.sqlite-wal", "library.sqlite-shm"].contains($0) }.isEmpty)
        #expect((try? Data(contentsOf: folder.file("library.sqlite-wal")))?.isEmpty ?? true)
    }

    @Test func anInterruptedMigrationLeavesTheStoreAsItWas() throws {
        for step in ["copy Book", "copy relationships", "replace the store"] {
            let folder = try TemporaryFolder()
            let url = folder.file("library.sqlite")
            let keys = try LibraryVersions.makeStore(at: url)
            let before = try Data(contentsOf: url)
            // What a migration killed half-way would have left behind.
            try Data("partial".utf8).write(to: folder.file(".library.sqlite.migrating-\(UUID().uuidString)"))
            let manager = try MigrationManager(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2())
            var seen: [String] = []
            manager.progress = { name in
                seen.append(name)
                if name == step { throw CancellationError() }
            }
            #expect(throws: MigrationError.self) { try manager.migrateStore(at: url) }
            #expect(seen.last == step)
            #expect(try Data(contentsOf: url) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["library.sqlite"])
            let context = try TestStack.context(model: LibraryVersions.version1(), at: url)
            let ann = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).first { $0.objectID.primaryKey == keys["ann"] })
            #expect(ann.value(forKey: "nickname") as? String == "A")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")) == 3)
        }
    }

    @Test func dataThatBreaksANewUniquenessConstraintFailsTheMigrationCleanly() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("library.sqlite")
        _ = try LibraryVersions.makeStore(at: url)
        let context = try TestStack.context(model: LibraryVersions.version1(), at: url)
        try context.insertNewObject(forEntityName: "Author").setValue("Ann", forKey: "name")
        try context.save()
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { coordinator.remove(store) }
        let before = try Data(contentsOf: url)
        let manager = try MigrationManager(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2())
        #expect { try manager.migrateStore(at: url) } throws: { "\($0)".contains("UNIQUE constraint failed: ZWRITER.ZFULLNAME") }
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["library.sqlite"])
    }

    @Test func storesWrittenHereAreMatchedByVersionHash() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("library.sqlite")
        _ = try LibraryVersions.makeStore(at: url)
        // Same entity names, one attribute changed: names alone would let it open.
        let changed = LibraryVersions.version1()
        (changed.entity(named: "Shelf")?.ownProperties.first as? AttributeDescription)?.isOptional = false
        do {
            _ = try TestStack.context(model: changed, at: url)
            Issue.record("a store made with another model version opened")
        } catch PersistenceError.incompatibleModel(_, let differences) {
            #expect(differences.first == "entity Shelf differs from the version the store was made with")
        }
        // No versions given: the store's own model is the source, as in Core Data; without it
        // (emptied here), nothing says which version made the store.
        let copy = folder.file("copy.sqlite"), bare = folder.file("bare.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        try FileManager.default.copyItem(at: url, to: bare)
        try VersionHashTests.execute("DELETE FROM Z_MODELCACHE", at: bare)
        let automatic: [String: any Sendable] = [StoreOption.migratePersistentStoresAutomatically: true, StoreOption.inferMappingModelAutomatically: true]
        try PersistentStoreCoordinator(managedObjectModel: LibraryVersions.version2()).addPersistentStore(type: .sqlite, at: copy, options: automatic)
        #expect(throws: MigrationError.self) {
            try PersistentStoreCoordinator(managedObjectModel: LibraryVersions.version2()).addPersistentStore(type: .sqlite, at: bare, options: automatic)
        }
        #expect(throws: MigrationError.self) {
            try PersistentStoreCoordinator(managedObjectModel: LibraryVersions.version2()).addPersistentStore(type: .sqlite, at: url, options: [
                StoreOption.migratePersistentStoresAutomatically: true, StoreOption.migrationSourceModels: [LibraryVersions.version1()],
            ])
        }
        let source = try MigrationManager.sourceModel(forStoreAt: url, among: [changed, LibraryVersions.version2(), LibraryVersions.version1()])
        #expect(source?.versionIdentifiers == ["1"] && source !== changed)
        // Explicit migration through the coordinator, then a plain open.
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: LibraryVersions.version2())
        let mapping = try coordinator.migratePersistentStore(at: url, from: [LibraryVersions.version1()])
        #expect(mapping.mapping(forDestination: "Writer")?.kind == .rename)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
    }
}
