import Foundation
import LimelightData
import Testing

/// An application describing its objects with a Core Spotlight delegate (this test process), the
/// real daemon indexing its markers, and the real `limelight search` finding them by what the
/// delegate said. Serialized: each test runs a daemon.
@Suite(.serialized) struct SpotlightDelegateDaemonTests {
    /// Journal entries: the text is indexed, the mood is not, and the delegate files each entry
    /// under its mood and keeps private ones out.
    static func model() -> ManagedObjectModel {
        let text = AttributeDescription(name: "text", type: .string)
        text.isIndexedBySpotlight = true
        let entry = EntityDescription(name: "Entry", properties: [text, AttributeDescription(name: "mood", type: .string),
                                                                 AttributeDescription(name: "isPrivate", type: .boolean)])
        return ManagedObjectModel(entities: [entry])
    }

    final class EntryIndexing: CoreDataCoreSpotlightDelegate, @unchecked Sendable {
        override func attributeSet(for object: ManagedObject) -> SearchableItemAttributeSet? {
            if object.value(forKey: "isPrivate") as? Bool == true { return nil }
            let text = object.value(forKey: "text") as? String ?? ""
            var set = SearchableItemAttributeSet(displayName: "Journal: \(text.prefix(20))", textContent: text)
            set.keywords = [object.value(forKey: "mood") as? String ?? "plain"]
            return set
        }
    }

    /// The journal store in the harness's home, its delegate indexing.
    static func openJournal(_ h: Harness) throws -> (PersistentStoreCoordinator, ManagedObjectContext, EntryIndexing) {
        let url = h.home.appendingPathComponent("data/journal/Journal.sqlite")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let description = PersistentStoreDescription(url: url)
        description.setOption("entry", forKey: StoreOption.externalRecordExtension)
        description.setOption(h.home.appendingPathComponent("state/limelight/roots").path, forKey: StoreOption.recordsRegistryDirectory)
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: description.options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let indexing = EntryIndexing(forStoreWith: description, coordinator: coordinator)
        try indexing.startSpotlightIndexing()
        return (coordinator, context, indexing)
    }

    /// Saves entries with these texts, private or not, and returns them.
    static func addEntries(_ context: ManagedObjectContext, _ entries: [(text: String, isPrivate: Bool)]) throws -> [ManagedObject] {
        try context.performAndWait {
            let objects = try entries.map { entry in
                let object = try context.insertNewObject(forEntityName: "Entry")
                object.setValue(entry.text, forKey: "text")
                object.setValue(entry.isPrivate, forKey: "isPrivate")
                return object
            }
            try context.save()
            return objects
        }
    }

    /// `limelight status --json`, as a dictionary.
    static func status(_ h: Harness) throws -> [String: Any] {
        let output = try h.run("limelight", ["status", "--json"]).stdout
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    @Test func theDaemonIndexesWhatTheDelegateSays() throws {
        let h = try Harness()
        let daemon = try h.startDaemon()
        let (coordinator, context, _) = try Self.openJournal(h)

        let (sunny, rainy) = try context.performAndWait {
            let sunny = try context.insertNewObject(forEntityName: "Entry")
            sunny.setValue("Walked to the market for tomatoes", forKey: "text")
            sunny.setValue("cheerful", forKey: "mood")
            let rainy = try context.insertNewObject(forEntityName: "Entry")
            rainy.setValue("Stayed in with soup and tomatoes", forKey: "text")
            rainy.setValue("gloomy", forKey: "mood")
            rainy.setValue(true, forKey: "isPrivate")
            try context.save()
            return (sunny, rainy)
        }
        try coordinator.flushExternalRecords()
        try h.waitUntil("the cheerful entry is found by its mood") { try h.searchCount("cheerful") == 1 }
        #expect(try h.searchCount("tomatoes") == 1)
        let hit = try h.run("limelight", ["search", "keywords:cheerful", "--json"]).stdout
        #expect(hit.contains("\"displayName\":\"Journal: Walked to the market\""))

        // A change to a property the index does not hold changes what is found.
        try context.performAndWait {
            sunny.setValue("content", forKey: "mood")
            rainy.setValue(false, forKey: "isPrivate")
            try context.save()
        }
        try coordinator.flushExternalRecords()
        try h.waitUntil("both entries are found, by the new mood") { try h.searchCount("tomatoes") == 2 }
        #expect(try h.searchCount("content") == 1)
        #expect(try h.searchCount("cheerful") == 0)
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }

    /// Objects kept out are remembered by the index: a second start of the daemon imports
    /// nothing, they are found again once described, and their stand-ins go with their markers.
    @Test func keptOutObjectsAreNotImportedAgainAtTheNextStart() throws {
        let h = try Harness()
        var daemon = try h.startDaemon()
        let (coordinator, context, _) = try Self.openJournal(h)
        let entries = try Self.addEntries(context, [("Market day, tomatoes", false), ("Soup and tomatoes", true), ("Tomatoes again", true)])
        try coordinator.flushExternalRecords()
        // The status file may tell of the batch before a new reader of the index sees it.
        try h.waitUntil("the two private entries are kept out and the other found") {
            let keptOut = try Self.status(h)["keptOut"] as? Int
            let found = try h.searchCount("tomatoes")
            return keptOut == 2 && found == 1
        }
        #expect(try h.searchCount("entity:Entry") == 1)
        h.stop(daemon)

        daemon = try h.startDaemon()
        let reconcile = try #require(try Self.status(h)["lastReconcile"] as? [String: Any])
        #expect(reconcile["toIndex"] as? Int == 0)
        #expect(reconcile["unchanged"] as? Int == 3)
        #expect(try Self.status(h)["documents"] as? Int == 1)
        #expect(h.daemonLogText.contains("reconcile: 0 to index, 0 to remove, 3 unchanged"))

        // Described again: found. Deleted: its stand-in goes with its marker.
        try context.performAndWait {
            entries[1].setValue(false, forKey: "isPrivate")
            context.delete(entries[2])
            try context.save()
        }
        try coordinator.flushExternalRecords()
        try h.waitUntil("the entry made public is found") { try h.searchCount("tomatoes") == 2 }
        try h.waitUntil("the deleted entry's stand-in is gone") { (try Self.status(h)["keptOut"] as? Int) == 0 }
        h.stop(daemon)
        daemon = try h.startDaemon()
        let third = try #require(try Self.status(h)["lastReconcile"] as? [String: Any])
        #expect(third["toIndex"] as? Int == 0 && third["toRemove"] as? Int == 0 && third["unchanged"] as? Int == 2)
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }
}
