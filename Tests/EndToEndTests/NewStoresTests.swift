import Foundation
import Testing

/// Stores that appear while the daemon runs register themselves and are picked up.
@Suite(.serialized) struct NewStoresTests {
    @Test func aStoreCreatedWhileTheDaemonRunsIsIndexedAndOthersKeepTheirDocuments() throws {
        let h = try Harness()
        let daemon = try h.startDaemon()
        // The first store is created (and registered) after the daemon started.
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        try h.waitUntil("the new store's recipe is indexed") { try h.searchCount("tomato") == 1 }
        // A second store: registering it reconciles its folder alone, not the first store's.
        let second = h.home.appendingPathComponent("other/Second.sqlite").path
        try h.run("cookbook", ["add", "Pico", "--store", second, "--directions", "Fresh tomato."])
        try h.waitUntil("the second store's recipe is indexed") { try h.searchCount("tomato") == 2 }
        #expect(try ExternalRecordsRegistryReader.roots(in: h).count == 2)
        try h.run("cookbook", ["add", "Pasta", "--store", second, "--directions", "Tomato sauce."])
        try h.waitUntil("both stores are searchable") { try h.searchCount("tomato") == 3 }
        let status = try h.run("limelight", ["status"]).stdout
        #expect(status.contains("roots: 2"))
        h.stop(daemon)
    }
}
