import Foundation
import CSQLite

/// Aggregates of the predicate language that SQLite lacks, registered so dictionary fetches
/// compute them in SQL too: `LL_MEDIAN`, `LL_MODE` (the most frequent value, the smallest when
/// several tie) and `LL_STDDEV` (population standard deviation), with the in-memory meaning.
enum SQLiteAggregateFunctions {
    /// One group's numbers, owned by SQLite's per-group aggregate context between step and final.
    final class Numbers { var values: [Double] = [] }

    enum Kind: Int, CaseIterable {
        case median = 1, mode, standardDeviation

        var sqlName: String {
            switch self {
            case .median: return "LL_MEDIAN"
            case .mode: return "LL_MODE"
            case .standardDeviation: return "LL_STDDEV"
            }
        }

        func result(_ values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            switch self {
            case .median:
                let sorted = values.sorted()
                let middle = sorted.count / 2
                return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            case .mode:
                let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
                let best = counts.values.max() ?? 0
                return counts.filter { $0.value == best }.keys.min()
            case .standardDeviation:
                let mean = values.reduce(0, +) / Double(values.count)
                return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            }
        }
    }

    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        for kind in Kind.allCases {
            // The kind travels as the function's user data, since the C callbacks capture nothing.
            let rc = sqlite3_create_function_v2(db, kind.sqlName, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                                UnsafeMutableRawPointer(bitPattern: kind.rawValue), nil, { context, _, args in
                guard let args, let value = args[0], sqlite3_value_type(value) != SQLITE_NULL else { return }
                guard let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)) else {
                    sqlite3_result_error_nomem(context)
                    return
                }
                let stored = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
                let numbers: Numbers
                if let existing = stored.pointee {
                    numbers = Unmanaged<Numbers>.fromOpaque(existing).takeUnretainedValue()
                } else {
                    numbers = Numbers()
                    stored.pointee = Unmanaged.passRetained(numbers).toOpaque()
                }
                numbers.values.append(sqlite3_value_double(value))
            }, { context in
                var values: [Double] = []
                // Size 0: SQLite returns the context only if a step allocated it.
                if let slot = sqlite3_aggregate_context(context, 0),
                   let stored = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee {
                    values = Unmanaged<Numbers>.fromOpaque(stored).takeRetainedValue().values
                }
                guard let kind = Kind(rawValue: Int(bitPattern: sqlite3_user_data(context))), let result = kind.result(values) else {
                    sqlite3_result_null(context)
                    return
                }
                sqlite3_result_double(context, result)
            }, nil)
            guard rc == SQLITE_OK else { throw connection.error("registering \(kind.sqlName)") }
        }
    }
}
