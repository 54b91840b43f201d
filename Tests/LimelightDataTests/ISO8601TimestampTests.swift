import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// The hand-written internet date-time writes and reads what `ISO8601DateFormatter` does with its
/// default options.
@Suite struct ISO8601TimestampTests {
    @Test func writesWhatTheFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        // Seeded, so a run that fails can be run again.
        var random = SeededGenerator(seed: 2026)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: -0.5),
                     Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSinceReferenceDate: 0),
                     Date(timeIntervalSince1970: 253_402_300_799), Date(timeIntervalSince1970: -62_135_596_800)]
        for _ in 0..<20_000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -2e10...2e10, using: &random))) }
        for date in dates {
            #expect(ISO8601Timestamp.string(from: date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func readsWhatTheFormatterReads() {
        let formatter = ISO8601DateFormatter()
        let texts = ["2026-11-23T19:09:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2000-02-29T12:00:00Z",
                     "2026-11-23T19:09:00+02:00", "2026-11-23T19:09:00-05:30", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]
        for text in texts {
            #expect(ISO8601Timestamp.date(from: text) == formatter.date(from: text), "\(text)")
        }
        for bad in ["", "2026-11-23", "2026-11-23 19:09:00Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                    "2026-11-23T25:00:00Z", "2026-11-23T19:09:00", "2026-11-23T19:09:00+0200", "２026-11-23T19:09:00Z"] {
            #expect(ISO8601Timestamp.date(from: bad) == nil, "\(bad)")
        }
    }

    /// Dates no `time_t` holds (infinite, or some 10^17 years off), as a binary marker file or a
    /// store's date column may hold them, trapped when indexed or printed; they are written as the
    /// formatter writes them, and a date that is not a number as nothing.
    @Test func datesBeyondTimeTAreWrittenAsTheFormatterWritesThem() {
        let formatter = ISO8601DateFormatter()
        for seconds in [Double.infinity, -.infinity, 1e300, -1e300, 9.3e15, .greatestFiniteMagnitude, .nan] {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            #expect(ISO8601Timestamp.string(from: date) == formatter.string(from: date), "\(seconds)")
        }
    }
}
