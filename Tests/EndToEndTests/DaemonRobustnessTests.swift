import Foundation
import LimelightData
import Testing

/// What the daemon must survive: floods of saves, being killed mid-batch, importers that crash.
@Suite(.serialized) struct DaemonRobustnessTests {
    @Test func aThousandRapidSavesAreEachIndexedOnce() throws {
        let h = try Harness()
        let context = try h.openCookbook()
        let daemon = try h.startDaemon()
        for number in 0..<1000 {
            let recipe = try context.insertNewObject(forEntityName: "Recipe")
            recipe.setValue("Dish \(number)", forKey: "name")
            recipe.setValue("stir number\(number) gently", forKey: "directions")
            try context.save()
            try context.persistentStoreCoordinator?.flushExternalRecords()
        }
        try h.waitUntil("all thousand are indexed", timeout: 60) { try h.searchCount("entity:Recipe") == 1000 }
        #expect(try h.searchCount("gently") == 1000)
        #expect(try h.searchCount("number737") == 1)
        h.stop(daemon)
    }

    @Test func killedMidBatchTheRestartCatchesUp() throws {
        let h = try Harness()
        let context = try h.openCookbook()
        let daemon = try h.startDaemon()
        for number in 0..<600 {
            let recipe = try context.insertNewObject(forEntityName: "Recipe")
            recipe.setValue("Soup \(number)", forKey: "name")
            if number % 100 == 99 { try context.save(); try context.persistentStoreCoordinator?.flushExternalRecords() }
        }
        h.stop(daemon, signal: SIGKILL)
        // Changes made while no daemon runs are found by the startup reconcile.
        let doomed = try context.fetch(FetchRequest<ManagedObject>(entityName: "Recipe")).prefix(50)
        for recipe in doomed { context.delete(recipe) }
        try context.save()
        try context.persistentStoreCoordinator?.flushExternalRecords()
        let restarted = try h.startDaemon()
        try h.waitUntil("the index equals the markers", timeout: 60) { try h.searchCount("entity:Recipe") == 550 }
        h.stop(restarted)
        #expect(restarted.terminationStatus == 0)
    }

    @Test func aCrashingImporterDoesNotStopTheRest() throws {
        let h = try Harness()
        // An importer that dies on every third record and answers the others.
        let script = h.home.appendingPathComponent("crashy-importer")
        try """
        #!/usr/bin/env bash
        while read -r marker; do
          case "$marker" in
            */3.recipe|*/6.recipe) exit 7 ;;
          esac
          name=$(basename "$marker" .recipe)
          printf '{"marker":"%s","displayName":"crashy %s","text":"imported by crashy"}\\n' "$marker" "$name"
        done
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let manifest = h.home.appendingPathComponent("data/limelight/importers/cookbook.importer")
        try "[Importer]\nName=Crashy\nExtensions=recipe\nExec=\(script.path)\n".write(to: manifest, atomically: true, encoding: .utf8)
        let context = try h.openCookbook()
        for number in 0..<8 {
            let recipe = try context.insertNewObject(forEntityName: "Recipe")
            recipe.setValue("Dish \(number)", forKey: "name")
        }
        try context.save()
        try context.persistentStoreCoordinator?.flushExternalRecords()
        let daemon = try h.startDaemon()
        do {
            try h.waitUntil("the good records are indexed") { try h.searchCount("crashy") == 6 }
        } catch {
            Issue.record("\(error); status: \((try? h.run("limelight", ["status"]).stdout) ?? "none"); found \(try h.searchCount("crashy"))")
            throw error
        }
        // The status file is rewritten right after the commit that search already sees.
        try h.waitUntil("status lists both failures") {
            let text = try h.run("limelight", ["status"]).stdout
            return text.contains("3.recipe") && text.contains("6.recipe")
        }
        let status = try h.run("limelight", ["status"]).stdout
        #expect(status.contains("3.recipe"))
        #expect(status.contains("6.recipe"))
        #expect(status.contains("exited with status 7"))
        #expect(kill(daemon.processIdentifier, 0) == 0)
        h.stop(daemon)
    }
}
