import Foundation
// Sorting generated titles with the localized order: Foundation's comparison alone against the
// ASCII fast path with Foundation for the rest, in a release build. From the repository root:
//   swiftc -O Benchmarks/LocalizedSort/main.swift Sources/LimelightData/Query/Fetch/LocalizedASCIIOrdering.swift -o localized-sort && ./localized-sort 20000
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
let rows = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000
let words = ["Trip", "trip", "Invoice", "invoice", "Note", "photo", "Photo", "IMG", "Draft", "draft", "Zoë", "Émile", "Ål"]
var generator = SplitMix(state: 42)
var titles: [String] = []
for _ in 0..<rows {
    let word = words[Int(generator.next() % UInt64(words.count))]
    let number = generator.next() % 2_000
    let padded = generator.next() % 3 == 0 ? String(format: "%04llu", number) : String(number)
    let separator = [" ", "-", "_", ". ", ""][Int(generator.next() % 5)]
    titles.append("\(word)\(separator)\(padded)" + (generator.next() % 4 == 0 ? " v\(generator.next() % 12)" : ""))
}
func time(_ body: () -> [String]) -> (Double, [String]) {
    var best = Double.infinity
    var result: [String] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        result = body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return (best, result)
}
let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive, .numeric]
let (plain, _) = time { titles.sorted() }
let (slow, a) = time { titles.sorted { $0.compare($1, options: options) == .orderedAscending } }
let (fast, b) = time { titles.sorted { (LocalizedASCIIOrdering.compare($0, $1) ?? $0.compare($1, options: options)) == .orderedAscending } }
let asciiOnly = titles.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
let (slowASCII, _) = time { asciiOnly.sorted { $0.compare($1, options: options) == .orderedAscending } }
let (fastASCII, _) = time { asciiOnly.sorted { (LocalizedASCIIOrdering.compare($0, $1) ?? $0.compare($1, options: options)) == .orderedAscending } }
let agree = zip(a, b).allSatisfy { $0.compare($1, options: options) == .orderedSame }
print(String(format: "%d titles: plain sort %.1f ms; localized, Foundation only %.1f ms, with the fast path %.1f ms (%.1f× faster)", rows, plain, slow, fast, slow / fast))
print(String(format: "%d ASCII titles only: Foundation %.1f ms, fast path %.1f ms (%.1f×); orders agree: %@", asciiOnly.count, slowASCII, fastASCII, slowASCII / fastASCII, agree ? "yes" : "NO"))
