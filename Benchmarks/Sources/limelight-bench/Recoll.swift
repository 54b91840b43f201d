import Foundation

/// The recoll peer: `recollindex`, `recollq` and the real-time monitor `recollindex -m`, each run
/// with a configuration folder of its own that names one top folder. Settings are recoll's
/// defaults except that the spelling dictionary is not built (an extra recoll does at the end of an
/// indexing pass that Limelight does not offer, so it would only slow recoll down).
struct Recoll {
    let configURL: URL
    let topURLs: [URL]
    var topURL: URL { topURLs[0] }

    static let recollindex = Workspace.which("recollindex")
    static let recollq = Workspace.which("recollq")

    /// Why recoll cannot take part, or nil when it can.
    static var missing: String? {
        recollindex == nil || recollq == nil ? "recoll is not installed (`apt-get install recollcmd`, run `make bench` as root)" : nil
    }

    var databaseURL: URL { configURL.appendingPathComponent("xapiandb") }

    init(configURL: URL, topURLs: [URL]) throws {
        self.configURL = configURL
        self.topURLs = topURLs
        try FileManager.default.createDirectory(at: configURL, withIntermediateDirectories: true)
        let settings = """
            topdirs = \(topURLs.map(\.path).joined(separator: " "))
            noaspell = 1
            loglevel = 1
            """
        try Data((settings + "\n").utf8).write(to: configURL.appendingPathComponent("recoll.conf"))
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["RECOLL_CONFDIR"] = configURL.path
        return env
    }

    /// A full indexing pass from an empty index; returns its wall time.
    func index(expecting count: Int) throws -> Double {
        guard let recollindex = Self.recollindex else { throw BenchError("recollindex missing") }
        try? FileManager.default.removeItem(at: databaseURL)
        let outcome = try run(recollindex, ["-c", configURL.path, "-z"], environment: environment)
        let found = try documentCount()
        guard found >= count else { throw BenchError("recollindex indexed \(found) of \(count) files: \(outcome.error.suffix(400))") }
        return outcome.seconds
    }

    /// Documents in the index, as `recollq` reports them for a query every file matches.
    func documentCount() throws -> Int {
        guard let recollq = Self.recollq else { throw BenchError("recollq missing") }
        let outcome = try run(recollq, ["-c", configURL.path, "-S", "mtime", "-n", "1", "ext:txt"], environment: environment, check: false)
        // "N results" or "N results (printing  1 max):"
        for line in outcome.output.split(separator: "\n") where line.contains(" results") {
            if let number = Int(line.split(separator: " ").first ?? "") { return number }
        }
        return 0
    }
}
