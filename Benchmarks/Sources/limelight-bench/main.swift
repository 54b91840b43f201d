import Foundation

// `make bench` runs every group; LIMELIGHT_BENCH_ONLY=store,query,… runs some. Sizes follow the
// benchmark plan, scaled by LIMELIGHT_BENCH_SCALE (e.g. 0.05 for a quick look).
let workspace = try Workspace()
defer { workspace.remove() }
let only = Set((ProcessInfo.processInfo.environment["LIMELIGHT_BENCH_ONLY"] ?? "").split(separator: ",").map(String.init))
func wanted(_ group: String) -> Bool { only.isEmpty || only.contains(group) }

var measures: [Measure] = []
var notes: [String] = []
progress("Limelight benchmarks on \(ProcessInfo.processInfo.activeProcessorCount) cores, scale \(workspace.scale), \(workspace.repeats) runs each")
if let missing = Recoll.missing { notes.append("recoll skipped: \(missing)") }

if wanted("store") {
    let bench = StoreBench(workspace: workspace)
    progress("insert")
    measures.append(try bench.insert())
    progress("fetch")
    measures.append(try bench.fetch())
}
if wanted("query") {
    let bench = QueryBench(workspace: workspace)
    progress("query: populating \(bench.itemCount) items and a folder of \(bench.folderSize) notes")
    try bench.populate()
    progress("query: CONTAINS[cd]")
    measures.append(try bench.contains())
    progress("query: ANY tags.name")
    measures.append(try bench.anyTag())
    progress("query: batch faulting")
    measures.append(try bench.batchFaulting())
}
if wanted("markers") {
    progress("markers on vs off")
    measures.append(try StoreBench(workspace: workspace).markers())
}
if wanted("index") {
    measures.append(try IndexBench(workspace: workspace).bulk())
}
if wanted("search") || wanted("daemon") {
    let count = workspace.scaled(200_000, floor: 200)
    progress("search corpus: writing \(count) records as a store with markers, a text file and files")
    let corpus = try SearchCorpus.make(workspace, name: "large", count: count, files: Recoll.missing == nil)
    let index = corpus.folder.appendingPathComponent("index")
    let built = try corpus.limelightIndex(into: index)
    notes.append(String(format: "`limelight index` built the %d-document index for the search and daemon measures in %.1f s.", count, built))
    if wanted("search") {
        let xapianIndex = corpus.folder.appendingPathComponent("xapian")
        _ = try corpus.xapianIndex(into: xapianIndex)
        var recoll: (Recoll, Int)?
        if Recoll.missing == nil {
            progress("search corpus: recollindex over \(count) files")
            let peer = try Recoll(configURL: corpus.folder.appendingPathComponent("recoll"), topURL: corpus.filesURL)
            let seconds = try peer.index(expecting: count)
            notes.append(String(format: "recollindex built its %d-document index for the search measure in %.1f s.", count, seconds))
            recoll = (peer, try peer.documentCount())
        }
        progress("search: end to end")
        measures.append(try SearchBench(workspace: workspace, corpus: corpus, index: index, xapianIndex: xapianIndex,
                                        recoll: recoll, recollMissing: Recoll.missing).measure())
    }
    if wanted("daemon") {
        let bench = DaemonBench(workspace: workspace, corpus: corpus, index: index)
        progress("daemon: starting limelightd on \(count) documents")
        let daemon = try bench.startDaemon()
        progress("daemon: idle")
        measures.append(contentsOf: try bench.idle(daemon))
        measures.append(contentsOf: try bench.latency(daemon))
        daemon.stop()
    }
}

let report = Report(workspace: workspace, measures: measures, notes: notes)
report.print()
let written = try report.write(to: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("results"))
print("\nresults written to \(written.path)")
