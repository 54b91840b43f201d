import Foundation
import LimelightData
import Testing

/// One-shot indexing, live search, and the daemon catching up after the kernel dropped events.
@Suite(.serialized) struct IndexingModesTests {
    @Test func oneShotIndexWithoutTheDaemon() throws {
        let h = try Harness()
        let context = try h.openCookbook()
        for number in 0..<200 {
            let recipe = try context.insertNewObject(forEntityName: "Recipe")
            recipe.setValue("Bread \(number)", forKey: "name")
            recipe.setValue("knead the dough", forKey: "directions")
        }
        try context.save()
        try context.persistentStoreCoordinator?.flushExternalRecords()
        let first = try h.run("limelight", ["index"])
        #expect(first.stdout.contains("indexed 200"))
        #expect(try h.searchCount("dough") == 200)
        let second = try h.run("limelight", ["index"])
        #expect(second.stdout.contains("indexed 0, removed 0, unchanged 200"))
        let sorted = try h.run("limelight", ["search", "dough", "--sort", "name:desc", "--limit", "1", "--json"])
        #expect(sorted.stdout.contains("Bread 99"))
    }

    @Test func liveSearchPrintsChangesToTheResults() throws {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomato."])
        let daemon = try h.startDaemon()
        try h.waitUntil("Salsa is indexed") { try h.searchCount("tomato") == 1 }
        let output = h.home.appendingPathComponent("live.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let live = Process()
        live.executableURL = h.bin.appendingPathComponent("limelight")
        live.arguments = ["search", "--live", "tomato"]
        live.environment = h.environment
        live.standardOutput = try FileHandle(forWritingTo: output)
        try live.run()
        defer { kill(live.processIdentifier, SIGKILL); live.waitUntilExit() }
        let text = { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
        try h.waitUntil("the live search shows the first result") { text().contains("+ Cookbook recipe: Salsa") }
        try h.run("cookbook", ["add", "Pico", "--directions", "Fresh tomato."])
        try h.waitUntil("a new match appears") { text().contains("+ Cookbook recipe: Pico") }
        try h.run("cookbook", ["edit", "Pico", "--directions", "Fresh tomato and chile."])
        try h.waitUntil("a changed match is shown again") { text().contains("~ Cookbook recipe: Pico") }
        #expect(text().contains("directions: Fresh tomato and chile."))
        try h.run("cookbook", ["delete", "Salsa"])
        try h.waitUntil("a removed match is reported") { text().contains("- Cookbook recipe: Salsa") }
        h.stop(daemon)
    }

    /// How many events the kernel queues for an inotify instance before it drops them.
    static let queueLimit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384

    /// Floods the daemon's inotify queue past the kernel's limit while the daemon is stopped: the
    /// kernel drops events, and the daemon must find what they said by reconciling.
    // Each flood event is an open and a close, a few microseconds; past this limit flooding would
    // take too long for a test.
    @Test(.enabled(if: Self.queueLimit <= 4_000_000))
    func anOverflowedQueueIsReconciled() throws {
        let h = try Harness()
        let context = try h.openCookbook()
        let recipe = try context.insertNewObject(forEntityName: "Recipe")
        recipe.setValue("Seed", forKey: "name")
        try context.save()
        try context.persistentStoreCoordinator?.flushExternalRecords()
        let daemon = try h.startDaemon()
        try h.waitUntil("the seed is indexed") { try h.searchCount("seed") == 1 }
        kill(daemon.processIdentifier, SIGSTOP)
        for number in 0..<300 {
            let flood = try context.insertNewObject(forEntityName: "Recipe")
            flood.setValue("Flood \(number)", forKey: "name")
            flood.setValue("water everywhere", forKey: "directions")
            if number % 10 == 9 { try context.save(); try context.persistentStoreCoordinator?.flushExternalRecords() }
        }
        // Opening a marker for writing and closing it is an event the daemon watches for; two
        // markers in turn, since the kernel folds an event into an identical one just before it.
        let markers = Array(try h.markers().values.prefix(2))
        try #require(markers.count == 2)
        for round in 0..<(Self.queueLimit + 1_000) {
            let descriptor = open(markers[round % 2], O_WRONLY)
            try #require(descriptor >= 0, "cannot open \(markers[round % 2]) for writing")
            close(descriptor)
        }
        kill(daemon.processIdentifier, SIGCONT)
        try h.waitUntil("the reconcile finds everything", timeout: 60) { try h.searchCount("water") == 300 }
        try h.waitUntil("the status counts the overflow") {
            let status = try h.run("limelight", ["status"]).stdout
            return status.contains("queue overflows: ") && !status.contains("queue overflows: 0")
        }
        h.stop(daemon)
    }
}
