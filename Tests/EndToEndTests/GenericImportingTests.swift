import Foundation
import Testing

/// With no importer program registered, the daemon's generic importer reads the store itself.
@Suite(.serialized) struct GenericImportingTests {
    @Test func theGenericImporterIndexesIndexedPropertiesWithTheModelsDisplayName() throws {
        let h = try Harness()
        try FileManager.default.removeItem(at: h.home.appendingPathComponent("data/limelight/importers/cookbook.importer"))
        // No system-wide manifests either.
        h.environment["XDG_DATA_DIRS"] = h.home.appendingPathComponent("empty").path
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato, onion.", "--servings", "4"])
        try h.run("cookbook", ["add", "Gazpacho", "--directions", "Cold tomato soup.", "--servings", "2"])
        let daemon = try h.startDaemon()
        try h.waitUntil("both are indexed") { try h.searchCount("tomato") == 2 }
        let hit = try h.run("limelight", ["search", "name:salsa"]).stdout
        // The Recipe entity's userInfo displayNameKey is "name": the display name is the name alone.
        #expect(hit.hasPrefix("Salsa  [Recipe"))
        #expect(try h.searchCount("directions:soup") == 1)
        #expect(try h.searchCount("name:soup") == 0)
        // Only indexed properties get sort values: name does, servings (not indexed) does not.
        let sorted = try h.run("limelight", ["search", "tomato", "--sort", "name:desc", "--json"]).stdout
        #expect(sorted.split(separator: "\n").first?.contains("\"displayName\":\"Salsa\"") == true)
        let unsortable = try h.run("limelight", ["search", "tomato", "--sort", "servings"], allowFailure: true)
        #expect(unsortable.stderr.contains("no indexed property 'servings'"))
        try h.run("cookbook", ["edit", "Salsa", "--directions", "Roasted tomatillo."])
        try h.waitUntil("the edit is indexed") { try h.searchCount("tomatillo") == 1 }
        h.stop(daemon)
    }
}
