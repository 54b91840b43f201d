import Foundation

/// One measured figure: the median of several runs and their spread, beside a peer's.
struct Measure {
    var name: String
    var unit: String
    var ours: [Double]
    var peerName: String
    var peer: [Double]
    var goal: String
    /// Whether the goal holds for the medians.
    var goalMet: (Double, Double) -> Bool

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var ratio: Double { Self.median(ours) / Self.median(peer) }

    func row() -> String {
        let spread = { (values: [Double]) in String(format: "%.3f–%.3f", values.min() ?? .nan, values.max() ?? .nan) }
        let met = goalMet(Self.median(ours), Self.median(peer)) ? "yes" : "**no**"
        return "| \(name) | \(String(format: "%.3f", Self.median(ours))) \(unit) (\(spread(ours))) | \(peerName): \(String(format: "%.3f", Self.median(peer))) \(unit) (\(spread(peer))) | \(String(format: "%.2f×", ratio)) | \(goal) | \(met) |"
    }

    var json: [String: Any] {
        ["name": name, "unit": unit, "ours": ours, "peer": peerName, "peerValues": peer, "ratio": ratio, "goal": goal,
         "goalMet": goalMet(Self.median(ours), Self.median(peer))]
    }
}

/// Wall-clock seconds of `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}
