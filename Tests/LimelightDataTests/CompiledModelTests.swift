import Foundation
import Testing
import CSQLite
import CZlib
@testable import LimelightData

/// Compiled models: the model a Core Data store keeps of itself (`Z_MODELCACHE`), and `.mom`
/// files and `.momd` bundles, which hold the same kind of archive.
@Suite struct CompiledModelTests {
    static var store: URL { CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel_V1.sqlite") }
    static var sourceModel: URL { CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel") }

    /// Runs SQL on a copy of the fixture store.
    static func copyStore(_ folder: TemporaryFolder, changing sql: String? = nil, blob: Data? = nil) throws -> URL {
        let copy = folder.file("copy.sqlite")
        try FileManager.default.copyItem(at: store, to: copy)
        guard let sql else { return copy }
        var db: OpaquePointer?
        guard sqlite3_open_v2(copy.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw PersistenceError.store(path: copy.path, reason: "open") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw PersistenceError.store(path: copy.path, reason: "prepare \(sql)") }
        defer { sqlite3_finalize(statement) }
        if let blob { _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), sqliteTransient) } }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw PersistenceError.store(path: copy.path, reason: "step \(sql)") }
        return copy
    }

    /// The archive inside the fixture store's cache, as a `.mom` file holds it.
    static func archive() throws -> Data {
        try Inflate.decompress(SQLiteStore.readModelCache(at: store))
    }

    /// Everything about a model that the store and the object graph depend on, as comparable text.
    static func outline(_ model: ManagedObjectModel) -> [String] {
        model.entities.sorted { $0.name < $1.name }.flatMap { entity -> [String] in
            var lines = ["\(entity.name) parent=\(entity.superentityName ?? "-") class=\(entity.managedObjectClassName ?? "-") abstract=\(entity.isAbstract) unique=\(entity.uniquenessConstraints)"]
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(property.name) optional=\(property.isOptional) transient=\(property.isTransient) spotlight=\(property.isIndexedBySpotlight)"
                if let attribute = property as? AttributeDescription {
                    line += " \(attribute.attributeType.rawValue) default=\(attribute.defaultValue.map { "\($0)" } ?? "-") transformer=\(attribute.valueTransformerName ?? "-")"
                    line += " external=\(attribute.allowsExternalBinaryDataStorage) preserve=\(attribute.preservesValueInHistoryOnDeletion)"
                }
                if let relationship = property as? RelationshipDescription {
                    line += " → \(relationship.destinationEntityName) inverse=\(relationship.inverseName ?? "-") toMany=\(relationship.isToMany)"
                    line += " rule=\(relationship.deleteRule.rawValue) min=\(relationship.minCount) max=\(relationship.maxCount) ordered=\(relationship.isOrdered)"
                }
                lines.append(line)
            }
            return lines
        }
    }

    @Test func theStoresCachedModelIsTheModelItWasMadeWith() throws {
        let cached = try ManagedObjectModel(cachedInStoreAt: Self.store)
        let source = try ManagedObjectModel(contentsOf: Self.sourceModel)
        #expect(Self.outline(cached) == Self.outline(source))
        #expect(cached.entities.count == 4)
        #expect(cached.versionIdentifiers == ["1"])
        // The hashes Core Data recorded in the store's metadata, from the cached model and the source.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: Self.store)
        let recorded = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(cached.entityVersionHashesByName == recorded)
        #expect(source.entityVersionHashesByName == recorded)
    }

    @Test func aStoreOpensWithItsCachedModelAndReadsAsWithTheSource() throws {
        let folder = try TemporaryFolder()
        let copy = try Self.copyStore(folder)
        func rows(_ model: ManagedObjectModel) throws -> [String] {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: copy, options: [StoreOption.readOnly: true])
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return try context.performAndWait {
                var lines: [String] = []
                for entity in ["Person", "Car"] {
                    for object in try context.fetch(FetchRequest(entityName: entity)) {
                        let keys = object.entity.properties.filter { !$0.isTransient && !($0 is RelationshipDescription) }.map(\.name).sorted()
                        var line = "\(object.entity.name) " + keys.map { "\($0)=\(object.value(forKey: $0).map { "\($0)" } ?? "nil")" }.joined(separator: " ")
                        if let owner = object.value(forKey: "owner") as? ManagedObject { line += " owner=\(owner.value(forKey: "lastName") ?? "nil")" }
                        if let cars = object.value(forKey: "cars") as? Set<ManagedObject> { line += " cars=\(cars.count)" }
                        lines.append(line)
                    }
                }
                return lines.sorted()
            }
        }
        let viaCache = try rows(ManagedObjectModel(cachedInStoreAt: copy))
        #expect(viaCache.count > 0)
        #expect(viaCache == (try rows(ManagedObjectModel(contentsOf: Self.sourceModel))))
    }

    @Test func compiledBundlesOpenAtTheirCurrentVersion() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.file("SampleModel.momd")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Self.archive().write(to: bundle.appendingPathComponent("SampleModel.mom"))
        // One version: no version information needed.
        let only = try ManagedObjectModel(contentsOf: bundle)
        #expect(Self.outline(only) == Self.outline(try ManagedObjectModel(contentsOf: Self.sourceModel)))
        // A `.mom` file by itself.
        #expect(try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("SampleModel.mom")).entities.count == 4)

        // Two versions: VersionInfo.plist decides, and without it there is no guessing.
        try Data("bplist00 not really".utf8).write(to: bundle.appendingPathComponent("SampleModel 2.mom"))
        #expect(throws: ModelError.self) { try ManagedObjectModel(contentsOf: bundle) }
        let info = try PropertyListWriter.data(["NSManagedObjectModel_CurrentVersionName": "SampleModel"], format: .xml)
        try info.write(to: bundle.appendingPathComponent("VersionInfo.plist"))
        #expect(try ManagedObjectModel(contentsOf: bundle).entities.count == 4)
        let other = try PropertyListWriter.data(["NSManagedObjectModel_CurrentVersionName": "SampleModel 2"], format: .xml)
        try other.write(to: bundle.appendingPathComponent("VersionInfo.plist"))
        let error = try #require(throws: ModelError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(error.location.hasSuffix("SampleModel 2.mom"))
        let missing = try PropertyListWriter.data(["NSManagedObjectModel_CurrentVersionName": "Gone"], format: .xml)
        try missing.write(to: bundle.appendingPathComponent("VersionInfo.plist"))
        let gone = try #require(throws: ModelError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(gone.reason.contains("Gone.mom"))
    }

    @Test func aDamagedOrMissingCacheIsAnErrorNamingTheStore() throws {
        let folder = try TemporaryFolder()
        let blob = try SQLiteStore.readModelCache(at: Self.store)
        // Cut short, damaged in the middle, emptied, removed, or replaced by other bytes.
        let cases: [(sql: String, blob: Data?, says: String)] = [
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", blob.prefix(blob.count / 2), "cut short"),
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", Data(blob.prefix(40)) + Data(repeating: 0xFF, count: 64) + blob.dropFirst(104), "Z_MODELCACHE"),
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", Data(), "empty"),
            ("DELETE FROM Z_MODELCACHE", nil, "keeps no model"),
            ("DROP TABLE Z_MODELCACHE", nil, "no Z_MODELCACHE table"),
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", try Self.deflated(Data("plain text, not a model".utf8)), "not a keyed archive"),
        ]
        for (index, item) in cases.enumerated() {
            let caseFolder = try TemporaryFolder()
            let copy = try Self.copyStore(caseFolder, changing: item.sql, blob: item.blob)
            let error = try #require(throws: ModelError.self, "case \(index)") { try ManagedObjectModel(cachedInStoreAt: copy) }
            #expect(error.location.hasPrefix(copy.path), "case \(index): \(error)")
            #expect("\(error)".contains(item.says), "case \(index): \(error)")
            // The store itself is untouched by the failed read.
            #expect(try SQLiteStore.readMetadata(at: copy)["NSStoreType"] as? String == "SQLite")
        }
        _ = folder
        // Not a store at all.
        let text = folder.file("notes.sqlite")
        try Data("just some text".utf8).write(to: text)
        #expect(throws: (any Error).self) { try ManagedObjectModel(cachedInStoreAt: text) }
    }

    @Test func archivesThatAreNotModelsAreRefused() throws {
        // A keyed archive of something else, and references that point outside the archive.
        let notAModel = try NSKeyedArchiver.archivedData(withRootObject: ["a", "b"] as NSArray, requiringSecureCoding: false)
        let error = try #require(throws: ModelError.self) { try ManagedObjectModel(archiveData: notAModel, source: "list.mom") }
        #expect(error.location == "list.mom")
        var archive = try Self.archive()
        // Every object reference in the archive is one byte wide here; 0xFF is beyond its objects.
        let marker = try #require(archive.firstRange(of: Data([0x80, 0x01])))
        archive[marker.lowerBound + 1] = 0xFF
        #expect(throws: ModelError.self) { try ManagedObjectModel(archiveData: archive, source: "damaged.mom") }
    }

    /// `data` compressed as Core Data compresses its cache: raw deflate, no zlib header.
    static func deflated(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PersistenceError.invalidRequest("deflateInit2 failed")
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw PersistenceError.invalidRequest("deflate failed: \(status)") }
        return Data(output.prefix(Int(stream.total_out)))
    }
}
