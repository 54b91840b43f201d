import Foundation
import LimelightData
import Testing

/// Objects changed outside contexts on a store a Core Spotlight delegate describes, with the real
/// daemon indexing their markers and the real `limelight` command rebuilding them. Serialized:
/// each test runs a daemon.
@Suite(.serialized) struct SpotlightBatchDaemonTests {
    typealias Journal = SpotlightDelegateDaemonTests

    /// A batch update made while the delegate indexes (in this process) reaches the daemon
    /// described; `limelight markers --rebuild`, run as a command without the delegate, keeps the
    /// descriptions markers carry and says which markers it made without one.
    @Test func batchUpdatesAreDescribedAndARebuildKeepsDescriptions() throws {
        let h = try Harness()
        let daemon = try h.startDaemon()
        let (coordinator, context, _) = try Journal.openJournal(h)
        let entries = try Journal.addEntries(context, [("Market day, tomatoes", false), ("Tomato soup", false)])
        try coordinator.flushExternalRecords()
        try h.waitUntil("both entries are found") { try h.searchCount("tomato") == 2 }

        let update = BatchUpdateRequest(entityName: "Entry")
        update.propertiesToUpdate = ["mood": "sunny"]
        try context.performAndWait { _ = try context.execute(update) }
        try coordinator.flushExternalRecords()
        try h.waitUntil("both entries are found by the mood the batch set") { try h.searchCount("keywords:sunny") == 2 }

        let markers = try SpotlightIndexDeletionTests.markers(h).sorted()
        #expect(markers.count == 2)
        let soupKey = try #require(entries[1].objectID.primaryKey)
        let soup = try #require(markers.first { $0.hasSuffix("/\(soupKey).entry") })
        try FileManager.default.removeItem(at: h.home.appendingPathComponent("data/journal").appendingPathComponent(soup))
        try h.waitUntil("the soup's document goes with its marker") { try h.searchCount("tomato") == 1 }
        let rebuilt = try h.run("limelight", ["markers", h.home.appendingPathComponent("data/journal/Journal.sqlite").path, "--rebuild"]).stdout
        #expect(rebuilt.contains("created 1, rewrote 0, removed 0, unchanged 1"))
        #expect(rebuilt.contains("kept the Core Spotlight delegate's description in 1 marker(s)"))
        #expect(rebuilt.contains("1 marker(s) made anew carry no description"))
        // The soup is back, indexed from its properties; the market entry keeps its description.
        try h.waitUntil("the soup is found again") { try h.searchCount("tomato") == 2 }
        #expect(try h.searchCount("keywords:sunny") == 1)
        h.stop(daemon)
    }
}
