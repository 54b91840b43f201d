import Foundation

/// The store options that set up an SQLite connection: the lock timeout, the application's
/// pragmas, and the one-off `ANALYZE` and `VACUUM` when the store is added.
enum SQLiteConnectionOptions {
    /// Sets the lock timeout `options` ask for (`StoreOption.timeout`) on `connection`.
    static func applyTimeout(_ options: [String: any Sendable], to connection: SQLiteConnection, path: String) throws {
        guard let value = options[StoreOption.timeout] else { return }
        guard let seconds = number(value), seconds >= 0, seconds.isFinite else {
            throw PersistenceError.invalidRequest("\(path): StoreOption.timeout takes a number of seconds, not \(value)")
        }
        connection.busyTimeout = Int32(clamping: Int64((seconds * 1000).rounded()))
    }

    /// Runs the application's pragmas (`StoreOption.sqlitePragmas`), in name order, on `connection`.
    static func applyPragmas(_ options: [String: any Sendable], to connection: SQLiteConnection, path: String) throws {
        guard let value = options[StoreOption.sqlitePragmas] else { return }
        guard let pragmas = value as? [String: Any] else {
            throw PersistenceError.invalidRequest("\(path): StoreOption.sqlitePragmas takes a dictionary of pragma names and values, not \(type(of: value))")
        }
        for name in pragmas.keys.sorted() {
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw PersistenceError.invalidRequest("\(path): '\(name)' is not an SQLite pragma name")
            }
            guard let literal = literal(pragmas[name] as Any) else {
                throw PersistenceError.invalidRequest("\(path): the value of pragma \(name) must be a number or a string, not \(pragmas[name] as Any)")
            }
            try connection.execute("PRAGMA \(name) = \(literal)")
        }
    }

    /// `ANALYZE` and `VACUUM` when `options` ask for them, on a store being added.
    static func runMaintenance(_ options: [String: any Sendable], on connection: SQLiteConnection) throws {
        if options[StoreOption.sqliteManualVacuum] as? Bool == true { try connection.execute("VACUUM") }
        if options[StoreOption.sqliteAnalyze] as? Bool == true { try connection.execute("ANALYZE") }
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let number as Double: return number
        case let number as Int: return Double(number)
        case let number as Float: return Double(number)
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    /// A pragma value as SQL: a number as it is, a string quoted (SQLite reads keywords such as
    /// `WAL` or `NORMAL` from a quoted string too), a Boolean as 1 or 0.
    private static func literal(_ value: Any) -> String? {
        switch value {
        case let flag as Bool: return flag ? "1" : "0"
        case let number as Int: return String(number)
        case let number as Int64: return String(number)
        case let number as Double where number.isFinite: return String(number)
        case let text as String: return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }
}
