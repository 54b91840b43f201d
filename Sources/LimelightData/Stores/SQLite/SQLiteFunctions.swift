import Foundation
import CSQLite

/// SQL functions the store registers so queries in SQL agree with evaluation in memory.
enum SQLiteFunctions {
    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        // LL_FOLD(text, flags): Unicode case (1) and diacritic (2) folding; SQLite's NOCASE is ASCII-only.
        let rc = sqlite3_create_function_v2(db, "LL_FOLD", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, args in
            guard let args, let textPointer = sqlite3_value_text(args[0]) else { sqlite3_result_null(context); return }
            let flags = sqlite3_value_int(args[1])
            var options: String.CompareOptions = []
            if flags & 1 != 0 { options.insert(.caseInsensitive) }
            if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
            var folded = String(cString: textPointer).folding(options: options, locale: nil)
            if flags & 1 != 0 { folded = folded.lowercased() }
            sqlite3_result_text(context, folded, -1, sqliteTransient)
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw connection.error("registering LL_FOLD") }
        let regexpRC = sqlite3_create_function_v2(db, "REGEXP", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, args in
            guard let args, let patternPointer = sqlite3_value_text(args[0]), let textPointer = sqlite3_value_text(args[1]) else {
                sqlite3_result_int(context, 0); return
            }
            let pattern = String(cString: patternPointer), text = String(cString: textPointer)
            guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else {
                sqlite3_result_error(context, "invalid regular expression: \(pattern)", -1); return
            }
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            sqlite3_result_int(context, match ? 1 : 0)
        }, nil, nil, nil)
        guard regexpRC == SQLITE_OK else { throw connection.error("registering REGEXP") }
    }
}
