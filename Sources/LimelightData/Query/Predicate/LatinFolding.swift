import Foundation

/// Case and diacritic folding of Latin text by table: the same answers as `StringFolding`'s full
/// Unicode path (Foundation's folding, lower-casing and NFC, three passes that each build a
/// string), at the cost of one table look-up per character.
///
/// The table holds, for each flag combination, the full path's answer for every scalar below
/// U+0250 (ASCII, Latin-1, Latin Extended-A and -B). Folding such a scalar never depends on its
/// neighbours (no combining marks live in that range, and lower-casing is context-free there), so
/// the folded text is the folded scalars one after the other. Scalars whose own answer leaves the
/// range (`İ` lower-cases to `i` and a combining dot) and all other text take the full path;
/// `fold` then returns `nil`.
enum LatinFolding {
    /// Scalars below this have a table entry.
    static let limit: UInt32 = 0x250

    /// One flag combination's answers: the folded UTF-8 of scalar `s` is
    /// `bytes[offsets[s] ..< offsets[s + 1]]`; `usable[s]` is false when `s` needs the full path.
    struct Table: Sendable {
        let bytes: [UInt8]
        let offsets: [Int32]
        let usable: [Bool]
        /// Folded bytes per input byte at most, for sizing output buffers.
        let maximumGrowth: Int
    }

    /// Tables for the flags 1 (case), 2 (diacritics) and 3 (both), at index `flags - 1`; built on
    /// first use from the full path itself, so the two cannot disagree about any one scalar.
    static let tables: [Table] = (1...3).map { flags in
        var bytes: [UInt8] = [], offsets: [Int32] = [0], usable: [Bool] = []
        var growth = 1
        for value in 0..<limit {
            // Every value below U+0250 is a scalar (the surrogates start at U+D800).
            let scalar = Unicode.Scalar(value) ?? "\u{0}"
            let folded = StringFolding.foldFully(String(Character(scalar)), caseInsensitive: flags & 1 != 0,
                                                 diacriticInsensitive: flags & 2 != 0)
            let inRange = folded.unicodeScalars.allSatisfy { $0.value < limit }
            usable.append(inRange)
            if inRange {
                bytes += folded.utf8
                growth = max(growth, (folded.utf8.count + scalar.utf8.count - 1) / scalar.utf8.count)
            }
            offsets.append(Int32(bytes.count))
        }
        return Table(bytes: bytes, offsets: offsets, usable: usable, maximumGrowth: growth)
    }

    /// Folds the UTF-8 text `input` with `flags` (1 case, 2 diacritics, 3 both) and hands the
    /// folded UTF-8 to `body`; returns `nil` without calling it when some character needs the
    /// full path (or the bytes are not UTF-8).
    static func withFolded<Result>(_ input: UnsafeBufferPointer<UInt8>, flags: Int,
                                   _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard (1...3).contains(flags) else { return nil }
        let table = tables[flags - 1]
        let capacity = max(1, input.count * table.maximumGrowth)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { output -> Result? in
            guard let count = fold(input, table, into: output) else { return nil }
            return body(UnsafeBufferPointer(rebasing: output[..<count]))
        }
    }

    /// The folded form of `text`, or `nil` when it needs the full path.
    static func fold(_ text: String, flags: Int) -> String? {
        var text = text
        return text.withUTF8 { bytes in
            withFolded(bytes, flags: flags) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Writes the folded bytes and returns their count, or `nil` for text outside the table.
    private static func fold(_ input: UnsafeBufferPointer<UInt8>, _ table: Table,
                             into output: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var read = 0, written = 0
        return table.bytes.withUnsafeBufferPointer { bytes in
            table.offsets.withUnsafeBufferPointer { offsets in
                table.usable.withUnsafeBufferPointer { usable -> Int? in
                    while read < input.count {
                        let lead = input[read]
                        let scalar: Int
                        if lead < 0x80 {
                            scalar = Int(lead)
                            read += 1
                        } else if lead >= 0xC2, lead <= 0xC9, read + 1 < input.count, input[read + 1] & 0xC0 == 0x80 {
                            // Two-byte sequences from 0xC2 are never overlong; 0xC9 reaches U+027F,
                            // of which the table has the part below the limit.
                            scalar = Int(lead & 0x1F) << 6 | Int(input[read + 1] & 0x3F)
                            read += 2
                        } else {
                            return nil
                        }
                        guard scalar < Int(limit), usable[scalar] else { return nil }
                        let start = Int(offsets[scalar]), end = Int(offsets[scalar + 1])
                        for index in start..<end {
                            output[written] = bytes[index]
                            written += 1
                        }
                    }
                    return written
                }
            }
        }
    }
}
