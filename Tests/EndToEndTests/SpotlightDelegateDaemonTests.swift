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

    @Test func theDaemonIndexesWhatTheDelegateSays() throws {
        let h = try Harness()
        let daemon = try h.startDaemon()
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
}
