import Foundation

/// Bulk indexing of the same records: `limelight index` over marker files (importing each record
/// from its store), the raw Xapian peer over a text file, and recollindex over one file per record.
/// Throughput in documents per second, process start included for all three.
struct IndexBench {
    let workspace: Workspace

    /// `corpus` is the first half of the search corpus: made once, it serves both.
    func bulk(_ corpus: SearchCorpus) throws -> Measure {
        let count = corpus.count
        var ours: [Double] = [], raw: [Double] = [], recoll: [Double] = []
        let recollPeer = Recoll.missing == nil
            ? try Recoll(configURL: corpus.folder.appendingPathComponent("recoll"), topURLs: corpus.fileFolders) : nil
        // Three runs each, for a true median: a full-scale run of the three indexers takes about
        // a minute and a half, and the whole benchmark has to fit in about twenty.
        let runs = min(3, workspace.repeats)
        for run in 0..<runs {
            progress("bulk index: run \(run + 1) of \(runs)")
            let index = corpus.folder.appendingPathComponent("index-\(run)")
            ours.append(Double(count) / (try corpus.limelightIndex(into: index)))
            try? FileManager.default.removeItem(at: index)
            let rawIndex = corpus.folder.appendingPathComponent("xapian-\(run)")
            raw.append(Double(count) / (try corpus.xapianIndex(into: rawIndex)))
            try? FileManager.default.removeItem(at: rawIndex)
            if let recollPeer { recoll.append(Double(count) / (try recollPeer.index(expecting: count))) }
        }
        if let recollPeer { try? FileManager.default.removeItem(at: recollPeer.configURL) }
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
