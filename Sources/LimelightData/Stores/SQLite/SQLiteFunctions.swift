import Foundation
import CSQLite

/// SQL functions the store registers so queries in SQL agree with evaluation in memory: each calls
/// the same Swift code the in-memory evaluator uses.
///
/// - `LL_FOLD(text, flags)`: Unicode case (1) and diacritic (2) folding (SQLite's NOCASE is
///   ASCII-only).
/// - `LL_MATCHES(text, pattern, caseInsensitive)` and `REGEXP(pattern, text)`: whole-string ICU
///   regular expressions.
/// - `LL_LIKE(text, pattern)`: LIKE with `*` and `?` when the pattern comes from the store.
/// - `LL_UPPER`, `LL_LOWER`: Unicode case mapping (SQLite's upper/lower are ASCII-only).
/// - `LL_MATH(name, x [, y])`: sqrt, log (base 10), ln, exp, floor, ceiling, trunc, pow, which
///   SQLite has only when built with its math functions.
/// - `LL_UTI(type, other, equalsOnly)`: UTI-CONFORMS-TO (0) and UTI-EQUALS (1).
enum SQLiteFunctions {
    /// The math functions `LL_MATH` knows, by the name the translator passes.
    static let mathFunctions: [String: @Sendable (Double, Double) -> Double] = [
        "sqrt": { x, _ in x.squareRoot() }, "log": { x, _ in log10(x) }, "ln": { x, _ in log(x) },
        "exp": { x, _ in exp(x) }, "floor": { x, _ in x.rounded(.down) }, "ceiling": { x, _ in x.rounded(.up) },
        "trunc": { x, _ in x.rounded(.towardZero) }, "pow": { x, y in pow(x, y) },
    ]

    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        func check(_ rc: Int32, _ name: String) throws {
            guard rc == SQLITE_OK else { throw connection.error("registering \(name)") }
        }
        try check(sqlite3_create_function_v2(db, "LL_FOLD", 2, flags, nil, { context, _, args in
            guard let args else { sqlite3_result_null(context); return }
            let options = sqlite3_value_int(args[1])
            // Latin text folds straight from SQLite's bytes into SQLite's result, building no string.
            if sqlite3_value_type(args[0]) == SQLITE_TEXT, let pointer = sqlite3_value_text(args[0]) {
                let input = UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(args[0])))
                let done: Void? = LatinFolding.withFolded(input, flags: Int(options)) { folded in
                    sqlite3_result_text(context, UnsafeRawPointer(folded.baseAddress ?? pointer).assumingMemoryBound(to: CChar.self),
                                        Int32(folded.count), sqliteTransient)
                }
                if done != nil { return }
            }
            guard let value = SQLiteFunctions.text(args[0]) else { sqlite3_result_null(context); return }
            let folded = StringFolding.fold(value, caseInsensitive: options & 1 != 0, diacriticInsensitive: options & 2 != 0)
            sqlite3_result_text(context, folded, Int32(folded.utf8.count), sqliteTransient)
        }, nil, nil, nil), "LL_FOLD")
        try check(sqlite3_create_function_v2(db, "LL_MATCHES", 3, flags, nil, { context, _, args in
            guard let args, let subject = SQLiteFunctions.text(args[0]), let pattern = SQLiteFunctions.text(args[1]) else { sqlite3_result_int(context, 0); return }
            SQLiteFunctions.match(context, subject, pattern, caseInsensitive: sqlite3_value_int(args[2]) != 0)
        }, nil, nil, nil), "LL_MATCHES")
        try check(sqlite3_create_function_v2(db, "REGEXP", 2, flags, nil, { context, _, args in
            guard let args, let pattern = SQLiteFunctions.text(args[0]), let subject = SQLiteFunctions.text(args[1]) else { sqlite3_result_int(context, 0); return }
            SQLiteFunctions.match(context, subject, pattern, caseInsensitive: false)
        }, nil, nil, nil), "REGEXP")
        try check(sqlite3_create_function_v2(db, "LL_LIKE", 2, flags, nil, { context, _, args in
            guard let args, let subject = SQLiteFunctions.text(args[0]), let pattern = SQLiteFunctions.text(args[1]) else {
                sqlite3_result_int(context, 0)
                return
            }
            sqlite3_result_int(context, StringFolding.like(subject, pattern: pattern) ? 1 : 0)
        }, nil, nil, nil), "LL_LIKE")
        for (name, upper) in [("LL_UPPER", 1), ("LL_LOWER", 0)] {
            try check(sqlite3_create_function_v2(db, name, 1, flags, UnsafeMutableRawPointer(bitPattern: 0x10 + upper), { context, _, args in
                guard let args, let value = SQLiteFunctions.text(args[0]) else { sqlite3_result_null(context); return }
                let isUpper = Int(bitPattern: sqlite3_user_data(context)) == 0x11
                let mapped = isUpper ? value.uppercased() : value.lowercased()
                sqlite3_result_text(context, mapped, Int32(mapped.utf8.count), sqliteTransient)
            }, nil, nil, nil), name)
        }
        try check(sqlite3_create_function_v2(db, "LL_UTI", 3, flags, nil, { context, _, args in
            guard let args, let type = SQLiteFunctions.text(args[0]), let other = SQLiteFunctions.text(args[1]) else {
                sqlite3_result_int(context, 0)
                return
            }
            let same = sqlite3_value_int(args[2]) != 0
            let result = same ? UniformTypeConformance.equal(type, other) : UniformTypeConformance.conforms(type, to: other)
            sqlite3_result_int(context, result ? 1 : 0)
        }, nil, nil, nil), "LL_UTI")
        for arity: Int32 in [2, 3] {
            try check(sqlite3_create_function_v2(db, "LL_MATH", arity, flags, nil, { context, count, args in
                guard let args, let name = SQLiteFunctions.text(args[0]), let function = SQLiteFunctions.mathFunctions[name] else {
                    sqlite3_result_error(context, "LL_MATH: unknown function", -1)
                    return
                }
                guard sqlite3_value_type(args[1]) != SQLITE_NULL, count < 3 || sqlite3_value_type(args[2]) != SQLITE_NULL else {
                    sqlite3_result_null(context)
                    return
                }
                let x = sqlite3_value_double(args[1]), y = count < 3 ? 0 : sqlite3_value_double(args[2])
                let result = function(x, y)
                // NaN is NULL, as in-memory evaluation makes it nil.
                if result.isNaN { sqlite3_result_null(context) } else { sqlite3_result_double(context, result) }
            }, nil, nil, nil), "LL_MATH")
        }
    }

    private static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) != SQLITE_NULL, let pointer = sqlite3_value_text(value) else { return nil }
        let length = Int(sqlite3_value_bytes(value))
        // Bytes with their length, so a NUL inside the text does not cut it short.
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func match(_ context: OpaquePointer?, _ text: String, _ pattern: String, caseInsensitive: Bool) {
        do {
            let matched = try RegularExpressionMatching.matches(text, pattern: pattern, caseInsensitive: caseInsensitive)
            sqlite3_result_int(context, matched ? 1 : 0)
        } catch {
            sqlite3_result_error(context, "\(error)", -1)
        }
    }
}
