import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Internet date-times (`2026-11-23T19:09:00Z`), as `ISO8601DateFormatter` writes and reads them
/// with its default options, without it.
///
/// Why: on Linux each `ISO8601DateFormatter` builds an ICU formatter, about ten million
/// instructions, and the programs made one per date shown, per record indexed and per commit;
/// a search printing one date spent a third of its time there. The format is fixed, so the
/// calendar arithmetic of the C library is all it takes.
package enum ISO8601Timestamp {
    /// 1582-10-15T00:00:00Z, where the Gregorian calendar begins. Before it the formatter (ICU)
    /// counts Julian days, the C library Gregorian ones: those rare dates go to the formatter.
    private static let gregorianStart: TimeInterval = -12_219_292_800

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'` in UTC; the fraction of a second is dropped after rounding to the
    /// millisecond, as the formatter does.
    package static func string(from date: Date) -> String {
        guard date.timeIntervalSince1970 >= gregorianStart else { return ISO8601DateFormatter().string(from: date) }
        // As the formatter does: the instant rounded to the millisecond first, then whole
        // seconds down (so 0.9996 s past a second shows the next one, 0.9994 s this one).
        let millis = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000).rounded()
        // An infinite date, or one too far off for `time_t` (a store or marker file may hold
        // one), would trap converting; the formatter shows it as it shows any out of range.
        guard millis.isFinite, abs(millis) < 9e18 else { return ISO8601DateFormatter().string(from: date) }
        var seconds = time_t(floor(millis / 1000))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return ISO8601DateFormatter().string(from: date) }
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return ISO8601DateFormatter().string(from: date) }
        return pad(year, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "Z"
    }

    /// Reads `yyyy-MM-ddTHH:mm:ss` followed by `Z` or a `±HH:MM` offset; `nil` for anything else.
    package static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 25 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116, bytes[13] == 58, bytes[16] == 58,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var offset = 0
        if bytes.count == 20 {
            guard bytes[19] == 90 || bytes[19] == 122 else { return nil }
        } else {
            guard bytes[19] == 43 || bytes[19] == 45, bytes[22] == 58,
                  let hours = number(20, 2), let minutes = number(23, 2), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[19] == 45 ? -1 : 1)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalises out-of-range fields (31 February): such a date is not a date.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        let result = TimeInterval(seconds - offset)
        return result >= gregorianStart ? Date(timeIntervalSince1970: result) : ISO8601DateFormatter().date(from: text)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
