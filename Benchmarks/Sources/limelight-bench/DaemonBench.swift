import Foundation
import LimelightData

/// limelightd on the large corpus: how little it does when idle, and how soon a save is searchable;
/// recoll's real-time monitor beside it on equal files.
struct DaemonBench {
    let workspace: Workspace
    let corpus: SearchCorpus
    let index: URL

    /// Starts the daemon on the corpus' index and waits until its startup reconcile is done and it
    /// has gone quiet.
    func startDaemon() throws -> Background {
        let daemon = try Background(workspace.limelightd, ["--index", index.path], environment: corpus.environment,
                                    log: corpus.folder.appendingPathComponent("limelightd.log"))
        guard daemon.waitForLog("watching", timeout: 300) else { throw BenchError("limelightd did not start: \(daemon.log.suffix(600))") }
        var last = ProcFS.cpuTicks(daemon.pid)
        for _ in 0..<120 {
            usleep(500_000)
            let now = ProcFS.cpuTicks(daemon.pid)
            if now == last { break }
            last = now
        }
        return daemon
    }

    /// Wake-ups (context switches of all threads) per second and resident memory, over five windows.
    func idle(_ daemon: Background) throws -> [Measure] {
        let window = max(0.5, min(2, 2 * workspace.scale * 10))
        var wakeups: [Double] = [], resident: [Double] = []
        for _ in 0..<5 {
            let before = ProcFS.contextSwitches(daemon.pid)
            usleep(useconds_t(window * 1e6))
            wakeups.append(Double(ProcFS.contextSwitches(daemon.pid) - before) / window)
            if let megabytes = ProcFS.residentMegabytes(daemon.pid) { resident.append(megabytes) }
        }
        guard daemon.isRunning else { throw BenchError("limelightd exited: \(daemon.log.suffix(600))") }
        return [
            Measure(name: "daemon idle wake-ups at \(corpus.count) documents (\(Int(window * 5)) s)", unit: "/s",
                    ours: Series(label: "limelightd", samples: wakeups), peers: [], goal: "0 wake-ups/s") { ours, _ in ours == 0 },
            Measure(name: "daemon idle resident memory at \(corpus.count) documents", unit: "MiB",
                    ours: Series(label: "limelightd", samples: resident), peers: [], goal: "≤ 64 MB") { ours, _ in ours * 1.048576 <= 64 },
        ]
    }

    /// Saves one object at a time into the corpus' store and waits until the daemon has it in the
    /// index; milliseconds from the start of `save()` to the document's unique term being there.
    func limelightLatencies(count: Int) throws -> [Double] {
        let watcher = try TermWatcher(program: workspace.xapianPeer, database: index)
        defer { watcher.stop() }
        let context = try corpus.context()
        var latencies: [Double] = []
        for probe in 0..<count {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("probe \(probe)", forKey: "name")
            note.setValue(workspace.corpus.text(probe), forKey: "text")
            let start = monotonicNanoseconds()
            try context.save()
            let term = "Q" + note.objectID.uriString
            watcher.watch(term)
            guard let seen = try watcher.next(timeout: 30), seen.term == term else {
                throw BenchError("save \(probe) was not searchable within 30 s")
            }
            latencies.append(Double(seen.nanoseconds - start) / 1e6)
            if probe % 100 == 99 { context.reset() }
        }
        return latencies
    }

    /// recoll's monitor (`recollindex -m`, default settings) on a folder of its own; files are written
    /// at a steady pace — one at a time would take hours, since the monitor gathers changes for
    /// `monixinterval` (30 s by default) — and each file's latency runs from its write to its word
    /// being in recoll's index.
    func recollLatencies(count: Int) throws -> [Double] {
        guard let recollindex = Recoll.recollindex else { throw BenchError("recollindex missing") }
        let live = try workspace.folder("recoll-live")
        let recoll = try Recoll(configURL: live.appendingPathComponent("config"), topURLs: [live.appendingPathComponent("files")])
        try FileManager.default.createDirectory(at: recoll.topURL, withIntermediateDirectories: true)
        try Data("seed\n".utf8).write(to: recoll.topURL.appendingPathComponent("seed.txt"))
        let monitor = try Background(recollindex, ["-c", recoll.configURL.path, "-m", "-D", "-x", "-w", "0"],
                                     environment: recoll.environment, log: live.appendingPathComponent("monitor.log"))
        defer { monitor.stop() }
        let watcher = try TermWatcher(program: workspace.xapianPeer, database: recoll.databaseURL)
        defer { watcher.stop() }
        // Ready once the initial pass has indexed the seed file.
        watcher.watch("seed")
        guard try watcher.next(timeout: 120) != nil else { throw BenchError("recoll monitor did not start: \(monitor.log.suffix(600))") }
        var written: [String: Int64] = [:]
        for probe in 0..<count {
            let word = "liveprobe\(probe)x"
            let url = recoll.topURL.appendingPathComponent("probe-\(probe).txt")
            try Data("\(word)\n\(workspace.corpus.text(probe))\n".utf8).write(to: url)
            written[word] = monotonicNanoseconds()
            watcher.watch(word)
            usleep(60_000)
        }
        var latencies: [Double] = []
        while latencies.count < count, let seen = try watcher.next(timeout: 90) {
            if let start = written[seen.term] { latencies.append(Double(seen.nanoseconds - start) / 1e6) }
        }
        guard latencies.count == count else { throw BenchError("recoll's monitor indexed \(latencies.count) of \(count) files within 90 s") }
        return latencies
    }

    func latency(_ daemon: Background) throws -> [Measure] {
        let count = workspace.scaled(1000, floor: 50)
        progress("save → searchable: \(count) saves with limelightd running")
        let ours = try limelightLatencies(count: count)
        var recoll: [Double]?
        var reason = Recoll.missing
        if reason == nil {
            daemon.stop()  // the monitor gets the machine to itself, as limelightd had it
            progress("save → searchable: \(count) files under recoll's monitor")
            do { recoll = try recollLatencies(count: count) } catch { reason = "\(error)" }
        }
        return [50.0, 99.0].map { p in
            let peer = recoll.map { Series(label: "recoll monitor", samples: $0, statistic: .percentile(p)) }
                ?? Series.skipped("recoll monitor", reason ?? "no figure")
            let limit = p == 50 ? 50.0 : 500.0
            return Measure(name: "save → searchable, p\(Int(p)) of \(count) saves", unit: "ms",
                           ours: Series(label: "limelightd", samples: ours, statistic: .percentile(p)), peers: [peer],
                           goal: "≤ \(Int(limit)) ms") { ours, _ in ours <= limit }
        }
    }
}
