import Foundation

/// Bulk indexing of the same records: `limelight index` over marker files (importing each record
/// from its store), the raw Xapian peer over a text file, and recollindex over one file per record.
/// Throughput in documents per second, process start included for all three.
struct IndexBench {
    let workspace: Workspace

    func bulk() throws -> Measure {
        let count = workspace.scaled(100_000, floor: 100)
        progress("bulk index: writing \(count) records as a store with markers, a text file and \(count) files")
        let corpus = try SearchCorpus.make(workspace, name: "bulk", count: count, files: Recoll.missing == nil)
        var ours: [Double] = [], raw: [Double] = [], recoll: [Double] = []
        let recollPeer = Recoll.missing == nil
            ? try Recoll(configURL: corpus.folder.appendingPathComponent("recoll"), topURL: corpus.filesURL) : nil
        // recoll is an order of magnitude slower: fewer runs keep the whole under budget.
        let recollRuns = max(1, min(3, workspace.repeats))
        for run in 0..<workspace.repeats {
            progress("bulk index: run \(run + 1) of \(workspace.repeats)")
            let index = corpus.folder.appendingPathComponent("index-\(run)")
            ours.append(Double(count) / (try corpus.limelightIndex(into: index)))
            try? FileManager.default.removeItem(at: index)
            let rawIndex = corpus.folder.appendingPathComponent("xapian-\(run)")
            raw.append(Double(count) / (try corpus.xapianIndex(into: rawIndex)))
            try? FileManager.default.removeItem(at: rawIndex)
            if let recollPeer, run < recollRuns { recoll.append(Double(count) / (try recollPeer.index(expecting: count))) }
        }
        let recollSeries = Recoll.missing.map { Series.skipped("recollindex", $0) } ?? Series(label: "recollindex", samples: recoll)
        return Measure(name: "bulk index of \(count) records", unit: "docs/s", ours: Series(label: "limelight index", samples: ours),
                       peers: [Series(label: "raw Xapian", samples: raw), recollSeries],
                       goal: "≥ 0.8× raw Xapian's throughput; ≥ 3× recoll's") { ours, peers in
            guard let raw = peers["raw Xapian"] else { return nil }
            guard let recoll = peers["recollindex"] else { return ours >= 0.8 * raw ? nil : false }
            return ours >= 0.8 * raw && ours >= 3 * recoll
        }
    }
}
