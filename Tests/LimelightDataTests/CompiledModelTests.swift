import Foundation
import Testing
@testable import LimelightData

/// Compiled models: the model a Core Data store keeps of itself (`Z_MODELCACHE`), and `.mom`
/// files and `.momd` bundles, which hold the same kind of archive.
@Suite struct CompiledModelTests {
    static var store: URL { CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel_V1.sqlite") }
    static var sourceModel: URL { CoreDataFixtureTests.fixtures.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel.xcdatamodel") }

    /// A copy of the fixture store, with `sql` run on it (`blob` bound to `?`).
    static func copyStore(_ folder: TemporaryFolder, changing sql: String? = nil, blob: Data? = nil) throws -> URL {
        let copy = folder.file("copy.sqlite")
        try FileManager.default.copyItem(at: store, to: copy)
        if let sql { try VersionHashTests.execute(sql, at: copy, blob: blob) }
        return copy
    }

    /// The archive inside the fixture store's cache, as a `.mom` file holds it.
    static func archive() throws -> Data {
        try Deflate.decompress(SQLiteStore.readModelCache(at: store))
    }

    /// Everything about a model that the store and the object graph depend on, as comparable text.
    static func outline(_ model: ManagedObjectModel, fetchedProperties: Bool = true) -> [String] {
        model.entities.sorted { $0.name < $1.name }.flatMap { entity -> [String] in
            var lines = ["\(entity.name) parent=\(entity.superentityName ?? "-") class=\(entity.managedObjectClassName ?? "-") abstract=\(entity.isAbstract) unique=\(entity.uniquenessConstraints)"]
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) where fetchedProperties || !(property is FetchedPropertyDescription) {
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
                    for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
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
            ("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", try Deflate.compress(Data("plain text, not a model".utf8)), "not a keyed archive"),
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
}

/// Models written as Core Data keeps them in a store, and read back.
@Suite struct CompiledModelWritingTests {
    /// `CompiledModelTests.outline` and what else a model archive keeps.
    static func fullOutline(_ model: ManagedObjectModel) -> [String] {
        // A store's model leaves fetched properties out: they compute results and store nothing.
        var lines = CompiledModelTests.outline(model, fetchedProperties: false)
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines.append("\(entity.name) info=\(entity.userInfo.sorted { $0.key < $1.key }) modifier=\(entity.versionHashModifier ?? "-") renamed=\(entity.renamingIdentifier ?? "-")")
            lines.append("\(entity.name) indexes=\(entity.fetchIndexes.map { "\($0.name):\($0.elements.map { "\($0.property)\($0.ascending ? "" : " desc")" })" })")
            for property in entity.ownProperties.sorted(by: { $0.name < $1.name }) where !(property is FetchedPropertyDescription) {
                var line = "  \(property.name) marker=\(property.isStoredInExternalRecord) info=\(property.userInfo.sorted { $0.key < $1.key }) modifier=\(property.versionHashModifier ?? "-") renamed=\(property.renamingIdentifier ?? "-")"
                if let attribute = property as? AttributeDescription {
                    line += " min=\(attribute.minValue.map { "\($0)" } ?? "-") max=\(attribute.maxValue.map { "\($0)" } ?? "-") pattern=\(attribute.regularExpression ?? "-") indexed=\(attribute.isIndexed)"
                    if attribute.attributeType == .transformable { line += " class=\(attribute.customClassName ?? "-")" }
                }
                lines.append(line)
            }
        }
        return lines
    }

    static var everyType: URL {
        CoreDataFixtureTests.fixtures.deletingLastPathComponent().appendingPathComponent("EveryType/model.xcdatamodeld")
    }

    @Test func everyModelReadsBackAsItWasWritten() throws {
        var models: [(String, ManagedObjectModel)] = [("photos", PhotoModel.make()),
                                                      ("notes", try ManagedObjectModel(archiveData: CompiledModelFormsTests.notesArchive(), source: "Notes.mom"))]
        for version in try ManagedObjectModel.loadVersions(inBundle: CompiledModelTests.sourceModel.deletingLastPathComponent()) {
            models.append((version.name, version.model))
        }
        for version in try ManagedObjectModel.loadVersions(inBundle: Self.everyType) { models.append((version.name, version.model)) }
        #expect(models.count == 7)
        for (name, model) in models {
            try model.resolve()
            let archive = try CompiledModelWriter.archive(of: model)
            let read = try ManagedObjectModel(archiveData: archive, source: name)
            #expect(Self.fullOutline(read) == Self.fullOutline(model), "\(name)")
            #expect(read.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
            #expect(read.versionIdentifiers == model.versionIdentifiers && read.configurations == model.configurations, "\(name)")
        }
    }

    @Test func storesMadeOrMigratedHereKeepTheirModel() throws {
        let folder = try TemporaryFolder()
        // Made here: the store describes itself.
        let made = folder.file("photos.sqlite")
        _ = try PhotoModel.stack(at: made)
        let kept = try ManagedObjectModel(cachedInStoreAt: made)
        #expect(Self.fullOutline(kept) == Self.fullOutline(PhotoModel.make()))
        // Migrated here: the cache describes the new version, not the one Core Data kept.
        let store = try CompiledModelTests.copyStore(folder)
        let versions = try ManagedObjectModel.loadVersions(inBundle: CompiledModelTests.sourceModel.deletingLastPathComponent())
        let v1 = try #require(versions.first { $0.name == "SampleModel" }?.model), v3 = try #require(versions.first { $0.name == "SampleModel3" }?.model)
        try MigrationManager(sourceModel: v1, destinationModel: v3).migrateStore(at: store)
        #expect(Self.fullOutline(try ManagedObjectModel(cachedInStoreAt: store)) == Self.fullOutline(v3))
    }
}
