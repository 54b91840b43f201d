import Foundation
import Testing
import CSQLite
@testable import LimelightData

/// Entity version hashes are Core Data's own, byte for byte; stores made by earlier versions of
/// this framework, which recorded hashes of their own, still open and are brought up to date.
@Suite struct VersionHashTests {
    @Test func hashesAreTheOnesCoreDataRecorded() throws {
        // Core Data recorded these for version 1: inheritance, a uniqueness constraint, a value
        // kept after deletion, transient attributes, to-one and to-many relationships with inverses.
        let model = try ManagedObjectModel(contentsOf: CompiledModelTests.sourceModel)
        let metadata = try SQLiteStore.readMetadata(at: CompiledModelTests.store)
        let recorded = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(recorded.count == 4)
        for (name, hash) in model.entityVersionHashesByName {
            #expect(recorded[name] == hash, "\(name)")
        }
        // And the digest Core Data records beside them.
        #expect(ManagedObjectModel.versionHashesDigest(recorded) == metadata["NSStoreModelVersionHashesDigest"] as? String)
        #expect(SHA512.hash(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined().hasPrefix("ddaf35a193617aba"))
        // So the version that made a Core Data store is found by its hashes alone.
        let versions = try ManagedObjectModel.loadVersions(inBundle: CompiledModelTests.sourceModel.deletingLastPathComponent())
        let source = try MigrationManager.sourceModel(forStoreAt: CompiledModelTests.store, among: versions.map(\.model))
        #expect(source === versions.first { $0.name == "SampleModel" }?.model)
    }

    @Test func whatCoreDataHashesChangesTheHashAndWhatItDoesNotLeavesIt() throws {
        func hash(_ change: (EntityDescription, AttributeDescription, RelationshipDescription) -> Void) throws -> Data {
            let title = AttributeDescription(name: "title", type: .string)
            let parent = RelationshipDescription(name: "parent", destination: "Item", inverse: "children")
            let children = RelationshipDescription(name: "children", destination: "Item", inverse: "parent", toMany: true)
            let item = EntityDescription(name: "Item", properties: [title, parent, children])
            change(item, title, parent)
            let model = ManagedObjectModel(entities: [item])
            try model.resolve()
            return item.versionHash
        }
        let plain = try hash { _, _, _ in }
        // Stored shape: each of these is a different version.
        for (label, change) in [
            ("optional", { (_: EntityDescription, a: AttributeDescription, _: RelationshipDescription) in a.isOptional = false }),
            ("type", { _, a, _ in a.attributeType = .uri }),
            ("external storage", { _, a, _ in a.allowsExternalBinaryDataStorage = true }),
            ("modifier", { _, a, _ in a.versionHashModifier = "2" }),
            ("entity modifier", { e, _, _ in e.versionHashModifier = "2" }),
            ("abstract", { e, _, _ in e.isAbstract = true }),
            ("constraint", { e, _, _ in e.uniquenessConstraints = [["title"]] }),
            ("min count", { _, _, r in r.minCount = 1 }),
            ("transient", { _, a, _ in a.isTransient = true }),
        ] as [(String, (EntityDescription, AttributeDescription, RelationshipDescription) -> Void)] {
            #expect(try hash(change) != plain, "\(label)")
        }
        // Not part of the stored shape: the same version.
        for (label, change) in [
            ("class", { (e: EntityDescription, _: AttributeDescription, _: RelationshipDescription) in e.managedObjectClassName = "Item" }),
            ("default", { _, a, _ in a.defaultValue = "x" }),
            ("spotlight", { _, a, _ in a.isIndexedBySpotlight = true }),
            ("indexed", { _, a, _ in a.isIndexed = true }),
            ("delete rule", { _, _, r in r.deleteRule = .cascade }),
            ("user info", { e, _, _ in e.userInfo = ["k": "v"] }),
        ] as [(String, (EntityDescription, AttributeDescription, RelationshipDescription) -> Void)] {
            #expect(try hash(change) == plain, "\(label)")
        }
    }

    @Test func storesWithTheEarlierHashesOpenAndAreBroughtUpToDate() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("old.sqlite")
        let model = PhotoModel.make()
        do {
            let context = try TestStack.context(model: model, at: url)
            _ = try context.insertNewObject(forEntityName: "Person")
            try context.save()
        }
        // Rewrite the metadata as an earlier version recorded it.
        var metadata = try SQLiteStore.readMetadata(at: url)
        let current = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        let earlier = Dictionary(model.entities.map { ($0.name, $0.earlierLimelightVersionHash) }, uniquingKeysWith: { a, _ in a })
        #expect(earlier != current)
        metadata["NSStoreModelVersionHashes"] = earlier
        metadata["NSStoreUUID"] = nil
        try Self.writeMetadata(metadata, to: url)
        try Self.execute("DELETE FROM Z_MODELCACHE", at: url)

        // Read-only: it opens, and the file keeps what it had.
        let readOnly = try PersistentStoreCoordinator(managedObjectModel: PhotoModel.make())
        try readOnly.addPersistentStore(type: .sqlite, at: url, options: [StoreOption.readOnly: true])
        #expect(try SQLiteStore.readMetadata(at: url)["NSStoreModelVersionHashes"] as? [String: Data] == earlier)
        #expect(throws: ModelError.self) { try ManagedObjectModel(cachedInStoreAt: url) }
        #expect(try MigrationManager.storeNeedsMigration(at: url, for: PhotoModel.make()) == false)
        // For writing: it opens with its objects, and now records Core Data's hashes.
        let context = try TestStack.context(model: PhotoModel.make(), at: url)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 1)
        let upgraded = try SQLiteStore.readMetadata(at: url)
        #expect(upgraded["NSStoreModelVersionHashes"] as? [String: Data] == current)
        #expect(upgraded["NSStoreModelVersionHashesDigest"] as? String == ManagedObjectModel.versionHashesDigest(current))
        // And the model those versions did not keep in the store.
        #expect(try ManagedObjectModel(cachedInStoreAt: url).entityVersionHashesByName == current)
    }

    static func writeMetadata(_ metadata: [String: Any], to url: URL) throws {
        try execute("UPDATE Z_METADATA SET Z_PLIST = ?", at: url, blob: PropertyListWriter.data(metadata, format: .binary))
    }

    /// Runs one statement on the store at `url`, as another program would, `blob` bound to `?`.
    static func execute(_ sql: String, at url: URL, blob: Data? = nil) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw PersistenceError.store(path: url.path, reason: "open") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw PersistenceError.store(path: url.path, reason: "prepare \(sql)") }
        defer { sqlite3_finalize(statement) }
        if let blob { _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), sqliteTransient) } }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw PersistenceError.store(path: url.path, reason: "step") }
    }
}
