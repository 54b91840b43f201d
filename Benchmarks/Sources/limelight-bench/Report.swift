import Foundation

/// The run's results as one markdown table on stdout and as JSON under `results/`.
struct Report {
    let workspace: Workspace
    let measures: [Measure]
    let notes: [String]

    var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    func print() {
        Swift.print("")
        Swift.print("Limelight benchmarks: \(cores) cores, scale \(workspace.scale), \(workspace.repeats) runs per measure; "
                    + "figures are medians (n runs, min–max) or percentiles (n events, interquartile range).")
        Swift.print("")
        Swift.print("| measure | Limelight | peers | ratio | goal | met |")
        Swift.print("|---|---|---|---|---|---|")
        for measure in measures { Swift.print(measure.row()) }
        for note in notes { Swift.print("\n- \(note)") }
    }

    func write(to folder: URL) throws -> URL {
        let formatter = ISO8601DateFormatter()
        let results: [String: Any] = ["date": formatter.string(from: Date()), "cores": cores, "scale": workspace.scale,
                                      "repeats": workspace.repeats, "measures": measures.map(\.json), "notes": notes]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
        let latest = folder.appendingPathComponent("latest.json")
        try data.write(to: latest)
        let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "")
        try data.write(to: folder.appendingPathComponent("run-\(stamp).json"))
        return latest
    }
}
