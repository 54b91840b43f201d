import Foundation
import LimelightSearch
import Testing

/// Importer programs: manifests, and real child processes speaking JSON lines.
struct ImporterProcessTests {
    @Test func manifestsParseAndBadOnesSayWhatIsWrong() throws {
        let manifest = try ImporterManifest.parse("""
            # comment
            [Importer]
            Name=Cookbook
            Extensions=recipe; recipes
            Exec=cookbook-importer --verbose
            Timeout=2.5
            """, path: "/x/cookbook.importer")
        #expect(manifest.name == "Cookbook")
        #expect(manifest.extensions == ["recipe", "recipes"])
        #expect(manifest.executable == "cookbook-importer")
        #expect(manifest.arguments == ["--verbose"])
        #expect(manifest.timeout == 2.5)
        #expect(try ImporterManifest.parse("Extensions=a\nExec=b", path: "/x/b.importer").timeout == ImporterManifest.defaultTimeout)
        for (text, complaint) in [("Extensions=a", "no Exec="), ("Exec=b", "no Extensions="), ("Exec=b\nExtensions=a\nTimeout=soon", "Timeout=soon"),
                                  ("Exec=b\nExtensions=a\njunk", "not Key=Value")] {
            let error = try #require(throws: ExternalImporterError.self) { try ImporterManifest.parse(text, path: "/x/bad.importer") }
            #expect(error.description.contains(complaint))
            #expect(error.description.contains("/x/bad.importer"))
        }
    }

    @Test func discoveryFindsManifestsAndReportsBadOnes() throws {
        let scratch = try Scratch()
        let first = scratch.url.appendingPathComponent("first"), second = scratch.url.appendingPathComponent("second")
        for folder in [first, second] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try "Name=Mine\nExtensions=recipe\nExec=mine".write(to: first.appendingPathComponent("mine.importer"), atomically: true, encoding: .utf8)
        try "Name=Theirs\nExtensions=recipe;note\nExec=theirs".write(to: second.appendingPathComponent("theirs.importer"), atomically: true, encoding: .utf8)
        try "Name=Broken".write(to: second.appendingPathComponent("broken.importer"), atomically: true, encoding: .utf8)
        let found = ImporterManifest.discover(in: [first, second])
        #expect(found.byExtension["recipe"]?.name == "Mine")
        #expect(found.byExtension["note"]?.name == "Theirs")
        #expect(found.problems.count == 1)
    }

    @Test func aLongLivedImporterAnswersLineByLine() throws {
        let scratch = try Scratch()
        // Counts its records: one process serves them all.
        let importer = try program(in: scratch, """
            n=0
            while read -r marker; do
              n=$((n+1))
              printf '{"marker":"%s","displayName":"record %s","fields":{"name":"n%s"},"values":{"rank":%s}}\\n' "$marker" "$n" "$n" "$n"
            done
            """)
        let first = try importer.importRecord(markerPath: "/r/Recipe/1.recipe")
        let second = try importer.importRecord(markerPath: "/r/Recipe/2.recipe")
        #expect(first.displayName == "record 1")
        #expect(second.displayName == "record 2")
        #expect(second.marker == "/r/Recipe/2.recipe")
        #expect(second.fields == ["name": "n2"])
        #expect(second.values == ["rank": .number(2)])
    }

    /// An importer that does `failure` on record 2: the failure is reported naming `reasons`,
    /// and the restarted importer answers record 3.
    func expectRecovery(from failure: String, timeout: TimeInterval = 10, reasons: [String]) throws {
        let scratch = try Scratch()
        let importer = try program(in: scratch, """
            while read -r marker; do
              case "$marker" in */2.recipe) \(failure) ;; esac
              printf '{"marker":"%s","displayName":"ok"}\\n' "$marker"
            done
            """, timeout: timeout)
        #expect(try importer.importRecord(markerPath: "/r/Recipe/1.recipe").displayName == "ok")
        let error = try #require(throws: ExternalImporterError.self) { try importer.importRecord(markerPath: "/r/Recipe/2.recipe") }
        for reason in reasons { #expect(error.reason.contains(reason)) }
        #expect(try importer.importRecord(markerPath: "/r/Recipe/3.recipe").displayName == "ok")
    }

    @Test func aCrashedImporterIsReportedAndRestarted() throws {
        try expectRecovery(from: "exit 9", reasons: ["exited with status 9", "2.recipe"])
    }

    @Test func aHungImporterIsKilledAfterItsTimeoutAndRestarted() throws {
        try expectRecovery(from: "sleep 600", timeout: 0.5, reasons: ["hung for 0.5 s", "killed and restarted"])
    }

    @Test func anImporterOutOfStepIsRestarted() throws {
        let scratch = try Scratch()
        // Answers the first record twice: the second copy would be taken for the next record.
        let importer = try program(in: scratch, """
            while read -r marker; do
              printf '{"marker":"%s"}\n' "$marker"
              case "$marker" in */1.recipe) printf '{"marker":"%s"}\n' "$marker" ;; esac
            done
            """)
        #expect(try importer.importRecord(markerPath: "/r/Recipe/1.recipe").marker == "/r/Recipe/1.recipe")
        let stale = try #require(throws: ExternalImporterError.self) { try importer.importRecord(markerPath: "/r/Recipe/2.recipe") }
        #expect(stale.reason.contains("answered for /r/Recipe/1.recipe when asked for /r/Recipe/2.recipe"))
        #expect(try importer.importRecord(markerPath: "/r/Recipe/3.recipe").marker == "/r/Recipe/3.recipe")
    }

    @Test func nonsenseAndMissingProgramsAreErrors() throws {
        let scratch = try Scratch()
        let chatty = try program(in: scratch, "while read -r marker; do echo 'hello there'; done")
        let nonsense = try #require(throws: ExternalImporterError.self) { try chatty.importRecord(markerPath: "/r/Recipe/1.recipe") }
        #expect(nonsense.reason.contains("not an index record"))
        let missing = ImporterProcess(manifest: try ImporterManifest.parse("Extensions=x\nExec=/nonexistent/importer", path: "/x/m.importer"))
        let error = try #require(throws: ExternalImporterError.self) { try missing.importRecord(markerPath: "/r/Recipe/1.recipe") }
        #expect(error.reason.contains("not found"))
    }

    /// An importer program: a bash script with `body`, registered with `timeout`.
    private func program(in scratch: Scratch, _ body: String, timeout: Double = 10) throws -> ImporterProcess {
        let script = scratch.url.appendingPathComponent("importer-\(UUID().uuidString)")
        try "#!/usr/bin/env bash\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let manifest = try ImporterManifest.parse("Extensions=recipe\nExec=\(script.path)\nTimeout=\(timeout)", path: script.path + ".importer")
        return ImporterProcess(manifest: manifest)
    }
}
