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
    measures += try bench.insert()
    progress("fetch")
    measures += try bench.fetch()
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
    measures += try StoreBench(workspace: workspace).markers()
}
// The search corpus grows in two halves: the first is also the bulk-index measure's corpus.
var firstHalf: SearchCorpus?
if wanted("index") || wanted("search") || wanted("daemon") {
    let half = workspace.scaled(100_000, floor: 100)
    progress("corpus: writing \(half) records as a store with markers, a text file and \(half) files")
    firstHalf = try SearchCorpus.make(workspace, name: "corpus", count: half, files: Recoll.missing == nil)
}
if wanted("index"), let firstHalf {
    measures.append(try IndexBench(workspace: workspace).bulk(firstHalf))
}
if wanted("search") || wanted("daemon"), let firstHalf {
    progress("corpus: adding the second half")
    let corpus = try firstHalf.grown(by: firstHalf.count, files: Recoll.missing == nil)
    let count = corpus.count
    progress("corpus: limelight index over \(count) records")
    let index = corpus.folder.appendingPathComponent("index")
    let built = try corpus.limelightIndex(into: index)
    notes.append(String(format: "`limelight index` built the %d-document index for the search and daemon measures in %.1f s.", count, built))
    // One daemon for both groups: the search measure asks it, and its idle figures then include
    // what answering those searches keeps open.
    let daemonBench = DaemonBench(workspace: workspace, corpus: corpus, index: index)
    progress("daemon: starting limelightd on \(count) documents")
    let daemon = try daemonBench.startDaemon()
    if wanted("search") {
        let xapianIndex = corpus.folder.appendingPathComponent("xapian")
        progress("corpus: raw Xapian peer over \(count) records")
        _ = try corpus.xapianIndex(into: xapianIndex)
        var recoll: (Recoll, Int)?
        if Recoll.missing == nil {
            progress("corpus: recollindex over \(count) files")
            let peer = try Recoll(configURL: corpus.folder.appendingPathComponent("recoll"), topURLs: corpus.fileFolders)
            let seconds = try peer.index(expecting: count)
            notes.append(String(format: "recollindex built its %d-document index for the search measure in %.1f s.", count, seconds))
            recoll = (peer, try peer.documentCount())
        }
        progress("search: end to end, answered by limelightd and by the command itself")
        measures.append(contentsOf: try SearchBench(workspace: workspace, corpus: corpus, index: index, xapianIndex: xapianIndex,
                                        recoll: recoll, recollMissing: Recoll.missing).measure())
    }
    if wanted("daemon") {
        progress("daemon: idle")
        measures.append(contentsOf: try daemonBench.idle(daemon))
        measures.append(contentsOf: try daemonBench.latency(daemon))
    }
    daemon.stop()
}

let report = Report(workspace: workspace, measures: measures, notes: notes)
report.print()
let written = try report.write(to: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("results"))
print("\nresults written to \(written.path)")
fflush(nil)  // the table is out before the slow clean-up
progress("removing the scratch folder")
