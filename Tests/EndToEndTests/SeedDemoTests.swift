import Foundation
import LimelightData
import Testing

/// The seed demo and the daemon's duties, with the real programs, a real Xapian index and real
/// inotify, in a scratch home. Serialized: each test runs a daemon and the suite shares the
/// process environment.
@Suite(.serialized) struct SeedDemoTests {
    @Test func saveIsSearchableUpdateFollowsDeleteRemoves() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mash ripe avocados with lime."])
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato, onion, cilantro, lime."])
        let daemon = try h.startDaemon()
        try h.waitUntil("tomato finds Salsa") { try h.searchCount("tomato") == 1 }
        let hit = try h.run("limelight", ["search", "tomato", "--json"]).stdout
        #expect(hit.contains("\"displayName\":\"Cookbook recipe: Salsa\""))
        #expect(hit.contains("Chopped tomato"))

        try h.run("cookbook", ["edit", "Salsa", "--directions", "Roasted tomatillo and chile."])
        try h.waitUntil("the new text is found") { try h.searchCount("tomatillo") == 1 }
        #expect(try h.searchCount("chopped") == 0)

        try h.run("cookbook", ["add", "Pico", "--directions", "Fresh tomato."])
        try h.waitUntil("a save while running is found") { try h.searchCount("pico") == 1 }
        // Other forms of a word, through the stems the daemon's writer recorded: "tomato" in an
        // earlier batch (and since gone from Salsa), "roasted" in the edit.
        #expect(try h.searchCount("tomatoes") == 1)
        #expect(try h.searchCount("roasting") == 1)

        try h.run("cookbook", ["delete", "Guacamole"])
        try h.waitUntil("the deleted recipe is gone") { try h.searchCount("avocados") == 0 }
        #expect(try h.searchCount("entity:Recipe") == 2)
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }

    /// The application searches the index the daemon keeps through its own context
    /// (`context.search`), and finds its recipes with their ingredients, as saved since.
    @Test func theApplicationSearchesForItsOwnRecipes() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mash ripe avocados with lime.", "--ingredient", "3 avocados"])
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato, onion, cilantro, lime.", "--ingredient", "4 tomatoes"])
        let daemon = try h.startDaemon()
        try h.waitUntil("tomato finds Salsa") { try h.searchCount("tomato") == 1 }
        let found = try h.run("cookbook", ["search", "tomato"]).stdout
        #expect(found.hasPrefix("Salsa\t"))
        #expect(found.contains("4 tomatoes"))
        #expect(found.contains("Chopped [tomato]"))
        let lime = try h.run("cookbook", ["search", "lime"]).stdout
        #expect(lime.split(separator: "\n").filter { !$0.hasPrefix(" ") }.count == 2)

        try h.run("cookbook", ["edit", "Salsa", "--name", "Salsa roja"])
        try h.waitUntil("the new name is indexed") { try h.searchCount("roja") == 1 }
        #expect(try h.run("cookbook", ["search", "roja"]).stdout.hasPrefix("Salsa roja\t"))
        let nothing = try h.run("cookbook", ["search", "quinoa"], allowFailure: true)
        #expect(nothing.status == 1 && nothing.stdout.isEmpty)
        let bad = try h.run("cookbook", ["search", "tomato AND"], allowFailure: true)
        #expect(bad.status != 0 && bad.stderr.contains("cannot parse the query"))
        h.stop(daemon)
    }

    @Test func openRunsTheRegisteredApplication() throws {
        let h = try Harness()
        try h.registerHandler(desktopFile: Harness.packageRoot.appendingPathComponent("share/applications/cookbook.desktop"))

        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let marker = try #require(try FileManager.default.subpathsOfDirectory(atPath: h.storeURL.deletingLastPathComponent().path)
            .first { $0.hasSuffix(".recipe") })
        let markerPath = h.storeURL.deletingLastPathComponent().appendingPathComponent(marker).path
        let opened = try h.run("limelight", ["open", markerPath])
        #expect(opened.stderr.contains("cookbook.desktop"))
        #expect(opened.stdout.contains("Recipe: Salsa"))
        #expect(opened.stdout.contains("Directions: Chopped tomato."))
        let printed = try h.run("limelight", ["open", "--print", markerPath])
        #expect(printed.stdout.contains("name: Salsa"))
        let record = try h.run("limelight", ["record", markerPath, "--json"])
        #expect(record.stdout.contains("\"entity\":\"Recipe\""))
        #expect(record.stdout.contains("\"storePath\":\"\(h.storeURL.path)\""))
    }

    @Test func markersOutsideEveryRootAreRefused() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let outside = h.home.appendingPathComponent("elsewhere/Recipe")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: outside.appendingPathComponent("1.recipe"))
        let refused = try h.run("limelight", ["open", outside.appendingPathComponent("1.recipe").path], allowFailure: true)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not inside any registered records folder"))
        let root = try #require(ExternalRecordsRegistryReader.roots(in: h).first)
        let dotted = try h.run("limelight", ["record", root + "/Recipe/../Recipe/1.recipe"], allowFailure: true)
        #expect(dotted.stderr.contains("'..'"))
        let link = root + "/Recipe/9.recipe"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.appendingPathComponent("1.recipe").path)
        let linked = try h.run("limelight", ["record", link], allowFailure: true)
        #expect(linked.status != 0)
        #expect(linked.stderr.contains("not inside any registered records folder"))
        let badKey = try h.run("limelight", ["record", root + "/Recipe/abc.recipe"], allowFailure: true)
        #expect(badKey.stderr.contains("not an object key"))
        let badEntity = try h.run("limelight", ["record", root + "/Nope/1.recipe"], allowFailure: true)
        #expect(badEntity.status != 0)
    }

    @Test func aSecondDaemonIsRefused() throws {
        let h = try Harness()
        let first = try h.startDaemon()
        let second = try h.run("limelightd", ["--foreground"], allowFailure: true)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already running"))
        h.stop(first)
    }

    @Test func openFollowsTheDesktopEntryQuotingRules() throws {
        let h = try Harness()
        let folder = h.home.appendingPathComponent("app with space")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let handler = folder.appendingPathComponent("show recipe")
        let record = folder.appendingPathComponent("arguments")
        try Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"\(record.path)\"\n".utf8).write(to: handler)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: handler.path)
        let desktop = h.home.appendingPathComponent("quoted.desktop")
        try Data("""
            [Desktop Entry]
            Type=Application
            Name=Quoted
            Exec="\(handler.path)" --title "two \\"quoted\\" words" 100%% %f
            MimeType=application/x-limelight-recipe;

            [Desktop Action other]
            Exec=/bin/false
            """.utf8).write(to: desktop)
        try h.registerHandler(desktopFile: desktop)
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let marker = try #require(try FileManager.default.subpathsOfDirectory(atPath: h.storeURL.deletingLastPathComponent().path)
            .first { $0.hasSuffix(".recipe") })
        let markerPath = h.storeURL.deletingLastPathComponent().appendingPathComponent(marker).path
        let opened = try h.run("limelight", ["open", markerPath])
        #expect(opened.status == 0)
        let arguments = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(arguments == ["--title", "two \"quoted\" words", "100%", markerPath])
    }
}

/// Reads the registry of a harness's scratch home.
enum ExternalRecordsRegistryReader {
    static func roots(in harness: Harness) throws -> [String] {
        let folder = harness.home.appendingPathComponent("state/limelight/roots")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
