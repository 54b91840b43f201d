import CSQLiteBench
import Foundation

/// Samples of one figure: repeated runs (summed up by their median) or many single events
/// (summed up by a percentile, e.g. the p99 of 1,000 save-to-searchable latencies).
struct Series {
    enum Statistic {
        case median
        case percentile(Double)
    }

    var label: String
    var samples: [Double]
    var statistic: Statistic = .median
    /// Why there are no samples (a peer that could not be installed or run); never a made-up figure.
    var skipped: String?

    static func skipped(_ label: String, _ reason: String) -> Series { Series(label: label, samples: [], skipped: reason) }

    var value: Double? {
        guard !samples.isEmpty else { return nil }
        switch statistic {
        case .median: return Self.percentile(samples, 50)
        case .percentile(let p): return Self.percentile(samples, p)
        }
    }

    /// The spread: min–max of repeated runs; the interquartile range of many events.
    var spread: (Double, Double)? {
        guard !samples.isEmpty else { return nil }
        switch statistic {
        case .median: return (samples.min() ?? .nan, samples.max() ?? .nan)
        case .percentile: return (Self.percentile(samples, 25), Self.percentile(samples, 75))
        }
    }

    /// Linear interpolation between closest ranks.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard let first = sorted.first else { return .nan }
        guard sorted.count > 1 else { return first }
        let rank = p / 100 * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down)), high = min(sorted.count - 1, low + 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }
}

/// One row of the table: Limelight's figure beside its peers', the goal, and whether it holds.
struct Measure {
    var name: String
    var unit: String
    var ours: Series
    var peers: [Series]
    var goal: String
    /// Decides the goal from Limelight's figure and the peers' (by label); nil when it cannot be told.
    var verdict: (_ ours: Double, _ peers: [String: Double]) -> Bool?

    var peerValues: [String: Double] {
        Dictionary(uniqueKeysWithValues: peers.compactMap { peer in peer.value.map { (peer.label, $0) } })
    }

    var isMet: Bool? { ours.value.flatMap { verdict($0, peerValues) } }

    static func format(_ value: Double) -> String {
        switch abs(value) {
        case 0: return "0"
        case ..<0.01: return String(format: "%.4f", value)
        case ..<10: return String(format: "%.3f", value)
        case ..<1000: return String(format: "%.1f", value)
        default: return String(format: "%.0f", value)
        }
    }

    func describe(_ series: Series) -> String {
        guard let value = series.value, let spread = series.spread else { return "skipped: \(series.skipped ?? "no figure")" }
        let range = "\(Self.format(spread.0))–\(Self.format(spread.1))"
        let shape: String
        switch series.statistic {
        case .median: shape = "n=\(series.samples.count), \(range)"
        case .percentile: shape = "n=\(series.samples.count), IQR \(range)"
        }
        return "\(Self.format(value)) \(unit) (\(shape))"
    }

    func row() -> String {
        let peerText = peers.isEmpty ? "—" : peers.map { "\($0.label): \(describe($0))" }.joined(separator: "<br>")
        let ratios = peers.compactMap { peer -> String? in
            guard let ours = ours.value, let theirs = peer.value, theirs != 0 else { return nil }
            let ratio = ours / theirs
            return String(format: ratio < 0.1 ? "%.3f× %@" : "%.2f× %@", ratio, peer.label)
        }
        let met: String
        switch isMet {
        case true?: met = "yes"
        case false?: met = "**no**"
        case nil: met = "n/a"
        }
        return "| \(name) | \(describe(ours)) | \(peerText) | \(ratios.isEmpty ? "—" : ratios.joined(separator: "<br>")) | \(goal) | \(met) |"
    }

    var json: [String: Any] {
        func encode(_ series: Series) -> [String: Any] {
            var entry: [String: Any] = ["label": series.label, "samples": series.samples]
            if let value = series.value { entry["value"] = value }
            if let spread = series.spread { entry["spread"] = [spread.0, spread.1] }
            if let skipped = series.skipped { entry["skipped"] = skipped }
            return entry
        }
        var entry: [String: Any] = ["name": name, "unit": unit, "ours": encode(ours), "peers": peers.map(encode), "goal": goal]
        if let isMet { entry["goalMet"] = isMet }
        return entry
    }
}

/// Wall-clock seconds of `body`.
///
/// With `LIMELIGHT_BENCH_RUSAGE` set, each call also prints to stderr what the process spent in
/// it beside the wall time (user and system CPU, minor page faults, context switches, blocks
/// written), named by the measuring function and line: what tells work done in the program from
/// work done for it by the kernel (zeroing the pages a heap grows into) or time spent waiting
/// (a flush to disk), which an instruction count does not see.
func seconds(_ body: () throws -> Void, caller: String = #function, line: Int = #line) rethrows -> Double {
    let before = ResourceUsage.reportsUsage ? ResourceUsage.now() : nil
    let start = monotonicNanoseconds()
    try body()
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    if let before { ResourceUsage.now().report(since: before, wall: elapsed, caller: "\(caller):\(line)") }
    return elapsed
}

/// The process's `getrusage` figures at one moment.
struct ResourceUsage {
    static let reportsUsage = ProcessInfo.processInfo.environment["LIMELIGHT_BENCH_RUSAGE"] != nil

    var user: Double
    var system: Double
    var minorFaults: Int
    var voluntarySwitches: Int
    var involuntarySwitches: Int
    var blocksWritten: Int

    static func now() -> ResourceUsage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime), minorFaults: usage.ru_minflt,
                             voluntarySwitches: usage.ru_nvcsw, involuntarySwitches: usage.ru_nivcsw, blocksWritten: usage.ru_oublock)
    }

    func report(since before: ResourceUsage, wall: Double, caller: String) {
        let line = String(format: "  rusage %@: wall %.4f s, user %.4f s, sys %.4f s, %d minor faults, %d/%d switches (voluntary/involuntary), %d blocks written\n",
                          caller, wall, user - before.user, system - before.system, minorFaults - before.minorFaults,
                          voluntarySwitches - before.voluntarySwitches, involuntarySwitches - before.involuntarySwitches,
                          blocksWritten - before.blocksWritten)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Prints the heap block an object takes (the allocator's usable size, which with its 8-byte
    /// header is what each object costs in fresh pages), once per kind of object.
    static func reportBlockSize(of object: AnyObject, label: String) {
        guard reportsUsage else { return }
        let size = malloc_usable_size(Unmanaged.passUnretained(object).toOpaque())
        FileHandle.standardError.write(Data("  heap block of \(label): \(size) bytes usable\n".utf8))
    }
}

/// CLOCK_MONOTONIC, the clock the Xapian peer stamps its sightings with.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
