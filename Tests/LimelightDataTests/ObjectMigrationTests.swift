import Foundation
import Testing
@testable import LimelightData

/// Object-level ("heavyweight") migration with mapping models written in code: policies, value
/// expressions, relationships rebuilt through the manager, failures that leave nothing behind.
@Suite struct ObjectMigrationTests {
    /// Everything in the folder, store files and hidden temporary files alike.
    func files(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    /// The version 2 store read back: people with their street and notes, notes with their
    /// author and shout, products with their price.
    func summary(_ url: URL) throws -> [String] {
        let context = try TestStack.context(model: SplitVersions.version2(), at: url)
        var lines: [String] = []
        let byName = [QuerySortDescriptor(key: "name", ascending: true)]
        for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: byName)) {
            let street = (person.value(forKey: "home") as? ManagedObject)?.value(forKey: "street") as? String ?? "-"
            let notes = ((person.value(forKey: "notes") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "text") as? String }.sorted()
            lines.append("\(person.value(forKey: "name") ?? "") at \(street) wrote \(notes)")
        }
        for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [QuerySortDescriptor(key: "text", ascending: true)])) {
            let author = (note.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String ?? "-"
            lines.append("\(note.value(forKey: "text") ?? "") \(note.value(forKey: "shout") ?? "-") by \(author)")
        }
        for product in try context.fetch(FetchRequest<ManagedObject>(entityName: "Product", sortDescriptors: byName)) {
            lines.append("\(product.value(forKey: "name") ?? "") \(product.value(forKey: "price") ?? "-")")
        }
        let addresses = try context.count(for: FetchRequest<ManagedObject>(entityName: "Address"))
        lines.append("addresses: \(addresses)")
        return lines
    }

    @Test func anEntitySplitByAPolicyAndValuesTransformedReadBackWithTheNewModel() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite"), destination = folder.file("book-v2.sqlite")
        try SplitVersions.makeStore(at: source)
        let before = try Data(contentsOf: source)
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        try manager.migrateStore(from: source, sourceType: .sqlite, options: nil, with: try SplitVersions.mapping(),
                                 toDestinationURL: destination, destinationType: .sqlite, destinationOptions: nil)
        #expect(try summary(destination) == [
            "Ann at 1 Main Street wrote [\"again\", \"hello\"]",
            "Bob at - wrote [\"hi\"]",
            "again AGAIN! by Ann", "hello HELLO! by Ann", "hi HI! by Bob",
            "tea 2.5",
            "addresses: 1",
        ])
        // The source is only read; the manager lets go of the migration's objects.
        #expect(try Data(contentsOf: source) == before)
        #expect(try !MigrationManager.storeNeedsMigration(at: destination, for: SplitVersions.version2()))
        #expect(manager.sourceContext == nil && manager.destinationContext == nil && manager.migrationProgress == 1)
        #expect(manager.mappingModel.entityMappingsByName["PersonToPerson"]?.entityMigrationPolicyClassName?.hasSuffix("AddressPolicy") == true)
    }

    /// The usual way to write one: infer, then replace the mapping inference cannot make.
    @Test func anInferredMappingWithOneEntityMappingReplaced() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite"), destination = folder.file("book-v2.sqlite")
        try SplitVersions.makeStore(at: source)
        var mapping = try MappingModel(inferringFrom: SplitVersions.version1(), to: SplitVersions.version2())
        mapping.entityMappings.removeAll { $0.destinationEntityName == "Person" }
        mapping.entityMappings.append(EntityMapping(
            name: "PersonToPerson", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Person",
            attributeMappings: [PropertyMapping(name: "name", valueExpression: try QueryExpression(format: "$source.name"))],
            relationshipMappings: [PropertyMapping(name: "notes", valueExpression: try QueryExpression(format:
                "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', 'notes', $source.notes)"))],
            entityMigrationPolicy: AddressPolicy.self))
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        try manager.migrateStore(from: source, with: mapping, toDestinationURL: destination)
        // Inferred: prices were renamed without a renaming identifier, so they start empty; the
        // notes' shout is new.
        #expect(try summary(destination) == [
            "Ann at 1 Main Street wrote [\"again\", \"hello\"]", "Bob at - wrote [\"hi\"]",
            "again - by Ann", "hello - by Ann", "hi - by Bob", "tea -", "water -", "addresses: 1",
        ])
    }

    @Test func aPolicyThatThrowsMidwayLeavesTheSourceAndNoDestination() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite"), destination = folder.file("book-v2.sqlite")
        try SplitVersions.makeStore(at: source)
        let before = try Data(contentsOf: source), filesBefore = try files(folder)
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        var failure: (mapping: String, stage: String, error: any Error)?
        do {
            try manager.migrateStore(from: source, with: try SplitVersions.mapping(personPolicy: FailingAddressPolicy.self), toDestinationURL: destination)
        } catch MigrationError.mappingFailed(_, let mapping, let stage, let error) {
            failure = (mapping, stage, error)
        }
        #expect(failure?.mapping == "PersonToPerson" && failure?.stage == "create instances")
        #expect(["Ann", "Bob"].contains((failure?.error as? FailingAddressPolicy.Refused)?.name ?? ""))
        #expect(try Data(contentsOf: source) == before)
        let filesAfter = try files(folder)
        #expect(filesAfter == filesBefore, "\(filesAfter) against \(filesBefore)")
        // The same manager migrates again once the mapping is right.
        try manager.migrateStore(from: source, with: try SplitVersions.mapping(), toDestinationURL: destination)
        #expect(try summary(destination).last == "addresses: 1")
    }

    @Test func cancellingThroughTheManagerStopsAfterTheStage() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite"), destination = folder.file("book-v2.sqlite")
        try SplitVersions.makeStore(at: source)
        let filesBefore = try files(folder)
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        var stage: String?
        do {
            try manager.migrateStore(from: source, type: .sqlite, mapping: try SplitVersions.mapping(personPolicy: CancellingPolicy.self),
                                 to: destination, type: .sqlite)
        } catch MigrationError.mappingFailed(_, _, let failedStage, let error) {
            stage = failedStage
            #expect(error as? FailingAddressPolicy.Refused == FailingAddressPolicy.Refused(name: "cancelled"))
        }
        #expect(stage == "create relationships")
        #expect(try files(folder) == filesBefore)
    }

    @Test func progressIsReportedStageByStage() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite")
        try SplitVersions.makeStore(at: source)
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        final class Log { var steps: [(String, Float)] = [] }
        let log = Log()
        manager.progress = { [unowned manager] step in log.steps.append((step, manager.migrationProgress)) }
        try manager.migrateStore(from: source, with: try SplitVersions.mapping(), toDestinationURL: folder.file("v2.sqlite"))
        let names = log.steps.map(\.0)
        #expect(names.first == "create instances PersonToPerson")
        #expect(names.firstIndex(of: "create relationships PersonToPerson") ?? 0 > names.firstIndex(of: "create instances Address") ?? 0)
        #expect(names.firstIndex(of: "validate PersonToPerson") ?? 0 > names.firstIndex(of: "create relationships Address") ?? 0)
        #expect(names.suffix(2) == ["save the migrated objects", "move the new store into place"])
        let values = log.steps.map(\.1)
        #expect(values.first == 0 && zip(values, values.dropFirst()).allSatisfy { $0 <= $1 } && (values.last ?? 1) < 1)
        #expect(manager.migrationProgress == 1)
    }

    @Test func aPolicyFunctionNobodyAnswersNamesTheSelectorAndTheMapping() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite")
        try SplitVersions.makeStore(at: source)
        var mapping = try SplitVersions.mapping()
        mapping.entityMappings[1].attributeMappings[1].valueExpression = try QueryExpression(format: "FUNCTION($entityPolicy, 'whisper:', $source.text)")
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        var thrown: MigrationFunctionError?
        do {
            try manager.migrateStore(from: source, with: mapping, toDestinationURL: folder.file("v2.sqlite"))
        } catch MigrationError.mappingFailed(_, _, _, let error) {
            thrown = error as? MigrationFunctionError
        }
        #expect(thrown?.selector == "whisper:" && thrown?.entityMapping == "NoteToNote")
        #expect(thrown?.description.contains("ShoutPolicy") == true)
    }

    @Test func aMappingNamingWhatTheModelsLackIsRefusedBeforeReading() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("book.sqlite")
        try SplitVersions.makeStore(at: source)
        var mapping = try SplitVersions.mapping()
        mapping.entityMappings[2].attributeMappings.append(PropertyMapping(name: "cost", valueExpression: .value(1)))
        mapping.entityMappings[0].sourceEntityName = "Human"
        let manager = try MigrationManager(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        var changes: [String] = []
        do {
            try manager.migrateStore(from: source, with: mapping, toDestinationURL: folder.file("v2.sqlite"))
        } catch MigrationError.unmappable(_, let listed) {
            changes = listed
        }
        #expect(changes == ["PersonToPerson: the source model has no entity Human", "ProductToProduct: entity Product has no stored property cost"])
    }

    @Test func theCoordinatorMigratesInPlaceWithAMappingModelGiven() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("book.sqlite")
        try SplitVersions.makeStore(at: url)
        var recorded = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        recorded["seeded"] = true
        try PersistentStoreCoordinator.setMetadata(recorded, forPersistentStoreOfType: .sqlite, at: url)
        var mapping = try SplitVersions.mapping()
        // Another mapping that names the same entities but other versions is passed over.
        var stale = mapping
        stale.recordEntityVersionHashes(sourceModel: SplitVersions.version2(), destinationModel: SplitVersions.version2())
        mapping.recordEntityVersionHashes(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2())
        #expect(!stale.fits(sourceModel: SplitVersions.version1(), destinationModel: SplitVersions.version2()))
        _ = try TestStack.context(model: SplitVersions.version2(), at: url, options: [
            StoreOption.migratePersistentStoresAutomatically: true,
            StoreOption.migrationSourceModels: [SplitVersions.version1()],
            StoreOption.mappingModels: [stale, mapping],
        ])
        #expect(try summary(url).first == "Ann at 1 Main Street wrote [\"again\", \"hello\"]")
        // The store keeps its identity and what the application recorded; the hashes are new.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata["NSStoreUUID"] as? String == recorded["NSStoreUUID"] as? String && metadata["seeded"] as? Bool == true)
        #expect(try !MigrationManager.storeNeedsMigration(at: url, for: SplitVersions.version2()))
        #expect(try files(folder).allSatisfy { !$0.contains("mapped-") && !$0.contains("migrating-") })
    }
}
