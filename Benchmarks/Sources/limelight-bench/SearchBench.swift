import Foundation
import LimelightData
import LimelightSearch

/// `limelight search` end to end — process start, query, resolving every hit to its live object,
/// printing — against `quest` on the raw Xapian peer's index of the same text and `recollq`;
/// answered by the running limelightd, and by the command itself.
struct SearchBench {
    let workspace: Workspace
    let corpus: SearchCorpus
    let index: URL
    let xapianIndex: URL
    /// recoll's configuration with its index built, and how many documents it holds.
    let recoll: (Recoll, Int)?
    let recollMissing: String?

    /// A word of middling frequency: enough hits to fill a page of twenty.
    var word: String { workspace.corpus.words[400] }

    /// Each run searches four ways in turn: `limelight search` answered by the running
    /// limelightd, `limelight search --local` (the command searching in its own process, as
    /// without a daemon), `quest` and `recollq`.
    func measure() throws -> [Measure] {
        let runs = max(20, workspace.scaled(60))
        var ours: [String: [Double]] = [:], quest: [Double] = [], recollq: [Double] = []
        let questPath = Workspace.which("quest")
        var hits: [String: Int] = [:]
        var outputs: [String: String] = [:]
        // An application's own search (`context.search`) of the same index, in its process: the
        // context is emptied before each search, so every hit is read from the store again.
        let application = try corpus.context()
        var inApp: [Double] = []
        var appQuery = SpotlightQuery(word)
        appQuery.indexURL = index
        appQuery.fetchLimit = 20
        for _ in 0..<runs {
            application.performAndWait { application.reset() }
            let start = monotonicNanoseconds()
            let results = try application.search(appQuery)
            let names = application.performAndWait { results.hits.compactMap { $0.object.value(forKey: "name") as? String } }
            inApp.append(Double(monotonicNanoseconds() - start) / 1e6)
            hits["in-app"] = names.count
            for (label, extra) in [("served", [String]()), ("local", ["--local"])] {
                let search = try run(workspace.limelight, ["search"] + extra + ["--index", index.path, "--limit", "20", word], environment: corpus.environment)
                ours[label, default: []].append(search.seconds * 1000)
                hits[label] = search.output.components(separatedBy: "  uri:").count - 1
                outputs[label] = search.output
            }
            if let questPath {
                let outcome = try run(questPath, ["-d", xapianIndex.path, "-m", "20", "-f", "default,auto_synonyms", "-p", ":", "-p", ":XPNAME", "-p", ":XPTEXT", word])
                quest.append(outcome.seconds * 1000)
                hits["quest"] = outcome.output.components(separatedBy: "\n").filter { $0.contains("[") }.count
            }
            if let (recoll, _) = recoll, let recollqPath = Recoll.recollq {
                let outcome = try run(recollqPath, ["-c", recoll.configURL.path, "-n", "20", word], environment: recoll.environment)
                recollq.append(outcome.seconds * 1000)
                hits["recollq"] = outcome.output.split(separator: "\n").filter { $0.contains("[file://") }.count
            }
        }
        for (tool, count) in hits where count == 0 { throw BenchError("\(tool) found nothing for \(word)") }
        guard outputs["served"] == outputs["local"] else { throw BenchError("limelightd's answer differs from the command's own search for \(word)") }
        let sockets = (try? FileManager.default.contentsOfDirectory(atPath: workspace.runtime.appendingPathComponent("limelight").path)) ?? []
        guard sockets.contains(where: { $0.hasPrefix("search-") }) else { throw BenchError("limelightd has no search socket; the searches were not served") }
        let questSeries = questPath == nil ? Series.skipped("quest", "xapian-tools is not installed")
            : Series(label: "quest", samples: quest, statistic: .percentile(50))
        let recollSeries = recoll.map { Series(label: "recollq (\($0.1) docs)", samples: recollq, statistic: .percentile(50)) }
            ?? Series.skipped("recollq", recollMissing ?? "no index")
        return [
            Measure(name: "`limelight search` end to end on \(corpus.count) documents, limelightd running, p50 of \(runs)", unit: "ms",
                    ours: Series(label: "limelight search", samples: ours["served"] ?? [], statistic: .percentile(50)),
                    peers: [questSeries, recollSeries], goal: "≤ 10 ms") { ours, _ in ours <= 10 },
            Measure(name: "`limelight search --local` (no daemon asked) on \(corpus.count) documents, p50 of \(runs)", unit: "ms",
                    ours: Series(label: "limelight search --local", samples: ours["local"] ?? [], statistic: .percentile(50)),
                    peers: [questSeries, recollSeries], goal: "≤ 10 ms") { ours, _ in ours <= 10 },
            Measure(name: "`context.search` in an application (20 hits read as objects, no process start) on \(corpus.count) documents, p50 of \(runs)",
                    unit: "ms", ours: Series(label: "context.search", samples: inApp, statistic: .percentile(50)),
                    peers: [questSeries], goal: "none (quest's figure includes its process start)") { _, _ in nil },
        ]
    }
}
