import Foundation
import Testing
import LimelightData

/// The daemon's duties beyond the seed demo: hung importers, the watch-limit fallback, status,
/// when changes are applied at once and when gathered, signals and options.
@Suite(.serialized) struct DaemonDutiesTests {
    @Test func aHangingImporterIsKilledAfterItsTimeoutAndTheRestIndexed() throws {
        let h = try Harness()
        // Hangs on the second record (sleeping in a child of its own), answers the others.
        let script = h.home.appendingPathComponent("hangy-importer")
        try """
        #!/usr/bin/env bash
        while read -r marker; do
          case "$marker" in */2.recipe) sleep 600 ;; esac
          printf '{"marker":"%s","displayName":"hangy %s","text":"imported by hangy"}\\n' "$marker" "$(basename "$marker")"
        done
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let manifest = h.home.appendingPathComponent("data/limelight/importers/cookbook.importer")
        try "[Importer]\nName=Hangy\nExtensions=recipe\nExec=\(script.path)\nTimeout=1\n".write(to: manifest, atomically: true, encoding: .utf8)
        for name in ["One", "Two", "Three", "Four"] { try h.run("cookbook", ["add", name]) }
        let daemon = try h.startDaemon()
        try h.waitUntil("the records it answered are indexed", timeout: 30) { try h.searchCount("hangy") == 3 }
        try h.waitUntil("status reports the hung record") { try h.run("limelight", ["status"]).stdout.contains("2.recipe") }
        let status = try h.run("limelight", ["status"]).stdout
        #expect(status.contains("hung for 1 s"))
        #expect(status.contains("failures: 1"))
        // Still serving: a record saved now goes through the restarted importer.
        try h.run("cookbook", ["add", "Five"])
        try h.waitUntil("a later record is indexed") { try h.searchCount("hangy") == 4 }
        #expect(kill(daemon.processIdentifier, 0) == 0)
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }

    @Test func atTheWatchLimitARootIsScannedPeriodically() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        // One watch: the roots registry gets it, the records folder does not.
        let daemon = try h.startDaemon(extra: ["--max-watches", "1", "--rescan-interval", "0.3"])
        try h.waitUntil("the startup reconcile indexed Salsa") { try h.searchCount("tomato") == 1 }
        #expect(h.daemonLogText.contains("inotify watch limit is reached"))
        let json = try h.run("limelight", ["status", "--json"]).stdout
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((status["scannedRoots"] as? [String])?.count == 1)
        #expect(try h.run("limelight", ["status"]).stdout.contains("inotify watch limit"))
        // Without a watch, saves, edits and deletes are found by the rescans.
        try h.run("cookbook", ["add", "Pico", "--directions", "Fresh tomato."])
        try h.waitUntil("a new recipe is found by a rescan") { try h.searchCount("tomato") == 2 }
        try h.run("cookbook", ["delete", "Salsa"])
        try h.waitUntil("a deleted recipe is removed by a rescan") { try h.searchCount("tomato") == 1 }
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
    }

    @Test func statusShowsTheDaemonRootsDocumentsCommitQueueAndFailures() throws {
        let h = try Harness()
        let stopped = try h.run("limelight", ["status"], allowFailure: true)
        #expect(stopped.status == 3)
        #expect(stopped.stdout.contains("limelightd: not running"))
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mashed avocado."])
        let daemon = try h.startDaemon()
        try h.waitUntil("both are indexed") { try h.searchCount("entity:Recipe") == 2 }
        // The indexing programs allocate with jemalloc, linked in rather than preloaded.
        // (A /proc file says it is empty, so it is read to its end rather than by its size.)
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/\(daemon.processIdentifier)/maps")).readToEnd() ?? Data()
        #expect(String(decoding: maps, as: UTF8.self).contains("/libjemalloc.so"))
        let root = try #require(try ExternalRecordsRegistryReader.roots(in: h).first)
        try h.waitUntil("status counts both documents") { try h.run("limelight", ["status"]).stdout.contains("documents: 2") }
        let text = try h.run("limelight", ["status"]).stdout
        #expect(text.contains("limelightd: running (pid \(daemon.processIdentifier)"))
        #expect(text.contains("index: \(h.home.path)/data/limelight/index"))
        #expect(text.contains("last commit: 20"))
        #expect(text.contains("queue: 0"))
        #expect(text.contains("roots: 1"))
        #expect(text.contains(root))
        #expect(text.contains("failures: 0"))
        let json = try h.run("limelight", ["status", "--json"]).stdout
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(status["running"] as? Bool == true)
        #expect(status["pid"] as? Int == Int(daemon.processIdentifier))
        #expect(status["documents"] as? Int == 2)
        #expect(status["lastCommit"] is String)
        #expect(status["queued"] as? Int == 0)
        #expect((status["roots"] as? [String: String])?.values.contains(root) == true)
        #expect((status["failures"] as? [String: String])?.isEmpty == true)
        h.stop(daemon)
        // A dead daemon's status file does not make it look alive.
        let after = try h.run("limelight", ["status", "--json"], allowFailure: true)
        #expect(after.status == 3)
        #expect(after.stdout.contains("\"running\":false"))
    }

    @Test func sigintFinishesAndExitsCleanlyAndOptionsAreHonoured() throws {
        let h = try Harness()
        let custom = h.home.appendingPathComponent("elsewhere/index")
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let daemon = try h.startDaemon(extra: ["--index", custom.path, "--verbose", "--language", "english"])
        try h.run("cookbook", ["add", "Pico", "--directions", "Fresh tomato."])
        try h.waitUntil("both are in the custom index") {
            Int(try h.run("limelight", ["search", "--count", "--index", custom.path, "tomato"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)) == 2
        }
        #expect(!FileManager.default.fileExists(atPath: h.home.appendingPathComponent("data/limelight/index").path))
        // --verbose logs each batch.
        try h.waitUntil("the batch is logged") { h.daemonLogText.contains(": indexed 1, removed 0, failed 0") }
        h.stop(daemon, signal: SIGINT)
        #expect(daemon.terminationStatus == 0)
        #expect(h.daemonLogText.contains("signal 2"))
        // The lock is released: a one-shot index can write now.
        let after = try h.run("limelight", ["index", "--index", custom.path])
        #expect(after.stdout.contains("unchanged 2"))
    }

    @Test func aLoneChangeIsAppliedAtOnceAndChangesArrivingDuringABatchWaitForTheWindow() throws {
        let h = try Harness()
        let context = try h.openCookbook()
        var saved = 0
        func add(_ count: Int, _ name: String, _ directions: String) throws {
            for number in 0..<count {
                let recipe = try context.insertNewObject(forEntityName: "Recipe")
                recipe.setValue("\(name) \(number)", forKey: "name")
                recipe.setValue(directions, forKey: "directions")
            }
            try context.save()
            try context.persistentStoreCoordinator?.flushExternalRecords()
            saved += count
        }
        func queued() throws -> Int {
            let json = try h.run("limelight", ["status", "--json"]).stdout
            return (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["queued"] as? Int ?? 0
        }
        // The records folder exists before the daemon starts, so every later save reaches it as
        // an inotify event.
        try add(1, "Pico", "Fresh onion.")
        // An hour's window: whatever is indexed before SIGTERM did not wait for it.
        let daemon = try h.startDaemon(extra: ["--coalescing-window", "3600"])
        try h.waitUntil("the startup reconcile indexed Pico") { try h.searchCount("onion") == 1 }
        try add(1, "Salsa", "Chopped tomato.")
        try h.waitUntil("a lone change is indexed without waiting for the window") { try h.searchCount("tomato") == 1 }
        // A save of many objects: its markers are written one after another, so some arrive while
        // the batch of the first ones is applied, and from then on changes wait for the window.
        // Each round either leaves changes waiting or is indexed whole; rarely the watcher reads
        // a whole round at once, so there are a few rounds.
        var held = false
        for round in 0..<10 where !held {
            try add(100, "Dish \(round)", "stir gently")
            try h.waitUntil("round \(round) is indexed or waits") { try queued() > 0 || h.searchCount("entity:Recipe") == saved }
            held = try queued() > 0
        }
        #expect(held, "no changes ever waited for the window")
        #expect(try h.searchCount("entity:Recipe") < saved)
        // SIGTERM applies the gathered batch before the daemon exits.
        h.stop(daemon)
        #expect(daemon.terminationStatus == 0)
        #expect(try h.searchCount("entity:Recipe") == saved)
        #expect(try h.searchCount("gently") == saved - 2)
    }

    @Test func badOptionsAreRefused() throws {
        let h = try Harness()
        let language = try h.run("limelightd", ["--language", "klingon"], allowFailure: true)
        #expect(language.status != 0)
        #expect(language.stderr.contains("klingon"))
        let interval = try h.run("limelightd", ["--rescan-interval", "0"], allowFailure: true)
        #expect(interval.status != 0)
        #expect(interval.stderr.contains("--rescan-interval"))
        let window = try h.run("limelightd", ["--coalescing-window=-1"], allowFailure: true)
        #expect(window.status != 0)
        #expect(window.stderr.contains("--coalescing-window"))
    }
}
