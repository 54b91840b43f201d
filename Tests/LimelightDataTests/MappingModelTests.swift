import Foundation
import Testing
@testable import LimelightData

/// Mapping models as Core Data's: inferred ones carry names, types and value expressions and
/// are the ones lightweight migration uses; any of them runs object by object; expressions
/// answer FUNCTION and FETCH in a migration while predicates still refuse them.
@Suite struct MappingModelTests {
    @Test func theInferredMappingModelIsTheOneLightweightMigrationUses() throws {
        let inferred = try MappingModel.inferredMappingModel(forSourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2())
        let lightweight = try MigrationManager(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2()).mappingModel
        #expect(inferred == lightweight)
        let byName = inferred.entityMappingsByName
        #expect(byName.keys.sorted() == ["IEM_Add_Review", "IEM_Copy_Magazine", "IEM_Copy_Publication", "IEM_Remove_Shelf",
                                         "IEM_Transform_Book", "IEM_Transform_Comic", "IEM_Transform_Writer"])
        let writer = try #require(byName["IEM_Transform_Writer"])
        #expect(writer.mappingType == .transform && writer.kind == .rename && writer.sourceEntityName == "Author")
        var recorded = inferred
        recorded.recordEntityVersionHashes(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2())
        #expect(recorded.entityMappingsByName["IEM_Transform_Writer"]?.sourceEntityVersionHash == LibraryVersions.version1().entity(named: "Author")?.versionHash)
        #expect(recorded.fits(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2()))
        #expect(!recorded.fits(sourceModel: LibraryVersions.version2(), destinationModel: LibraryVersions.version2()))
        #expect(writer.attributeMappings.map(\.name) == ["fullName", "rating", "country", "website"])
        #expect(writer.mapping(forDestination: "fullName")?.valueExpression?.description == "$source.name")
        #expect(writer.mapping(forDestination: "country")?.valueExpression == nil)
        #expect(writer.relationshipMappings.first?.valueExpression?.description
                == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"books\", $source.books)")
        #expect(byName["IEM_Copy_Publication"]?.mappingType == .copy && byName["IEM_Add_Review"]?.mappingType == .add)
        #expect(byName["IEM_Remove_Shelf"]?.mappingType == .remove)
        // What cannot be inferred is an error here, as in Core Data, and listed by the initializer.
        #expect(throws: MigrationError.self) {
            try MappingModel.inferredMappingModel(forSourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.unmappable())
        }
        #expect(try !MappingModel(inferringFrom: LibraryVersions.version1(), to: LibraryVersions.unmappable()).unmappableChanges.isEmpty)
    }

    @Test func theInferredMappingAlsoRunsObjectByObject() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("library.sqlite"), destination = folder.file("library-v2.sqlite")
        _ = try LibraryVersions.makeStore(at: source)
        let manager = try MigrationManager(sourceModel: LibraryVersions.version1(), destinationModel: LibraryVersions.version2())
        try manager.migrateStore(from: source, with: nil, toDestinationURL: destination)
        let context = try TestStack.context(model: LibraryVersions.version2(), at: destination)
        func names(_ value: Any?, _ key: String) -> [String] {
            ((value as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: key) as? String }.sorted()
        }
        let writers = try context.fetch(FetchRequest<ManagedObject>(entityName: "Writer", sortDescriptors: [QuerySortDescriptor(key: "fullName")]))
        #expect(writers.map { $0.value(forKey: "fullName") as? String } == ["Ann", "Bob"])
        #expect(writers.first?.value(forKey: "rating") as? Int64 == 3 && writers.first?.value(forKey: "country") as? String == "unknown")
        #expect(names(writers.first?.value(forKey: "books"), "title") == ["One", "Two"])
        let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [QuerySortDescriptor(key: "title")]))
        #expect(books.map { "\($0.value(forKey: "title") ?? "") \($0.value(forKey: "pages") ?? "-") \(names($0.value(forKey: "authors"), "fullName"))" }
                == ["One 0 [\"Ann\"]", "Three 10 [\"Bob\"]", "Two 200 [\"Ann\"]"])
        // Sub-entities have mappings of their own and are migrated once each.
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Publication")) == 2)
        let comic = try context.fetch(FetchRequest<ManagedObject>(entityName: "Comic")).first
        #expect(comic?.value(forKey: "hero") as? String == "Cat" && comic?.value(forKey: "title") as? String == "Strips")
    }

    @Test func orderedAndManyToManyRelationshipsAreRebuilt() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("music.sqlite"), destination = folder.file("music-2.sqlite")
        let store = StoreMigrationTests()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: StoreMigrationTests.model())
        let added = try coordinator.addPersistentStore(type: .sqlite, at: source)
        try store.fill(store.context(coordinator))
        let before = try store.summary(store.context(coordinator))
        coordinator.remove(added)
        let manager = try MigrationManager(sourceModel: StoreMigrationTests.model(), destinationModel: StoreMigrationTests.model())
        try manager.migrateStore(from: source, with: nil, toDestinationURL: destination)
        let reopened = try PersistentStoreCoordinator(managedObjectModel: StoreMigrationTests.model())
        try reopened.addPersistentStore(type: .sqlite, at: destination)
        #expect(try store.summary(store.context(reopened)) == before)
    }

    @Test func expressionsParseAndCallFunctionsOnlyWhereAMigrationGivesThem() throws {
        let format = "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Note\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)"
        let fetch = try QueryExpression(format: format)
        #expect(fetch.description == format)
        #expect(try QueryExpression(format: fetch.description) == fetch)
        let price = try QueryExpression(format: "$source.priceInCents / %@", 100.0)
        #expect(try price.expressionValue(with: nil, context: ["source": ["priceInCents": Int64(250)]]) as? Double == 2.5)
        let keyed = try QueryExpression(format: "FUNCTION($source, 'valueForKey:', 'name')")
        #expect(try keyed.expressionValue(with: nil, context: ["source": ["name": "Ann"]]) as? String == "Ann")
        #expect(try keyed.expressionValue(with: nil, context: ["source": nil]) == nil)
        // A predicate has no receivers to call: FUNCTION answers only key-value coding there, and FETCH stays an error.
        let predicate = try QueryPredicate(format: "FUNCTION(SELF, 'valueForKey:', 'name') == 'Ann'")
        #expect(try predicate.evaluate(with: ["name": "Ann"]))
        let method = try QueryPredicate(format: "FUNCTION(SELF, 'uppercaseString') == 'ANN'")
        #expect(throws: PredicateEvaluationError.self) { try method.evaluate(with: ["name": "Ann"]) }
        let fetchInPredicate = try QueryPredicate(format: "FETCH(%@, nil, YES) > 0", "request")
        #expect(throws: PredicateEvaluationError.self) { try fetchInPredicate.evaluate(with: ["name": "Ann"]) }
        #expect(throws: (any Error).self) { try QueryExpression(format: "$source.name +") }
    }
}
