import Foundation

/// The text every indexer and store in the benchmarks gets: the same words for the same record
/// number, from a fixed pseudo-random sequence, so Limelight and its peers see equal work.
struct Corpus {
    /// Made-up words from syllables, with a sprinkle of accented ones (`CONTAINS[cd] 'é'` must find
    /// something, and diacritic folding must have work to do).
    let words: [String]

    init(vocabulary: Int = 6000) {
        let onsets = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "br", "ch", "pl", "st", "tr"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ou", "é", "è", "â"]
        let codas = ["", "", "n", "r", "s", "l", "t"]
        var random = SplitMix64(seed: 7)
        var seen: Set<String> = []
        var words: [String] = []
        while words.count < vocabulary {
            let syllables = 2 + Int(random.next() % 2)
            var word = ""
            for _ in 0..<syllables {
                word += onsets[Int(random.next() % UInt64(onsets.count))]
                // Accented vowels are rarer: about one word in six carries one.
                let vowel = random.next() % 10 < 9 ? vowels[Int(random.next() % 7)] : vowels[7 + Int(random.next() % 3)]
                word += vowel + codas[Int(random.next() % UInt64(codas.count))]
            }
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
    }

    /// A short title of three words.
    func name(_ record: Int) -> String { phrase(record, salt: 0x9E37, count: 3) }

    /// A body of twenty-four words.
    func text(_ record: Int) -> String { phrase(record, salt: 0x7F4A, count: 24) }

    private func phrase(_ record: Int, salt: UInt64, count: Int) -> String {
        var random = SplitMix64(seed: UInt64(record) &* 0x1000193 &+ salt)
        // Zipf-like: small indices are common words, large ones rare, as in real text.
        return (0..<count).map { _ in
            let uniform = Double(random.next() >> 11) / Double(1 << 53)
            return words[min(words.count - 1, Int(pow(uniform, 2.2) * Double(words.count)))]
        }.joined(separator: " ")
    }
}

/// A small, fast, reproducible random sequence (SplitMix64).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
