import Foundation
import Testing

/// `limelight search`, `open`, `index` as a user runs them, on an index made by `limelight index`.
@Suite(.serialized) struct SearchCommandTests {
    /// Three recipes, indexed once without the daemon.
    private func cookbook() throws -> Harness {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomatoes, onion, cilantro, lime.", "--servings", "4",
                               "--ingredient", "2 tomatoes", "--ingredient", "1 onion"])
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mash ripe avocados with lime.", "--servings", "6"])
        try h.run("cookbook", ["add", "Gazpacho", "--directions", "Blend tomato, cucumber and bread; serve cold.", "--servings", "2"])
        try h.run("limelight", ["index"])
        return h
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError("not a JSON object: \(line)")
            }
            return object
        }
    }

    private func names(_ h: Harness, _ arguments: [String]) throws -> [String] {
        try jsonLines(try h.run("limelight", ["search", "--json"] + arguments).stdout).map { ($0["values"] as? [String: Any])?["name"] as? String ?? "?" }
    }

    @Test func jsonCarriesTheHitAndTheObjectsCurrentValues() throws {
        let h = try cookbook()
        let hits = try jsonLines(try h.run("limelight", ["search", "--json", "cilantro"]).stdout)
        let hit = try #require(hits.first)
        #expect(hits.count == 1)
        #expect(hit["displayName"] as? String == "Cookbook recipe: Salsa")
        #expect(hit["entity"] as? String == "Recipe")
        #expect((hit["uri"] as? String)?.hasPrefix("x-coredata://") == true)
        #expect((hit["marker"] as? String)?.hasSuffix(".recipe") == true)
        #expect((hit["snippet"] as? String)?.contains("[cilantro]") == true)
        #expect(hit["change"] == nil)
        let values = try #require(hit["values"] as? [String: Any])
        #expect(values["servings"] as? Int == 4)
        #expect((values["ingredients"] as? [String])?.count == 2)
        // A change to the store shows at once, before any reindexing.
        try h.run("cookbook", ["edit", "Salsa", "--servings", "8"])
        let again = try #require(try jsonLines(try h.run("limelight", ["search", "--json", "cilantro"]).stdout).first)
        #expect((again["values"] as? [String: Any])?["servings"] as? Int == 8)
    }

    @Test func textOutputShowsNameEntityURIMarkerSnippetAndValues() throws {
        let h = try cookbook()
        let text = try h.run("limelight", ["search", "cilantro"]).stdout
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Cookbook recipe: Salsa  [Recipe, ") == true)
        #expect(lines.contains { $0.hasPrefix("  uri:    x-coredata://") && $0.hasSuffix("/Recipe/p1") })
        #expect(lines.contains { $0.hasPrefix("  marker: ") && $0.hasSuffix("/Recipe/1.recipe") })
        #expect(lines.contains { $0.hasPrefix("  text:   ") && $0.contains("[cilantro]") && !$0.contains("……") })
        #expect(lines.contains("    servings: 4"))
        let none = try h.run("limelight", ["search", "durian"])
        #expect(none.stdout.isEmpty)
        #expect(none.stderr.contains("no matches"))
    }

    /// `search` in its plain forms skips ArgumentParser; `--name=value` and the rest go through it.
    /// Both must print the same, errors included.
    @Test func plainFormsAndArgumentParserFormsPrintTheSame() throws {
        let h = try cookbook()
        let pairs: [([String], [String])] = [
            (["--json", "entity:Recipe", "--sort", "servings", "--offset", "1", "--limit", "1"],
             ["--json", "entity:Recipe", "--sort=servings", "--offset=1", "--limit=1"]),
            (["cilantro"], ["--limit=20", "cilantro"]),
            (["--local", "cilantro"], ["--local", "--limit=20", "cilantro"]),
            (["lime", "--json"], ["lime", "--json", "--offset=0"]),
            (["--count", "--language", "none", "tomatoes"], ["--count", "--language=none", "tomatoes"]),
            (["durian"], ["--offset=0", "durian"]),
            (["tomato", "--sort", "colour"], ["tomato", "--sort=colour"]),
            (["--index", h.home.appendingPathComponent("nowhere").path, "tomato"],
             ["--index=" + h.home.appendingPathComponent("nowhere").path, "tomato"]),
        ]
        for (plain, parsed) in pairs {
            let fast = try h.run("limelight", ["search"] + plain, allowFailure: true)
            let full = try h.run("limelight", ["search"] + parsed, allowFailure: true)
            #expect(fast.status == full.status, "\(plain)")
            #expect(fast.stdout == full.stdout, "\(plain)")
            #expect(fast.stderr == full.stderr, "\(plain)")
            #expect(!(fast.stdout + fast.stderr).isEmpty, "\(plain)")
        }
        // What the plain forms leave to ArgumentParser is still answered by it.
        let badLimit = try h.run("limelight", ["search", "--limit", "many", "tomato"], allowFailure: true)
        #expect(badLimit.status != 0)
        #expect(badLimit.stderr.contains("'many'"))
        let noWords = try h.run("limelight", ["search", "--json"], allowFailure: true)
        #expect(noWords.status != 0)
        #expect(noWords.stderr.contains("<query>"))
        let help = try h.run("limelight", ["search", "--help"])
        #expect(help.stdout.contains("--sort <sort>"))
        let completion = try h.run("limelight", ["--generate-completion-script", "bash"])
        #expect(completion.stdout.contains("--language"))
    }

    @Test func searchingWithoutAnIndexSaysHowToMakeOne() throws {
        let h = try Harness()
        let result = try h.run("limelight", ["search", "tomato"], allowFailure: true)
        #expect(result.status != 0)
        #expect(result.stderr.contains("no index yet"))
    }

    @Test func countSortOffsetAndLimit() throws {
        let h = try cookbook()
        #expect(try h.searchCount("lime") == 2)
        #expect(try h.searchCount("entity:Recipe") == 3)
        #expect(try names(h, ["entity:Recipe", "--sort", "servings"]) == ["Gazpacho", "Salsa", "Guacamole"])
        #expect(try names(h, ["entity:Recipe", "--sort", "servings:desc"]) == ["Guacamole", "Salsa", "Gazpacho"])
        #expect(try names(h, ["entity:Recipe", "--sort", "displayName"]) == ["Gazpacho", "Guacamole", "Salsa"])
        #expect(try names(h, ["entity:Recipe", "--sort", "servings", "--offset", "1", "--limit", "1"]) == ["Salsa"])
        let unknown = try h.run("limelight", ["search", "tomato", "--sort", "colour"], allowFailure: true)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no indexed property 'colour'"))
    }

    @Test func queryLanguageFieldsFiltersAndStemming() throws {
        let h = try cookbook()
        #expect(try names(h, ["name:salsa"]) == ["Salsa"])
        #expect(try names(h, ["directions:salsa"]).isEmpty)
        #expect(try names(h, ["ingredients:onion"]) == ["Salsa"])
        #expect(Set(try names(h, ["tomato", "OR", "avocados"])) == ["Salsa", "Guacamole", "Gazpacho"])
        #expect(try names(h, ["tomato", "NOT", "cucumber"]) == ["Salsa"])
        #expect(try names(h, ["\"serve cold\""]) == ["Gazpacho"])
        #expect(Set(try names(h, ["name:g*"])) == ["Guacamole", "Gazpacho"])
        let uuid = try #require(try ExternalRecordsRegistryReader.roots(in: h).first.map { ($0 as NSString).lastPathComponent })
        #expect(try h.searchCount("store:\(uuid)") == 3)
        #expect(try h.searchCount("lime store:\(uuid)") == 2)
        #expect(try h.searchCount("store:00000000-0000-0000-0000-000000000000") == 0)
        #expect(try h.searchCount("entity:Ingredient") == 0)
        // "tomatoes" and "tomato" share a stem in English; with no stemming only the exact word matches.
        #expect(try h.searchCount("tomatoes") == 2)
        #expect(Int(try h.run("limelight", ["search", "--count", "--language", "none", "tomatoes"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) == 1)
        let klingon = try h.run("limelight", ["search", "--language", "klingon", "tomato"], allowFailure: true)
        #expect(klingon.status != 0)
        #expect(klingon.stderr.contains("klingon"))
    }

    @Test func aHitWhoseObjectWasDeletedBehindTheIndexsBackIsDroppedAndReported() throws {
        let h = try cookbook()
        let salsa = try #require(try jsonLines(try h.run("limelight", ["search", "--json", "cilantro"]).stdout).first?["uri"] as? String)
        let pk = try #require(salsa.split(separator: "/").last.map { $0.dropFirst() })
        // Straight through SQLite: the store changes, the marker and the index do not.
        try h.sqlite("DELETE FROM ZRECIPE WHERE Z_PK = \(pk);")
        let result = try h.run("limelight", ["search", "lime"])
        #expect(result.stdout.contains("Cookbook recipe: Guacamole"))
        #expect(!result.stdout.contains("Cookbook recipe: Salsa"))
        #expect(result.stderr.contains("dropped \(salsa)"))
        let json = try h.run("limelight", ["search", "--json", "lime"])
        #expect(try jsonLines(json.stdout).count == 1)
        #expect(json.stderr.contains("dropped \(salsa)"))
    }

    @Test func openPrintsTheRecordWithPrintOrWithoutAHandler() throws {
        let h = try cookbook()
        let marker = try #require(try h.markers().values.sorted().first)
        // No MIME type or application is registered in this scratch home.
        let opened = try h.run("limelight", ["open", marker])
        #expect(opened.stdout.contains("Recipe x-coredata://"))
        #expect(opened.stdout.contains("name: Salsa"))
        #expect(opened.stdout.contains("directions: Chopped tomatoes"))
        #expect(!opened.stderr.contains("opening with"))
        let printed = try h.run("limelight", ["open", "--print", marker])
        #expect(printed.stdout == opened.stdout)
        try h.run("cookbook", ["delete", "Salsa"])
        let gone = try h.run("limelight", ["open", marker], allowFailure: true)
        #expect(gone.status != 0)
    }

    @Test func indexShowsAProgressBarOnlyOnATerminal() throws {
        let h = try Harness()
        for number in 0..<30 { try h.run("cookbook", ["add", "Loaf \(number)", "--directions", "knead"]) }
        let plain = try h.run("limelight", ["index"])
        #expect(plain.stdout.contains("indexed 30"))
        #expect(!plain.stderr.contains("[#"))
        for number in 30..<40 { try h.run("cookbook", ["add", "Loaf \(number)", "--directions", "knead"]) }
        // script(1) gives the command a pseudo-terminal and copies what it writes.
        let transcript = h.home.appendingPathComponent("typescript")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", h.bin.appendingPathComponent("limelight").path + " index", transcript.path]
        process.environment = h.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = try String(contentsOf: transcript, encoding: .utf8)
        #expect(text.contains("[\(String(repeating: "#", count: 30))] 10/10"))
        #expect(text.contains("indexed 10, removed 0, unchanged 30"))
    }
}
