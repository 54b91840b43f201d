import Foundation
import LimelightData
import Testing

/// A Core Spotlight delegate's `deleteSpotlightIndex()` asking the real daemon, over its socket,
/// to remove its store's documents; `limelight search` and the daemon's next start show the
/// outcome. Serialized: each test runs a daemon.
@Suite(.serialized) struct SpotlightIndexDeletionTests {
    typealias Journal = SpotlightDelegateDaemonTests

    @Test func theStoresDocumentsGoAndStayGoneUntilObjectsChange() async throws {
        let h = try Harness()
        var daemon = try h.startDaemon()
        let (coordinator, context, indexing) = try Journal.openJournal(h)
        let restore = Self.reachDaemons(of: h, from: indexing)
        defer { restore() }
        let entries = try Journal.addEntries(context, [("Market day, tomatoes", false), ("Tomato soup", false), ("Private tomatoes", true)])
        try coordinator.flushExternalRecords()
        try h.waitUntil("both public entries are found") { try h.searchCount("tomato") == 2 }
        #expect(indexing.domainIdentifier() == entries[0].objectID.storeIdentifier)

        try await indexing.deleteSpotlightIndex()
        // Done when the call returns: the daemon committed before it answered.
        #expect(try h.searchCount("tomato") == 0)
        #expect(try h.searchCount("entity:Entry") == 0)
        #expect(try Journal.status(h)["keptOut"] as? Int == 3)
        #expect(h.daemonLogText.contains("removed 2 document(s) of store"))
        // The markers stay: they are the store's.
        #expect(try Self.markers(h).count == 3)

        // The next start finds every marker up to date and brings nothing back.
        h.stop(daemon)
        daemon = try h.startDaemon()
        let reconcile = try #require(try Journal.status(h)["lastReconcile"] as? [String: Any])
        #expect(reconcile["toIndex"] as? Int == 0 && reconcile["unchanged"] as? Int == 3)
        #expect(try h.searchCount("tomato") == 0)

        // A later change is indexed again, with the delegate's description.
        try context.performAndWait {
            entries[1].setValue("Tomato soup, again", forKey: "text")
            try context.save()
        }
        try coordinator.flushExternalRecords()
        try h.waitUntil("the changed entry is found again") { try h.searchCount("tomato") == 1 }
        #expect(try h.run("limelight", ["search", "soup", "--json"]).stdout.contains("\"displayName\":\"Journal: Tomato soup, again\""))

        // reindexAllObjects() brings back the rest.
        try indexing.reindexAllObjects()
        try h.waitUntil("both public entries are found again") { try h.searchCount("tomato") == 2 }
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }

    @Test func withoutADaemonItFailsAndChangesNothing() async throws {
        let h = try Harness()
        let (coordinator, context, indexing) = try Journal.openJournal(h)
        _ = try Journal.addEntries(context, [("Market day, tomatoes", false)])
        try coordinator.flushExternalRecords()
        // The harness's index, which no daemon serves yet.
        let restore = Self.reachDaemons(of: h, from: indexing)
        defer { restore() }
        let error = await #expect(throws: SpotlightIndexError.self) { try await indexing.deleteSpotlightIndex() }
        #expect(error?.kind == .notServed)
        #expect(error?.description.contains("no limelightd serves this index") == true)

        // The daemon, started now, indexes what is there: nothing was taken out.
        let daemon = try h.startDaemon()
        try h.waitUntil("the entry is found") { try h.searchCount("tomatoes") == 1 }
        h.stop(daemon)
    }

    /// Points the delegate at the harness's index, and this process at the runtime folder where
    /// the harness's daemons put their sockets, as an application run in the harness's session
    /// would find them. Only the socket's folder is read from the variable in this process.
    /// Returns what puts the variable back.
    static func reachDaemons(of h: Harness, from indexing: CoreDataCoreSpotlightDelegate) -> () -> Void {
        indexing.indexURL = h.home.appendingPathComponent("data/limelight/index")
        let original = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        setenv("XDG_RUNTIME_DIR", h.runtime.path, 1)
        return {
            if let original { setenv("XDG_RUNTIME_DIR", original, 1) } else { unsetenv("XDG_RUNTIME_DIR") }
        }
    }

    /// Every marker of the journal store.
    static func markers(_ h: Harness) throws -> [String] {
        let records = h.home.appendingPathComponent("data/journal")
        let enumerator = FileManager.default.enumerator(atPath: records.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".entry") { found.append(path) }
        }
        return found
    }
}
