import Foundation
import Testing
@testable import LimelightData

/// Mapping models as Xcode keeps them in a project (`.xcmappingmodel`): compiled here as Xcode
/// would compile them, found by the model versions they map between, and followed object by object.
@Suite struct XcodeMappingModelTests {
    static let relationshipSelector = "\"destinationInstancesForEntityMappingNamed:sourceInstances:\""

    @Test func everyMappingIsCompiledAsXcodeWould() throws {
        let mapping = try MappingModel(contentsOf: ShopVersions.mappingModel)
        // In mapping number order; the orphaned property mappings belong to none.
        #expect(mapping.entityMappings.map(\.name) == ["CustomerToClient", "ProductToProduct", "TagToTag", "OrderToOrder", "Review", "Coupon"])
        #expect(mapping.entityMappings.map(\.mappingType) == [.transform, .undefined, .copy, .transform, .add, .remove])
        let byName = mapping.entityMappingsByName

        let clients = try #require(byName["CustomerToClient"])
        #expect(clients.sourceEntityName == "Customer" && clients.destinationEntityName == "Client")
        #expect(clients.attributeMappings.map { "\($0.name ?? "") = \($0.valueExpression?.description ?? "-")" }
                == ["email = $source.email", "name = $source.name"])
        #expect(clients.relationshipMappings.map { $0.valueExpression?.description } == [
            "FUNCTION($manager, \(Self.relationshipSelector), \"OrderToOrder\", $source.orders)"])
        #expect(clients.userInfo?["renamedFrom"] as? String == "Customer")
        #expect(clients.sourceExpression?.description == "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", "
                + "\"Customer\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")

        let products = try #require(byName["ProductToProduct"])
        #expect(products.sourceExpression?.description == "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", "
                + "\"Product\", \"priceInCents > 0\"), $manager.sourceContext, NO)")
        #expect(products.attributeMappings.map { $0.valueExpression?.description } == ["$source.name", "($source.priceInCents / 100.0)"])
        #expect(products.relationshipMappings.first?.valueExpression?.description
                == "FUNCTION($manager, \(Self.relationshipSelector), \"TagToTag\", $source.tags)")

        #expect(byName["TagToTag"]?.relationshipMappings.first?.valueExpression?.description
                == "FUNCTION($manager, \(Self.relationshipSelector), \"ProductToProduct\", $source.products)")
        let orders = try #require(byName["OrderToOrder"])
        #expect(orders.entityMigrationPolicy == nil) // NSEntityMigrationPolicy, the default
        #expect(orders.relationshipMappings.map { $0.valueExpression?.description } == [
            "FUNCTION($manager, \(Self.relationshipSelector), \"CustomerToClient\", $source.customer)"])

        let reviews = try #require(byName["Review"])
        #expect(reviews.sourceEntityName == nil && reviews.sourceExpression == nil)
        #expect(reviews.attributeMappings.map(\.name) == ["text"] && reviews.attributeMappings.first?.valueExpression == nil)
        #expect(byName["Coupon"]?.destinationEntityName == nil)

        // Compiled against the versions it records: it fits those, as a .cdm does.
        let v1 = try ShopVersions.version1(), v2 = try ShopVersions.version2()
        #expect(mapping.fits(sourceModel: v1, destinationModel: v2))
        #expect(!mapping.fits(sourceModel: v2, destinationModel: v2))
    }

    @Test func theModelsGivenGiveTheSameMappingAsThoseRecorded() throws {
        let recorded = try MappingModel(contentsOf: ShopVersions.mappingModel)
        let given = try MappingModel(contentsOf: ShopVersions.mappingXML, sourceModel: ShopVersions.version1(),
                                     destinationModel: ShopVersions.version2())
        #expect(given == recorded)
        let urls = try MappingModel.recordedModelURLs(ofMappingModelAt: ShopVersions.mappingModel)
        #expect(urls.source?.lastPathComponent == "Shop.xcdatamodel" && urls.destination?.lastPathComponent == "Shop 2.xcdatamodel")

        // Moved away from its project, the recorded models are not found: the error says so.
        let folder = try TemporaryFolder()
        let moved = folder.file("Moved.xcmappingmodel")
        try FileManager.default.copyItem(at: ShopVersions.mappingModel, to: moved)
        var message = ""
        do {
            _ = try MappingModel(contentsOf: moved)
        } catch let error as ModelError {
            message = "\(error)"
        }
        #expect(message.contains("Shop/Shop.xcdatamodeld/Shop.xcdatamodel") && message.contains("cannot be found")
                && message.contains("Moved.xcmappingmodel/xcmapping.xml"))
        #expect(try MappingModel(contentsOf: moved, sourceModel: ShopVersions.version1(), destinationModel: ShopVersions.version2()) == recorded)
    }

    @Test func aStoreIsMigratedWithIt() throws {
        let folder = try TemporaryFolder()
        let store = folder.file("shop.sqlite")
        try ShopVersions.makeStore(at: store)
        let mapping = try MappingModel(contentsOf: ShopVersions.mappingModel)
        try MigrationManager(sourceModel: ShopVersions.version1(), destinationModel: ShopVersions.version2()).migrateStore(at: store, with: mapping)
        #expect(try ShopVersions.summary(store) == [
            "client Ann ann@example.com orders 1,2", "client Bob - orders 3",
            "order 1 of Ann", "order 2 of Ann", "order 3 of Bob",
            "product tea 2.5 tags drink,hot",
            "tag drink products tea", "tag hot products tea",
            "reviews 0",
        ])
    }

    @Test func theCoordinatorFindsItInAFolderByTheVersions() throws {
        let v1 = try ShopVersions.version1(), v2 = try ShopVersions.version2()
        let found = try #require(try MappingModel(from: [ShopVersions.shop], forSourceModel: v1, destinationModel: v2))
        #expect(found.entityMappings.count == 6)
        #expect(try MappingModel(from: [ShopVersions.shop], forSourceModel: v2, destinationModel: v2) == nil)

        // Given to the coordinator, it migrates the store when it is added.
        let folder = try TemporaryFolder()
        let store = folder.file("shop.sqlite")
        try ShopVersions.makeStore(at: store)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: [
            StoreOption.migratePersistentStoresAutomatically: true, StoreOption.migrationSourceModels: [v1], StoreOption.mappingModels: [found],
        ])
        for added in coordinator.persistentStores { coordinator.remove(added) }
        #expect(try ShopVersions.summary(store).first == "client Ann ann@example.com orders 1,2")
    }

    @Test func aPolicyIsFoundByItsClassName() throws {
        let text = try String(contentsOf: ShopVersions.mappingXML, encoding: .utf8)
        let named = text.replacingOccurrences(of: #"<attribute name="migrationpolicyclassname" type="string"></attribute>"#,
                                              with: #"<attribute name="migrationpolicyclassname" type="string">ShopApp.TagPolicy</attribute>"#)
        #expect(named != text)
        let v1 = try ShopVersions.version1(), v2 = try ShopVersions.version2()
        var missing: MissingMigrationPolicyError?
        do {
            _ = try MappingModel(xcmappingData: Data(named.utf8), source: "Shop.xcmappingmodel", sourceModel: v1, destinationModel: v2)
        } catch let error as MissingMigrationPolicyError {
            missing = error
        }
        #expect(missing?.className == "ShopApp.TagPolicy" && missing?.entityMapping == "TagToTag" && missing?.file == "Shop.xcmappingmodel")

        let mapping = try MappingModel(xcmappingData: Data(named.utf8), source: "Shop.xcmappingmodel", sourceModel: v1, destinationModel: v2,
                                       policies: [TagPolicy.self])
        #expect(mapping.entityMappingsByName["TagToTag"]?.entityMigrationPolicy == TagPolicy.self)
        let folder = try TemporaryFolder()
        let store = folder.file("shop.sqlite")
        try ShopVersions.makeStore(at: store)
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: store, with: mapping)
        #expect(try ShopVersions.summary(store).filter { $0.hasPrefix("tag") } == ["tag DRINK products tea", "tag HOT products tea"])
    }

    @Test func aValueExpressionMayBeWrittenAsText() throws {
        let text = try String(contentsOf: ShopVersions.mappingXML, encoding: .utf8)
        let start = try #require(text.range(of: #"<attribute name="valueexpressiondata" type="binary">"#))
        let end = try #require(text.range(of: "</attribute>", range: start.upperBound..<text.endIndex))
        let written = text.replacingCharacters(in: start.lowerBound..<end.upperBound,
                                               with: #"<attribute name="valueexpressionstring" type="string">$source.priceInCents / 100.0</attribute>"#)
        let mapping = try MappingModel(xcmappingData: Data(written.utf8), source: "text", sourceModel: ShopVersions.version1(),
                                       destinationModel: ShopVersions.version2())
        #expect(mapping == (try MappingModel(contentsOf: ShopVersions.mappingModel)))
    }
}
