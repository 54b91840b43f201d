import Foundation

/// The order of a `.localized` sort (`localizedStandardCompare:`: case- and diacritic-insensitive,
/// runs of digits by their value) worked out straight from the bytes of two ASCII strings, without
/// Foundation: the common case of a localized sort, about as fast as a plain one.
///
/// It answers only where its order is Foundation's, which a test checks pair by pair over many
/// generated strings (digit runs, leading zeros, case, punctuation, spaces, control characters):
/// both strings ASCII, and no run of digits longer than 18, within what Foundation reads a number
/// into without overflowing (longer runs compare by wrapped values there, which only Foundation
/// can say). Otherwise it returns nil and the caller asks Foundation.
///
/// What Foundation does for such strings, and so what is done here: digit runs compare by value
/// (leading zeros do not count, "007" and "7" are the same), letters compare as lowercase
/// (so "_" sorts before "a" and "A"), everything else by its code, and a string that is a prefix
/// of the other sorts first.
enum LocalizedASCIIOrdering {
    static let longestDigitRun = 18

    static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> ComparisonResult? {
        guard isEligible(x), isEligible(y) else { return nil }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            let a = x[i], b = y[j]
            if isDigit(a) && isDigit(b) {
                while i < x.count && x[i] == 0x30 { i += 1 }
                while j < y.count && y[j] == 0x30 { j += 1 }
                var xEnd = i, yEnd = j
                while xEnd < x.count && isDigit(x[xEnd]) { xEnd += 1 }
                while yEnd < y.count && isDigit(y[yEnd]) { yEnd += 1 }
                // Without leading zeros, the longer run is the larger number.
                if xEnd - i != yEnd - j { return xEnd - i < yEnd - j ? .orderedAscending : .orderedDescending }
                while i < xEnd {
                    if x[i] != y[j] { return x[i] < y[j] ? .orderedAscending : .orderedDescending }
                    i += 1
                    j += 1
                }
                continue
            }
            let p = lowercased(a), q = lowercased(b)
            if p != q { return p < q ? .orderedAscending : .orderedDescending }
            i += 1
            j += 1
        }
        if i == x.count && j == y.count { return .orderedSame }
        return i == x.count ? .orderedAscending : .orderedDescending
    }

    /// `compare` over two strings' UTF-8, where Swift holds it contiguously (native strings do).
    static func compare(_ x: String, _ y: String) -> ComparisonResult? {
        let answer = x.utf8.withContiguousStorageIfAvailable { left in
            y.utf8.withContiguousStorageIfAvailable { right in compare(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
        // Nil from either level (storage not contiguous, or not for the fast path) is Foundation's to answer.
        let answered: ComparisonResult?? = answer ?? nil
        return answered ?? nil
    }

    private static func isEligible(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var run = 0
        for byte in bytes {
            if byte >= 0x80 { return false }
            if isDigit(byte) {
                run += 1
                if run > longestDigitRun { return false }
            } else {
                run = 0
            }
        }
        return true
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
    @inline(__always) private static func lowercased(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }
}
