import Foundation
import CSQLite

/// Collating sequences the store registers so that ORDER BY in SQL orders strings as
/// `ValueOrdering` does in memory, where folding alone cannot say it.
///
/// - `LL_LOCALIZED`: the order of a `.localized` sort descriptor (Core Data's
///   `localizedStandardCompare:`), which compares runs of digits by their numeric value ("1.2"
///   before "1.10", "Trip 9" before "Trip 10"); a folded string compared byte by byte would put
///   them the other way round, and a fetch sorted in SQL would disagree with the same sort in
///   memory (and page through a different order).
enum SQLiteCollations {
    static let localized = "LL_LOCALIZED"

    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        let rc = sqlite3_create_collation_v2(db, localized, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            // ASCII text is ordered from SQLite's bytes, making no strings; Foundation orders the rest.
            let fast = LocalizedASCIIOrdering.compare(UnsafeRawBufferPointer(start: left, count: left == nil ? 0 : Int(max(leftCount, 0))),
                                                      UnsafeRawBufferPointer(start: right, count: right == nil ? 0 : Int(max(rightCount, 0))))
            if let fast { return fast == .orderedAscending ? -1 : fast == .orderedDescending ? 1 : 0 }
            let x = SQLiteCollations.string(left, leftCount), y = SQLiteCollations.string(right, rightCount)
            switch ValueOrdering.foundationLocalizedCompare(x, y) {
            case .orderedAscending: return -1
            case .orderedDescending: return 1
            case .orderedSame: return 0
            }
        }, nil)
        guard rc == SQLITE_OK else { throw connection.error("registering the collation \(localized)") }
    }

    /// The text SQLite hands a collation: its bytes and their count, not NUL-terminated.
    private static func string(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
}
