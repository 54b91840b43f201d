import Foundation
import Testing
@testable import LimelightData

/// Core Data's model conveniences: configurations, merging models found in bundles, matching
/// models to a store's metadata, and the entity's views and class methods.
struct ModelConveniencesTests {
    static func notes(version: Int) -> ManagedObjectModel {
        var properties: [PropertyDescription] = [AttributeDescription(name: "title", type: .string)]
        if version == 2 { properties.append(AttributeDescription(name: "pinned", type: .boolean)) }
        return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: properties)])
    }

    static func tags() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Tag", properties: [AttributeDescription(name: "label", type: .string)])])
    }

    /// A folder with the notes model in two versions (the second current) and the tags model.
    static func bundle(in folder: TemporaryFolder) throws -> Bundle {
        let root = folder.file("App.bundle")
        let bundled = root.appendingPathComponent("Notes.xcdatamodeld")
        try Self.notes(version: 1).write(to: bundled)
        try Self.notes(version: 2).write(to: bundled.appendingPathComponent("Notes 2.xcdatamodel"))
        let current = try PropertyListWriter.data(["_XCCurrentVersionName": "Notes 2.xcdatamodel"], format: .xml)
        try current.write(to: bundled.appendingPathComponent(".xccurrentversion"))
        try tags().write(to: root.appendingPathComponent("Tags.xcdatamodel"))
        return try #require(Bundle(url: root))
    }

    /// The metadata of a new SQLite store made with `model`.
    static func metadata(of model: ManagedObjectModel, in folder: TemporaryFolder, name: String) throws -> [String: Any] {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        let url = folder.file(name)
        coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        return try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    }

    @Test func modelsInBundlesMergeAndMatchStores() throws {
        let folder = try TemporaryFolder()
        let bundle = try Self.bundle(in: folder)
        let merged = try #require(try ManagedObjectModel.mergedModel(from: [bundle]))
        #expect(merged.entities.map(\.name).sorted() == ["Note", "Tag"])
        #expect(merged.entitiesByName["Note"]?.attributesByName["pinned"] != nil)   // the current version

        let empty = try TemporaryFolder()
        #expect(try ManagedObjectModel.mergedModel(from: [try #require(Bundle(url: empty.url))]) == nil)

        // A store made with the first version of the notes and the tags: those versions are picked.
        let oldMetadata = try Self.metadata(of: try ManagedObjectModel(byMerging: [Self.notes(version: 1), Self.tags()]), in: folder, name: "old.sqlite")
        let old = try #require(try ManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: oldMetadata))
        #expect(old.entitiesByName["Note"]?.attributesByName["pinned"] == nil)
        #expect(old.isConfiguration(withName: nil, compatibleWithStoreMetadata: oldMetadata))
        #expect(!merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: oldMetadata))
        // A store of notes alone is not what the bundle's models make together.
        let notesOnly = try Self.metadata(of: Self.notes(version: 1), in: folder, name: "notes.sqlite")
        #expect(try ManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: notesOnly) == nil)

        #expect(try ManagedObjectModel(byMerging: [Self.notes(version: 1), Self.tags()], forStoreMetadata: oldMetadata) != nil)
        #expect(try ManagedObjectModel(byMerging: [Self.notes(version: 2), Self.tags()], forStoreMetadata: oldMetadata) == nil)
        #expect(throws: ModelError.self) { try ManagedObjectModel(byMerging: [Self.tags(), Self.tags()]) }
    }

    @Test func configurationsAndCompatibility() throws {
        let folder = try TemporaryFolder()
        let model = try ManagedObjectModel(byMerging: [Self.notes(version: 1), Self.tags()])
        model.setEntities([try #require(model.entitiesByName["Tag"])], forConfigurationName: "Labels")
        #expect(model.entities(forConfigurationName: "Labels").map(\.name) == ["Tag"])
        #expect(model.entities(forConfigurationName: nil).count == 2)
        let metadata = try Self.metadata(of: model, in: folder, name: "all.sqlite")
        #expect(model.isConfiguration(withName: "Labels", compatibleWithStoreMetadata: metadata))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
    }

    @Test func entityViewsAndClassMethods() throws {
        let folder = try TemporaryFolder()
        let context = try LibraryModel.stack(at: folder.file("library.sqlite"))
        let book = try #require(EntityDescription.entity(forEntityName: "Book", in: context))
        let friend = try #require(EntityDescription.entity(forEntityName: "Friend", in: context))
        #expect(EntityDescription.entity(forEntityName: "Nobody", in: context) == nil)
        #expect(book.relationships(forDestination: friend).map(\.name) == ["loanedTo"])
        #expect(book.isKindOf(entity: book) && !book.isKindOf(entity: friend))
        #expect(book.subentitiesByName.isEmpty)
        #expect(book.indexes.isEmpty)
        try context.performAndWait {
            let inserted = try EntityDescription.insertNewObject(forEntityName: "Book", into: context)
            #expect(inserted.entity === book && context.insertedObjects == [inserted])
            #expect(throws: PersistenceError.self) { try EntityDescription.insertNewObject(forEntityName: "Nobody", into: context) }
        }
    }

    @Test func valuesAndObjectsAreValidatedOnRequest() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("photos.sqlite"))
        try context.performAndWait {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            try photo.validateValue(Int16(3), forKey: "rating")
            #expect(throws: ValidationFailure.self) { try photo.validateValue(Int16(9), forKey: "rating") }
            #expect(throws: ValidationFailure.self) { try photo.validateValue(nil, forKey: "name") }
            #expect(throws: ValidationFailure.self) { try photo.validateValue("x", forKey: "photographer") }
            #expect(throws: ValidationFailure.self) { try photo.validateValue(nil, forKey: "nothing") }
            try photo.validateForInsert()
            photo.setValue(Int16(9), forKey: "rating")
            #expect(throws: ValidationError.self) { try photo.validateForInsert() }
            // The save reports the rule once.
            do {
                try context.save()
                Issue.record("the save should fail")
            } catch let error as ValidationError {
                #expect(error.failures.count == 1 && error.failures.first?.key == "rating")
            }
        }
    }

    @Test func anOrderedRelationshipChangesThroughItsMutableOrderedSet() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("albums.sqlite")
        let model = OrderedRelationshipTests.model()
        let context = try TestStack.context(model: model, at: url)
        let albumID = try context.performAndWait { () throws -> ManagedObjectID in
            let album = try context.insertNewObject(forEntityName: "Album")
            var photos: [String: ManagedObject] = [:]
            for name in ["a", "b", "c", "d"] {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo.setValue(name, forKey: "name")
                photos[name] = photo
            }
            let ordered = album.mutableOrderedSetValue(forKey: "photos")
            ordered.add(try #require(photos["a"]))
            ordered.add(try #require(photos["c"]))
            ordered.insert(try #require(photos["b"]), at: 1)
            ordered.add(try #require(photos["a"]))                          // a member already
            ordered.replaceObject(at: 2, with: try #require(photos["d"]))   // c leaves
            ordered.moveObjects(at: IndexSet([0]), to: 2)                    // a goes last
            #expect(ordered.map { $0.value(forKey: "name") as? String } == ["b", "d", "a"])
            let d = try #require(photos["d"]), c = try #require(photos["c"])
            #expect(ordered.index(of: d) == 1 && !ordered.contains(c))
            #expect(photos["c"]?.value(forKey: "album") == nil && photos["d"]?.value(forKey: "album") as? ManagedObject === album)
            try context.save()
            return album.objectID
        }
        let reader = try TestStack.context(model: model, at: url)
        try reader.performAndWait {
            let album = try reader.existingObject(with: albumID)
            #expect((album.value(forKey: "photos") as? [ManagedObject])?.map { $0.value(forKey: "name") as? String } == ["b", "d", "a"])
        }
    }
}
