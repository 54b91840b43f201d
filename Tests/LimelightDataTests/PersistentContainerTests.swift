import Foundation
import Testing
@testable import LimelightData

/// The container: a model, a coordinator with its stores, and contexts to work in.
@Suite struct PersistentContainerTests {
    @Test func storesGoWhereTheDescriptionsSayAndContextsShareThem() async throws {
        let folder = try TemporaryFolder()
        let container = try PersistentContainer(name: "Photos", managedObjectModel: PhotoModel.make())
        // By default: <data home>/<program>/Photos.sqlite.
        let defaultURL = try #require(container.persistentStoreDescriptions.first?.url)
        #expect(defaultURL.lastPathComponent == "Photos.sqlite")
        #expect(defaultURL.deletingLastPathComponent() == PersistentContainer.defaultDirectoryURL())
        #expect(defaultURL.path.hasPrefix(XDGDirectories.dataHome.path))
        let description = PersistentStoreDescription(url: folder.url.appendingPathComponent("nested/folder/Photos.sqlite"))
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically && !description.isReadOnly)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("nested/folder/Photos.sqlite").path))
        #expect(container.viewContext.concurrencyType == .mainQueue)

        // A background task saves; a background context sees it.
        let id: ManagedObjectID = try await withCheckedThrowingContinuation { continuation in
            container.performBackgroundTask { context in
                do {
                    let person = try context.insertNewObject(forEntityName: "Person")
                    person.setValue("Ada", forKey: "firstName")
                    try context.save()
                    continuation.resume(returning: person.objectID)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        let reader = container.newBackgroundContext()
        let name = try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "firstName") as? String }
        #expect(name == "Ada")
        // The awaiting form hands back what the task returns, errors included.
        let count = try await container.performBackgroundTask { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        #expect(count == 1)
        await #expect(throws: PersistenceError.self) {
            try await container.performBackgroundTask { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Nobody")) }
        }
    }

    @Test func anXMLStoreDescriptionMakesItsFolderAndFile() throws {
        let folder = try TemporaryFolder()
        let container = try PersistentContainer(name: "Photos", managedObjectModel: PhotoModel.make())
        let description = PersistentStoreDescription(url: folder.url.appendingPathComponent("documents/Photos.xml"))
        description.type = .xml
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("documents/Photos.xml").path))
    }

    @Test func aStoreThatCannotBeAddedIsReportedForItsDescription() throws {
        let folder = try TemporaryFolder()
        let text = folder.file("notes.sqlite")
        try Data("not a database".utf8).write(to: text)
        let container = try PersistentContainer(name: "Notes", managedObjectModel: PhotoModel.make())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: text), PersistentStoreDescription(url: folder.file("good.sqlite"))]
        var reports: [(String, Bool)] = []
        container.loadPersistentStores { description, error in reports.append((description.url?.lastPathComponent ?? "", error != nil)) }
        #expect(reports.map(\.0) == ["notes.sqlite", "good.sqlite"] && reports.map(\.1) == [true, false])
        #expect(throws: (any Error).self) { try PersistentContainer(name: "Nowhere", bundle: Bundle(path: folder.url.path) ?? .main) }
    }

    @Test func aCoreDataStoreMigratesWithTheModelItKeeps() throws {
        // A container of version 3 only (as an app that no longer ships version 1) opens the store
        // Core Data made with version 1: the store's own model is the migration's source.
        let folder = try TemporaryFolder()
        let store = try CompiledModelTests.copyStore(folder)
        let versions = try ManagedObjectModel.loadVersions(inBundle: CompiledModelTests.sourceModel.deletingLastPathComponent())
        let v3 = try #require(versions.first { $0.name == "SampleModel3" }?.model)
        let container = try PersistentContainer(name: "Cars", managedObjectModel: v3)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "LuxuryCar")) }
        #expect(count > 0)
        #expect(try ManagedObjectModel(cachedInStoreAt: store).entity(named: "LuxuryCar") != nil)
    }
}
