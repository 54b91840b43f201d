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

let report = Report(workspace: workspace, measures: measures, notes: notes)
report.print()
let written = try report.write(to: URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("results"))
print("\nresults written to \(written.path)")
