import Foundation
import Testing
@testable import LimelightData

/// Reads a store with the `sqlite3` program, as a person checking the file would.
func sqliteQuery(_ url: URL, _ sql: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = ["-readonly", url.path, sql]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

/// The SQLite file has Core Data's layout, checked from outside the framework.
@Suite struct StoreLayoutTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "added", type: .date),
            AttributeDescription(name: "code", type: .uuid),
            RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items"),
        ])
        item.isAbstract = true
        let disc = EntityDescription(name: "Disc", properties: [AttributeDescription(name: "minutes", type: .integer32)], parent: "Item")
        let volume = EntityDescription(name: "Volume", properties: [AttributeDescription(name: "pages", type: .integer32)], parent: "Item")
        let shelf = EntityDescription(name: "Shelf", properties: [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "shelf", toMany: true),
            RelationshipDescription(name: "favourite", destination: "Item", inverse: nil),
            RelationshipDescription(name: "neighbours", destination: "Shelf", inverse: "neighbours", toMany: true),
        ])
        return ManagedObjectModel(entities: [item, disc, volume, shelf])
    }

    @Test func tablesColumnsKeysAndMetadataFollowCoreData() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("layout.sqlite")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let shelf = try context.insertNewObject(forEntityName: "Shelf"), other = try context.insertNewObject(forEntityName: "Shelf")
        shelf.mutableSetValue(forKey: "neighbours").insert(other)
        let disc = try context.insertNewObject(forEntityName: "Disc"), volume = try context.insertNewObject(forEntityName: "Volume")
        let code = UUID()
        let added = Date(timeIntervalSinceReferenceDate: 1_000)
        disc.setValue(code, forKey: "code")
        disc.setValue(added, forKey: "added")
        disc.setValue(shelf, forKey: "shelf")
        volume.setValue(shelf, forKey: "shelf")
        shelf.setValue(volume, forKey: "favourite")
        try context.save()
        disc.setValue("Blue", forKey: "title")
        try context.save()

        // One table per inheritance tree; entity numbers with their parents in Z_PRIMARYKEY.
        let tables = Set(try sqliteQuery(url, "SELECT name FROM sqlite_master WHERE type = 'table'"))
        #expect(tables.isSuperset(of: ["Z_PRIMARYKEY", "Z_METADATA", "ZITEM", "ZSHELF"]))
        #expect(!tables.contains("ZDISC") && !tables.contains("ZVOLUME"))
        let keys = try sqliteQuery(url, "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(keys == ["1|Item|0|2", "2|Disc|1|0", "3|Volume|1|0", "4|Shelf|0|2"])
        // A to-one whose destination has sub-entities keeps the entity number beside the key.
        let shelfColumns = Set(try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZSHELF')"))
        #expect(shelfColumns.isSuperset(of: ["Z_PK", "Z_ENT", "Z_OPT", "ZLABEL", "ZFAVOURITE", "Z1_FAVOURITE"]))
        let itemColumns = Set(try sqliteQuery(url, "SELECT name FROM pragma_table_info('ZITEM')"))
        #expect(itemColumns.isSuperset(of: ["ZTITLE", "ZADDED", "ZCODE", "ZMINUTES", "ZPAGES", "ZSHELF"]))
        // Many-to-many: a join table named Z_<entity number><relationship>.
        #expect(tables.contains { $0.hasPrefix("Z_4NEIGHBOURS") })
        // Foreign keys are indexed.
        let indexes = try sqliteQuery(url, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZITEM'")
        #expect(indexes.contains { $0.contains("ZSHELF") })
        // Dates as seconds since 2001 (a whole number reads back as an integer: TIMESTAMP columns have
        // numeric affinity, in Core Data's files too), UUIDs as 16-byte blobs, Z_OPT counting saves.
        let row = try sqliteQuery(url, "SELECT Z_ENT, ZADDED, length(ZCODE), hex(ZCODE), Z_OPT FROM ZITEM WHERE Z_PK = \(disc.objectID.primaryKey ?? 0)")
        let hex = code.uuidString.replacingOccurrences(of: "-", with: "")
        #expect(row == ["2|1000|16|\(hex)|2"])
        #expect(try sqliteQuery(url, "PRAGMA journal_mode") == ["wal"])

        // Metadata: the store's UUID, type and version hashes, readable without opening the store.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata["NSStoreUUID"] as? String == store.identifier)
        #expect(metadata["NSStoreType"] as? String == "SQLite")
        let hashes = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Any])
        #expect(Set(hashes.keys) == ["Item", "Disc", "Volume", "Shelf"])
        try store.setMetadata(store.metadata.merging(["AppVersion": "7"]) { $1 })
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)["AppVersion"] as? String == "7")
    }

    @Test func truncatedAndCorruptStoresFailWithTheirPathAndAreLeftAlone() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("whole.sqlite")
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            for _ in 0..<200 { try context.insertNewObject(forEntityName: "Shelf").setValue(String(repeating: "x", count: 200), forKey: "label") }
            try context.save()
            coordinator.persistentStores.forEach(coordinator.remove)
        }
        _ = try sqliteQuery(url, "PRAGMA wal_checkpoint(TRUNCATE)")
        let whole = try Data(contentsOf: url)
        let truncated = folder.file("truncated.sqlite")
        try whole.prefix(whole.count / 3).write(to: truncated)
        var garbled = whole
        for offset in stride(from: 100, to: min(garbled.count, 8_192), by: 7) { garbled[offset] = 0xA5 }
        let corrupt = folder.file("corrupt.sqlite")
        try garbled.write(to: corrupt)
        for bad in [truncated, corrupt] {
            let before = try Data(contentsOf: bad)
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            var message = ""
            do {
                try coordinator.addPersistentStore(type: .sqlite, at: bad)
                let context = ManagedObjectContext(concurrencyType: .privateQueue)
                context.persistentStoreCoordinator = coordinator
                _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).map { $0.value(forKey: "label") }
                message = "opened"
            } catch {
                message = "\(error)"
            }
            #expect(message.contains(bad.lastPathComponent), "\(bad.lastPathComponent): \(message)")
            #expect(try Data(contentsOf: bad) == before)
        }
    }

    /// A store reached through a symbolic link is judged by the file the link leads to (its
    /// length, and the `-wal` SQLite keeps beside it), read-only and for writing; a cut-short
    /// file behind a link is still refused.
    @Test func storeOpensThroughASymbolicLink() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("real.sqlite")
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            for index in 0..<200 { try context.insertNewObject(forEntityName: "Shelf").setValue("shelf \(index)", forKey: "label") }
            try context.save()
            coordinator.persistentStores.forEach(coordinator.remove)
        }
        _ = try sqliteQuery(url, "PRAGMA wal_checkpoint(TRUNCATE)")
        let link = folder.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: url.lastPathComponent)
        for readOnly in [true, false] {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
            try coordinator.addPersistentStore(type: .sqlite, at: link, options: [StoreOption.readOnly: readOnly])
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) } == 200)
            coordinator.persistentStores.forEach(coordinator.remove)
        }
        let whole = try Data(contentsOf: url)
        let truncated = folder.file("truncated.sqlite")
        try whole.prefix(whole.count / 3).write(to: truncated)
        let truncatedLink = folder.file("truncated-link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: truncatedLink.path, withDestinationPath: truncated.path)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: PersistenceError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: truncatedLink, options: [StoreOption.readOnly: true])
        }
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: truncatedLink, options: [StoreOption.readOnly: true])
        } catch {
            #expect("\(error)".contains("truncated: its header says"), "\(error)")
            #expect("\(error)".contains("the file has \(whole.count / 3)"), "\(error)")
        }
    }

    @Test func textWithNULCharactersIsStoredWhole() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("nul.sqlite")
        let text = "before\u{0}after é"
        do {
            let context = try TestStack.context(model: Self.model(), at: url)
            try context.insertNewObject(forEntityName: "Shelf").setValue(text, forKey: "label")
            try context.save()
        }
        let context = try TestStack.context(model: Self.model(), at: url)
        let found = try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf", predicate: try QueryPredicate(format: "label ==[cd] %@", "BEFORE\u{0}AFTER E")))
        #expect(found.first?.value(forKey: "label") as? String == text)
        #expect(try sqliteQuery(url, "SELECT length(CAST(ZLABEL AS BLOB)) FROM ZSHELF") == ["\(text.utf8.count)"])
    }

    /// Core Data sorts entities by name ignoring case when it numbers them (`Z_ENT`), roots and
    /// subentities alike: `apple` comes before `Banana`, and `bolt` before `Cog` under it.
    @Test func entityNumbersSortNamesIgnoringCase() throws {
        let banana = EntityDescription(name: "Banana", properties: [AttributeDescription(name: "ripe", type: .boolean)])
        let cog = EntityDescription(name: "Cog", properties: [], parent: "Banana")
        let bolt = EntityDescription(name: "bolt", properties: [], parent: "Banana")
        let apple = EntityDescription(name: "apple", properties: [AttributeDescription(name: "kind", type: .string)])
        let model = ManagedObjectModel(entities: [banana, cog, bolt, apple])
        let folder = try TemporaryFolder()
        let url = folder.file("fruit.sqlite")
        let context = try TestStack.context(model: model, at: url)
        #expect(["apple", "Banana", "bolt", "Cog"].map { model.entity(named: $0)?.entityNumber } == [1, 2, 3, 4])
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "bolt")
            try context.save()
        }
        #expect(try sqliteQuery(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") == ["1|apple|0", "2|Banana|0", "3|bolt|2", "4|Cog|2"])
        #expect(try sqliteQuery(url, "SELECT Z_ENT FROM ZBANANA") == ["3"])
    }
}
