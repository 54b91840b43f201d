import Foundation
import Testing
@testable import LimelightData

/// Marker files after a migration: keys stay, so markers stay valid; a renamed entity's markers
/// move to its new name.
@Suite struct MigrationMarkerTests {
    static func model(entityName: String) -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        title.isStoredInExternalRecord = true
        var properties: [PropertyDescription] = [title]
        if entityName != "Note" { properties.append(AttributeDescription(name: "words", type: .integer32, isOptional: false, defaultValue: Int32(0))) }
        let entity = EntityDescription(name: entityName, properties: properties)
        entity.renamingIdentifier = "Note"
        return ManagedObjectModel(entities: [entity])
    }

    func markers(in folder: URL) throws -> [String: MarkerContent] {
        var result: [String: MarkerContent] = [:]
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasSuffix(".note") {
            let path = folder.appendingPathComponent(file).path
            result[file] = try MarkerContent.decode(try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
        }
        return result
    }

    @Test func aRenamedEntitysMarkersFollowIt() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let markerOptions: [String: any Sendable] = [
            StoreOption.externalRecordExtension: "note", StoreOption.externalRecordsDirectory: folder.file("records").path,
            StoreOption.recordsRegistryDirectory: folder.file("roots").path,
        ]
        let context = try TestStack.context(model: Self.model(entityName: "Note"), at: url, options: markerOptions)
        for title in ["Salsa", "Pesto"] {
            try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
        }
        try context.save()
        let coordinator = try #require(context.persistentStoreCoordinator)
        try coordinator.flushExternalRecords()
        let store = try #require(coordinator.persistentStores.first)
        let root = try #require(store.externalRecordsConfiguration).recordsRoot(storeIdentifier: store.identifier)
        #expect(try markers(in: root.appendingPathComponent("Note")).count == 2)
        coordinator.remove(store)

        var options = markerOptions
        options[StoreOption.migratePersistentStoresAutomatically] = true
        options[StoreOption.inferMappingModelAutomatically] = true
        options[StoreOption.migrationSourceModels] = [Self.model(entityName: "Note")]
        let migrated = try TestStack.context(model: Self.model(entityName: "Memo"), at: url, options: options)
        #expect(try markers(in: root.appendingPathComponent("Note")).isEmpty)
        let moved = try markers(in: root.appendingPathComponent("Memo"))
        #expect(Set(moved.values.compactMap { $0.values["title"] as? String }) == ["Salsa", "Pesto"])
        for marker in moved.values {
            let uri = try #require(URL(string: marker.objectURI))
            let id = try #require(migrated.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            let memo = try migrated.existingObject(with: id)
            #expect(memo.value(forKey: "title") as? String == marker.values["title"] as? String)
            #expect(memo.value(forKey: "words") as? Int32 == 0)
        }
    }
}
