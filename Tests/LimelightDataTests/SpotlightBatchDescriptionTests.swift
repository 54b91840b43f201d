import Foundation
import Testing
@testable import LimelightData

/// Objects changed by batch requests, and markers rebuilt, while a Core Spotlight delegate
/// indexes the store in this process: their markers carry its description of them as the write
/// left them, on real stores with real markers.
struct SpotlightBatchDescriptionTests {
    typealias Stack = SpotlightDelegateTests.Stack
    typealias NoteIndexing = SpotlightDelegateTests.NoteIndexing

    /// The attribute set in the marker of `object`, or nil (recording why) when there is none.
    private func described(_ object: ManagedObject, in stack: Stack) throws -> SearchableItemAttributeSet? {
        guard case .attributes(let set)? = try stack.marker(of: object).spotlight else {
            Issue.record("\(object.objectID) has no attribute set in its marker")
            return nil
        }
        return set
    }

    @Test func aBatchUpdateIsDescribedAsItLeftTheRows() throws {
        let stack = try Stack()
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let salsa = try stack.note("Salsa", body: "chopped tomato", tags: ["mexican"])
        let soup = try stack.note("Soup", body: "tomato broth")
        try stack.context.save()

        // A property the index does not hold: only the description shows it.
        let hide = BatchUpdateRequest(entityName: "Note")
        hide.predicate = try QueryPredicate(format: "title == 'Soup'")
        hide.propertiesToUpdate = ["secret": true]
        #expect(try stack.context.execute(hide).count == 1)
        #expect(try stack.marker(of: soup).spotlight == .excluded)

        // A text the description reads, and a related object it reads through the store.
        let rename = BatchUpdateRequest(entityName: "Note")
        rename.predicate = try QueryPredicate(format: "title == 'Salsa'")
        rename.propertiesToUpdate = ["body": "roasted tomato"]
        _ = try stack.context.execute(rename)
        let set = try described(salsa, in: stack)
        #expect(set?.textContent == "roasted tomato" && set?.keywords == ["mexican"] && set?.displayName == "Note: Salsa")

        // Stopped, the delegate is not asked: the marker goes back to the properties.
        indexing.stopSpotlightIndexing()
        _ = try stack.context.execute(rename)
        #expect(try stack.marker(of: salsa).spotlight == nil)
    }

    @Test func batchInsertsAndUpsertsAreDescribed() throws {
        let stack = try Stack()
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let insert = BatchInsertRequest(entityName: "Note", objects: [["title": "Pesto", "body": "basil"], ["title": "Diary", "secret": true]])
        insert.resultType = .objectIDs
        let ids = try #require(try stack.context.execute(insert).objectIDs)
        let objects = try ids.map { try stack.context.existingObject(with: $0) }
        let pesto = try #require(objects.first { $0.value(forKey: "title") as? String == "Pesto" })
        let diary = try #require(objects.first { $0.value(forKey: "title") as? String == "Diary" })
        #expect(try described(pesto, in: stack)?.textContent == "basil")
        #expect(try stack.marker(of: diary).spotlight == .excluded)
    }

    @Test func aBatchDeleteDescribesTheObjectsWhoseLinksItCleared() throws {
        // Folders hold notes through a to-one on the note; deleting a folder clears the link.
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        let note = EntityDescription(name: "Note", properties: [title, RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes")])
        let folderNotes = RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true)
        folderNotes.deleteRule = .nullify
        let folder = EntityDescription(name: "Folder", properties: [AttributeDescription(name: "name", type: .string), folderNotes])
        let scratch = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [note, folder]))
        let description = PersistentStoreDescription(url: scratch.file("filed.sqlite"))
        description.setOption("note", forKey: StoreOption.externalRecordExtension)
        description.setOption(scratch.file("registry").path, forKey: StoreOption.recordsRegistryDirectory)
        try coordinator.addPersistentStore(type: .sqlite, at: scratch.file("filed.sqlite"), options: description.options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        final class FiledIndexing: CoreDataCoreSpotlightDelegate, @unchecked Sendable {
            override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
                let folder = (object.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
                return SearchableItemAttributeSet(displayName: "Filed under \(folder ?? "nothing")")
            }
        }
        let indexing = FiledIndexing(forStoreWith: description, coordinator: coordinator)
        try indexing.startSpotlightIndexing()
        let box = try context.insertNewObject(forEntityName: "Folder")
        box.setValue("Recipes", forKey: "name")
        let filed = try context.insertNewObject(forEntityName: "Note")
        filed.setValue("Salsa", forKey: "title")
        filed.setValue(box, forKey: "folder")
        try context.save()
        _ = try context.execute(BatchDeleteRequest(objectIDs: [box.objectID]))
        try coordinator.flushExternalRecords()
        let store = try #require(coordinator.persistentStores.first)
        let url = try #require(store.externalRecordsConfiguration).markerURL(storeIdentifier: store.identifier, entityName: "Note",
                                                                              primaryKey: try #require(filed.objectID.primaryKey))
        let marker = try MarkerContent.decode(try Data(contentsOf: url), path: url.path)
        #expect(marker.spotlight == .attributes(SearchableItemAttributeSet(displayName: "Filed under nothing")))
    }

    @Test func aRebuildKeepsDescriptionsAndMakesThemAnewWithADelegate() throws {
        let stack = try Stack()
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let salsa = try stack.note("Salsa", body: "chopped tomato")
        let diary = try stack.note("Diary", body: "private", secret: true)
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        let configuration = try #require(store.externalRecordsConfiguration)
        let salsaURL = configuration.markerURL(storeIdentifier: store.identifier, entityName: "Note", primaryKey: try #require(salsa.objectID.primaryKey))

        // Without a delegate in this process (as `limelight markers --rebuild` runs): a marker
        // that is there keeps its description, one made anew has none.
        indexing.stopSpotlightIndexing()
        try stack.coordinator.flushExternalRecords()
        try FileManager.default.removeItem(at: salsaURL)
        let report = try store.rebuildExternalRecords()
        #expect(report.created == 1 && report.unchanged == 1 && report.keptDescriptions == 1 && report.storeIsDescribed)
        #expect(try stack.marker(of: salsa).spotlight == nil)
        #expect(try stack.marker(of: diary).spotlight == .excluded)

        // With the delegate indexing, every object is described anew.
        try indexing.startSpotlightIndexing()
        try FileManager.default.removeItem(at: salsaURL)
        _ = try store.rebuildExternalRecords()
        #expect(try described(salsa, in: stack)?.textContent == "chopped tomato")
        #expect(try stack.marker(of: diary).spotlight == .excluded)
    }
}
