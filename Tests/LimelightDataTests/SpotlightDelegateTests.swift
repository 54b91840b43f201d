import Foundation
import Testing
@testable import LimelightData

/// Core Spotlight delegates: what `attributeSet(for:)` returns travels in the marker files of the
/// objects it describes, on real stores with real markers.
struct SpotlightDelegateTests {
    /// Notes whose title and body are indexed, with tags (not indexed) a delegate reads too.
    static func model() -> ManagedObjectModel {
        let title = AttributeDescription(name: "title", type: .string)
        title.isIndexedBySpotlight = true
        let body = AttributeDescription(name: "body", type: .string)
        body.isIndexedBySpotlight = true
        let note = EntityDescription(name: "Note", properties: [title, body, AttributeDescription(name: "secret", type: .boolean),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true)])
        let tag = EntityDescription(name: "Tag", properties: [AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true)])
        return ManagedObjectModel(entities: [note, tag])
    }

    /// Describes notes by title, body and tag names; keeps secret notes out.
    final class NoteIndexing: CoreDataCoreSpotlightDelegate, @unchecked Sendable {
        override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
            if object.value(forKey: "secret") as? Bool == true { return nil }
            var set = SearchableItemAttributeSet(displayName: "Note: \(object.value(forKey: "title") as? String ?? "")",
                                                 title: object.value(forKey: "title") as? String)
            set.textContent = object.value(forKey: "body") as? String
            let tags = (object.value(forKey: "tags") as? Set<ManagedObject>) ?? []
            set.keywords = tags.compactMap { $0.value(forKey: "name") as? String }.sorted()
            set.customAttributes = ["mood": "calm"]
            return set
        }
    }

    struct Stack {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let coordinator: PersistentStoreCoordinator
        let description: PersistentStoreDescription

        init(folder: TemporaryFolder? = nil, markers: Bool = true) throws {
            let folder = try folder ?? TemporaryFolder()
            self.folder = folder
            coordinator = try PersistentStoreCoordinator(managedObjectModel: SpotlightDelegateTests.model())
            description = PersistentStoreDescription(url: folder.file("notes.sqlite"))
            if markers {
                description.setOption("note", forKey: StoreOption.externalRecordExtension)
                description.setOption(folder.file("registry").path, forKey: StoreOption.recordsRegistryDirectory)
            }
            try coordinator.addPersistentStore(type: .sqlite, at: folder.file("notes.sqlite"), options: description.options)
            folder.closeFirst(coordinator)
            context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
        }

        func note(_ title: String, body: String, tags: [String] = [], secret: Bool = false) throws -> ManagedObject {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(body, forKey: "body")
            note.setValue(secret, forKey: "secret")
            for name in tags {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(name, forKey: "name")
                note.mutableSetValue(forKey: "tags").insert(tag)
            }
            return note
        }

        /// The marker of `object`, as written once every save's markers are on disk.
        func marker(of object: ManagedObject) throws -> MarkerContent {
            try coordinator.flushExternalRecords()
            let store = try #require(coordinator.persistentStores.first)
            let configuration = try #require(store.externalRecordsConfiguration)
            let url = configuration.markerURL(storeIdentifier: store.identifier, entityName: "Note",
                                              primaryKey: try #require(object.objectID.primaryKey))
            return try MarkerContent.decode(try Data(contentsOf: url), path: url.path)
        }
    }

    @Test func savesCarryTheDelegatesDescriptionInTheirMarkers() throws {
        let stack = try Stack()
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        #expect(indexing.isIndexingEnabled)
        let salsa = try stack.note("Salsa", body: "chopped tomato", tags: ["mexican", "fresh"])
        let diary = try stack.note("Diary", body: "do not index", secret: true)
        try stack.context.save()
        guard case .attributes(let set)? = try stack.marker(of: salsa).spotlight else {
            Issue.record("no attribute set in the marker")
            return
        }
        #expect(set.displayName == "Note: Salsa")
        #expect(set.title == "Salsa" && set.textContent == "chopped tomato" && set.keywords == ["fresh", "mexican"])
        #expect(set.searchableTexts["mood"] == "calm" && set.searchableTexts["keywords"] == "fresh mexican")
        #expect(try stack.marker(of: diary).spotlight == .excluded)

        // A change to a property the index does not hold still reaches the marker: the delegate
        // may read it (here: the secret flag, and a tag).
        salsa.setValue(true, forKey: "secret")
        try stack.context.save()
        #expect(try stack.marker(of: salsa).spotlight == .excluded)
        diary.setValue(false, forKey: "secret")
        try stack.context.save()
        guard case .attributes(let revealed)? = try stack.marker(of: diary).spotlight else {
            Issue.record("the revealed note has no attribute set")
            return
        }
        #expect(revealed.title == "Diary")

        // Stopped: saves are indexed from the properties again.
        indexing.stopSpotlightIndexing()
        #expect(!indexing.isIndexingEnabled)
        diary.setValue("Journal", forKey: "title")
        try stack.context.save()
        #expect(try stack.marker(of: diary).spotlight == nil)
        #expect(try stack.marker(of: diary).objectURI == diary.objectID.uriString)
    }

    @Test func startingDescribesWhatWasSavedBeforeOnce() throws {
        let stack = try Stack()
        let old = try (0..<3).map { try stack.note("Old \($0)", body: "saved before the delegate") }
        try stack.context.save()
        #expect(try stack.marker(of: old[0]).spotlight == nil)
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        for note in old {
            guard case .attributes(let set)? = try stack.marker(of: note).spotlight else {
                Issue.record("\(note.objectID) not described on start")
                continue
            }
            #expect(set.title == note.value(forKey: "title") as? String)
        }
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        #expect(FileManager.default.fileExists(atPath: try SpotlightEntry.flagURL(of: store).path))
        try indexing.reindexAllObjects()
        indexing.stopSpotlightIndexing()
        #expect(throws: PersistenceError.self) { try indexing.reindexAllObjects() }
    }

    @Test func theDefaultDescriptionIsTheIndexedProperties() throws {
        let stack = try Stack()
        let indexing = CoreDataCoreSpotlightDelegate(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let note = try stack.note("Guacamole", body: "avocados, lime")
        try stack.context.save()
        guard case .attributes(let set)? = try stack.marker(of: note).spotlight else {
            Issue.record("no attribute set in the marker")
            return
        }
        #expect(set.title == "Guacamole" && set.displayName == "Guacamole")
        #expect(set.customAttributes == ["title": "Guacamole", "body": "avocados, lime"])
    }

    @Test func aStoreWithoutMarkersOrAGoneCoordinatorIsRefused() throws {
        let stack = try Stack(markers: false)
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        let error = try #require(throws: PersistenceError.self) { try indexing.startSpotlightIndexing() }
        #expect("\(error)".contains("notes.sqlite") && "\(error)".contains("externalRecordExtension"))
        let elsewhere = NoteIndexing(forStoreWith: PersistentStoreDescription(url: stack.folder.file("other.sqlite")),
                                     coordinator: stack.coordinator)
        #expect(throws: PersistenceError.self) { try elsewhere.startSpotlightIndexing() }
        #expect(!elsewhere.isIndexingEnabled)
    }

    /// A delegate describing a custom attribute with a name no query could use: the object is
    /// described by its properties instead, and the save goes through.
    @Test func anUnusableDescriptionFallsBackToTheProperties() throws {
        final class Careless: CoreDataCoreSpotlightDelegate, @unchecked Sendable {
            override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
                var set = SearchableItemAttributeSet(title: "x")
                set.customAttributes = ["not a name": "y"]
                return set
            }
        }
        let stack = try Stack()
        let indexing = Careless(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let note = try stack.note("Pico", body: "tomato")
        try stack.context.save()
        guard case .attributes(let set)? = try stack.marker(of: note).spotlight else {
            Issue.record("no attribute set in the marker")
            return
        }
        #expect(set.title == "Pico" && set.customAttributes["body"] == "tomato")
    }

    /// A journal row whose entry cannot be read (damaged on disk) still gets its marker written,
    /// without a description, and holds up none after it.
    @Test func aDamagedEntryLeavesTheObjectToItsProperties() throws {
        let stack = try Stack()
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let store = try #require(stack.coordinator.persistentStores.first as? SQLiteStore)
        let damaged = try stack.note("Damaged", body: "its entry is garbage")
        let fine = try stack.note("Fine", body: "its entry is whole")
        // Saved with the writer kept busy, so both rows wait in the journal while one is damaged.
        let writer = try #require(store.markerJournal?.writer)
        try writer.exclusively(store) {
            try stack.context.save()
            try stack.coordinator.withStores {
                _ = try store.db().run("UPDATE \(MarkerJournal.table) SET Z_SPOTLIGHT = X'00FF00' WHERE Z_OBJECT = ?",
                                       [.integer(try #require(damaged.objectID.primaryKey))])
            }
        }
        #expect(try stack.marker(of: damaged).spotlight == nil)
        guard case .attributes? = try stack.marker(of: fine).spotlight else {
            Issue.record("the whole entry was not carried out")
            return
        }
    }

    /// A journal written before delegates existed (no column for their entries) is brought up to
    /// date when the store opens, with its pending rows kept.
    @Test func anOlderJournalGainsTheColumn() throws {
        let folder = try TemporaryFolder()
        do {
            let stack = try Stack(folder: folder)
            _ = try stack.note("Before", body: "an older journal")
            try stack.context.save()
            try stack.coordinator.flushExternalRecords()
        }
        let db = try SQLiteConnection(path: folder.file("notes.sqlite").path, readOnly: false)
        try db.execute("DROP TABLE \(MarkerJournal.table)")
        try db.execute("CREATE TABLE \(MarkerJournal.table) (Z_PK INTEGER PRIMARY KEY, Z_ACTION INTEGER, Z_ENT INTEGER, Z_OBJECT INTEGER)")
        db.close()
        let stack = try Stack(folder: folder)
        let indexing = NoteIndexing(forStoreWith: stack.description, coordinator: stack.coordinator)
        try indexing.startSpotlightIndexing()
        let note = try stack.note("After", body: "with a delegate")
        try stack.context.save()
        guard case .attributes(let set)? = try stack.marker(of: note).spotlight else {
            Issue.record("no attribute set in the marker")
            return
        }
        #expect(set.displayName == "Note: After")
    }
}
