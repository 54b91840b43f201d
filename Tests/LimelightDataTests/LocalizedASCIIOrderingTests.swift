import Foundation
import Testing
@testable import LimelightData

/// The fast path of a `.localized` sort gives Foundation's order exactly, pair by pair, over many
/// generated strings, and a store's sort in SQL (which uses it) agrees with Foundation's.
@Suite struct LocalizedASCIIOrderingTests {
    /// A small deterministic generator, so a failure names strings that can be made again.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Pieces that meet where the order is easy to get wrong: digit runs with and without leading
    /// zeros, up to and beyond the longest run the fast path takes; case; punctuation on both sides
    /// of the letters; spaces, tabs, control characters, CR LF (one character in Swift); non-ASCII.
    static let pieces = ["0", "00", "007", "7", "9", "10", "123", "0123", "1.2", "1.10", "-1", "+1",
                         "999999999999999999", "000000000000000001", "9223372036854775807", "18446744073709551615",
                         "99999999999999999999", "100000000000000000000",
                         "a", "A", "b", "B", "z", "Z", "Trip ", "trip", "x", "X1",
                         "_", "[", "\\", "]", "^", "`", "{", "|", "}", "~", "!", "@", "?", ".", ",", "/",
                         " ", "  ", "\t", "\r", "\n", "\r\n", "\0", "\u{1}", "\u{7F}", "é", "É", "ß", "٣"]

    static func string(_ generator: inout SplitMix) -> String {
        var text = ""
        for _ in 0..<generator.below(7) {
            // Now and then a single random ASCII character rather than a piece.
            if generator.below(4) == 0 {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(generator.below(128))))
            } else {
                text += pieces[generator.below(pieces.count)]
            }
        }
        return text
    }

    @Test func theFastPathGivesFoundationsOrderForEveryPair() {
        var generator = SplitMix(state: 20_261_128)
        var answered = 0, mismatches: [String] = []
        for round in 0..<100_000 {
            let x = Self.string(&generator)
            // Every fifth pair differs only in case and an ending, where most ties are.
            let y = round % 5 == 0 ? x.uppercased() + Self.pieces[generator.below(Self.pieces.count)] : Self.string(&generator)
            guard let fast = LocalizedASCIIOrdering.compare(x, y) else { continue }
            answered += 1
            let foundation = x.compare(y, options: [.caseInsensitive, .diacriticInsensitive, .numeric])
            if fast != foundation, mismatches.count < 10 { mismatches.append("\(x.debugDescription) vs \(y.debugDescription)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // Most generated pairs are ASCII with short digit runs: the fast path must have answered them.
        #expect(answered > 40_000)
    }

    @Test func itStepsAsideWhereOnlyFoundationCanSay() {
        #expect(LocalizedASCIIOrdering.compare("Zoë", "Zoe") == nil)
        #expect(LocalizedASCIIOrdering.compare("99999999999999999999", "1") == nil)
        #expect(LocalizedASCIIOrdering.compare("a", "b") == .orderedAscending)
        #expect(LocalizedASCIIOrdering.compare("Trip 007", "trip 7") == .orderedSame)
        #expect(ValueOrdering.localizedCompare("Zoë 2", "zoe 10") == .orderedAscending)
    }

    @Test func aSortInTheStoreAgreesWithFoundation() throws {
        var generator = SplitMix(state: 7)
        let titles = (0..<2_000).map { _ in Self.string(&generator) }
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: LocalizedSortOrderTests.model(), at: folder.file("titles.sqlite"))
        _ = try context.execute(BatchInsertRequest(entityName: "Chapter", objects: titles.map { ["outline": $0] }))
        let sorted = try context.fetch(LocalizedSortOrderTests.request()).compactMap { $0.value(forKey: "outline") as? String }
        #expect(sorted.count == titles.count)
        // Ties ("007" and "7") may come in either order; no neighbour may be out of Foundation's order.
        let outOfOrder = zip(sorted, sorted.dropFirst()).filter {
            $0.compare($1, options: [.caseInsensitive, .diacriticInsensitive, .numeric]) == .orderedDescending
        }
        #expect(outOfOrder.isEmpty, "\(outOfOrder.prefix(5))")
    }
}
