import Foundation
import Testing

/// `limelight search` answered by the running limelightd, which has the index and the stores open:
/// the same output as searching in the command's own process, current values, and the command
/// searching by itself again once the daemon is gone.
@Suite(.serialized) struct ServedSearchTests {
    /// Three recipes, indexed by a running daemon.
    private func cookbookWithDaemon() throws -> (Harness, Process) {
        let h = try Harness()
        try h.run("cookbook", ["add", "Salsa", "--directions", "Chopped tomatoes, onion, cilantro, lime.", "--servings", "4",
                               "--ingredient", "2 tomatoes", "--ingredient", "1 onion"])
        try h.run("cookbook", ["add", "Guacamole", "--directions", "Mash ripe avocados with lime.", "--servings", "6"])
        try h.run("cookbook", ["add", "Gazpacho", "--directions", "Blend tomato, cucumber and bread; serve cold.", "--servings", "2"])
        let daemon = try h.startDaemon()
        try h.waitUntil("the daemon indexed the recipes") { try h.searchCount("lime") == 2 && h.searchCount("tomato") == 2 }
        return (h, daemon)
    }

    private func socketFiles(_ h: Harness) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: h.runtime.appendingPathComponent("limelight").path))?
            .filter { $0.hasSuffix(".socket") } ?? []
    }

    @Test func theDaemonAnswersAsTheCommandItselfWould() throws {
        let (h, _) = try cookbookWithDaemon()
        #expect(socketFiles(h).count == 1)
        let status = try h.run("limelight", ["status"]).stdout
        #expect(status.contains("searches: answered at \(h.runtime.path)/limelight/search-"))
        let cases: [[String]] = [
            ["cilantro"], ["--json", "tomato"], ["--count", "lime"], ["--sort", "servings", "--limit", "1", "tomato"],
            ["--json", "--offset", "1", "entity:Recipe"], ["--language", "none", "tomatoes"], ["durian"],
            ["tomato", "--sort", "colour"], ["name:(unclosed"],
        ]
        for arguments in cases {
            let served = try h.run("limelight", ["search"] + arguments, allowFailure: true)
            let local = try h.run("limelight", ["search", "--local"] + arguments, allowFailure: true)
            #expect(served.status == local.status, "\(arguments)")
            #expect(served.stdout == local.stdout, "\(arguments)")
            #expect(served.stderr == local.stderr, "\(arguments)")
            #expect(!(served.stdout + served.stderr).isEmpty, "\(arguments)")
        }
        let refused = try h.run("limelight", ["search", "tomato", "--sort", "colour"], allowFailure: true)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no indexed property 'colour'"))
    }

    /// The daemon resolves hits with its own registry of stores: a command run with another
    /// state folder (where no store is registered) still gets them from the daemon, while
    /// searching by itself it cannot resolve them.
    @Test func aServedSearchResolvesHitsThroughTheDaemon() throws {
        let (h, _) = try cookbookWithDaemon()
        let stranger = h.home.appendingPathComponent("other-state")
        let index = h.home.appendingPathComponent("data/limelight/index").path
        let served = try h.run("limelight", ["search", "--index", index, "cilantro"], extraEnvironment: ["XDG_STATE_HOME": stranger.path])
        #expect(served.stdout.hasPrefix("Cookbook recipe: Salsa  [Recipe, "))
        let local = try h.run("limelight", ["search", "--local", "--index", index, "cilantro"], extraEnvironment: ["XDG_STATE_HOME": stranger.path])
        #expect(local.stdout.isEmpty)
        #expect(local.stderr.contains("dropped x-coredata://"))
    }

    @Test func servedHitsShowTheStoreAsItIsNowAndTheCommandSearchesItselfOnceTheDaemonIsGone() throws {
        let (h, daemon) = try cookbookWithDaemon()
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.contains("    servings: 4\n"))
        try h.run("cookbook", ["edit", "Salsa", "--servings", "9"])
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.contains("    servings: 9\n"))
        try h.sqlite("UPDATE ZRECIPE SET ZSERVINGS = 11 WHERE ZNAME = 'Salsa'")
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.contains("    servings: 11\n"))
        h.stop(daemon)
        #expect(socketFiles(h).isEmpty)
        let afterwards = try h.run("limelight", ["search", "cilantro"])
        #expect(afterwards.stdout.contains("    servings: 11\n"))
    }

    /// A store file replaced by another (restored from a copy) is opened afresh: the daemon
    /// does not go on reading the file it opened first.
    @Test func aReplacedStoreFileIsReadAfresh() throws {
        let (h, _) = try cookbookWithDaemon()
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.contains("    servings: 4\n"))
        try h.sqlite("PRAGMA wal_checkpoint(TRUNCATE)")
        let copy = h.storeURL.deletingLastPathComponent().appendingPathComponent("Restored.sqlite")
        try FileManager.default.copyItem(at: h.storeURL, to: copy)
        try h.sqlite("UPDATE ZRECIPE SET ZSERVINGS = 13 WHERE ZNAME = 'Salsa'", at: copy)
        #expect(rename(copy.path, h.storeURL.path) == 0)
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.contains("    servings: 13\n"))
        #expect(try h.run("limelight", ["search", "--local", "cilantro"]).stdout.contains("    servings: 13\n"))
    }

    /// A deleted store is closed once the daemon goes idle: its disk space is not held by a
    /// connection the searches kept open.
    @Test func aDeletedStoreIsClosedWhenTheDaemonGoesIdle() throws {
        let (h, daemon) = try cookbookWithDaemon()
        func openStoreFiles() -> [String] {
            let folder = "/proc/\(daemon.processIdentifier)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) }
                .filter { $0.hasPrefix(h.storeURL.path) }
        }
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.hasPrefix("Cookbook recipe: Salsa"))
        #expect(!openStoreFiles().isEmpty)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: h.storeURL.path + suffix) }
        // A change to index makes a batch, after which the daemon goes idle.
        let marker = try #require(try h.markers().values.first)
        try FileManager.default.removeItem(atPath: marker)
        try h.waitUntil("the daemon closed the deleted store") { openStoreFiles().isEmpty }
    }

    /// Indexing runs in the background (nice 10) and the thread answering searches at the
    /// priority the daemon was started with, so that a search is not slowed by the machine's load.
    @Test func searchesAreAnsweredAtTheDaemonsPriorityAndIndexingRunsInTheBackground() throws {
        let (h, daemon) = try cookbookWithDaemon()
        try h.run("cookbook", ["add", "Pico de gallo", "--directions", "Diced tomato and jalapeño."])
        try h.waitUntil("the new recipe is indexed") { try h.searchCount("jalapeño") == 1 }
        errno = 0
        let started = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let tasks = "/proc/\(daemon.processIdentifier)/task"
        func readNiceness() throws -> [String: [Int]] {
            var niceness: [String: [Int]] = [:]
            for task in try FileManager.default.contentsOfDirectory(atPath: tasks) {
                // A thread may end between the listing and the reading: it is left out.
                guard let comm = try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8),
                      let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                // The fields after the name in parentheses; the nice value is the 19th field in all.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 16, let nice = Int(fields[16]) else { continue }
                niceness[task == "\(daemon.processIdentifier)" ? "main" : comm.trimmingCharacters(in: .whitespacesAndNewlines), default: []].append(nice)
            }
            return niceness
        }
        // The query thread names itself when it first runs; on a loaded machine that can come late.
        try h.waitUntil("the query thread has its name") { try readNiceness()["limelight-query"] != nil }
        let niceness = try readNiceness()
        #expect(niceness["limelight-query"] == [Int(started)])
        #expect(niceness["main"] == [max(10, Int(started))])
    }

    /// A daemon killed outright leaves its socket behind: the command then searches by itself,
    /// and the next daemon takes the socket over.
    @Test func aSocketLeftByAKilledDaemonIsHarmless() throws {
        let (h, daemon) = try cookbookWithDaemon()
        h.stop(daemon, signal: SIGKILL)
        #expect(socketFiles(h).count == 1)
        #expect(try h.run("limelight", ["search", "cilantro"]).stdout.hasPrefix("Cookbook recipe: Salsa"))
        try h.startDaemon()
        #expect(socketFiles(h).count == 1)
        let served = try h.run("limelight", ["search", "--json", "lime"])
        let local = try h.run("limelight", ["search", "--json", "--local", "lime"])
        #expect(served.stdout == local.stdout)
        #expect(served.stdout.split(separator: "\n").count == 2)
    }
}
