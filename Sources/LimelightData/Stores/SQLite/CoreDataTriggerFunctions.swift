import CSQLite
import Foundation

/// The SQL functions Core Data's own triggers call, registered so that saves work on stores
/// Core Data made with such triggers (for derived attributes such as a to-many's count, and in
/// stores of apps that track history), and so that the triggers kept in stores made here
/// (`SQLiteSchema.derivedAttributeTriggers`) run under either framework.
///
/// The `…AffectedObjectValue` functions only tell Core Data's in-process row cache which objects
/// a trigger changed; the trigger's `UPDATE` does the work. Without them SQLite refuses every
/// statement that fires such a trigger ("no such function"), so no object of the entity could be
/// saved. Here they do nothing: a context reads the derived values when it next fetches or
/// refreshes the objects. The value functions (`NSCoreDataToUpper`, `NSCoreDataToLower`,
/// `NSCoreDataCanonical`, `NSCoreDataNow`) compute what the same derivation computes in memory.
///
/// Core Data registers these and `NSCoreDataDATriggerMergeableString` on every connection. Its
/// other functions cannot appear in what a store keeps, so they are not registered here:
///
/// - `NSCoreDataLike`, `NSCoreDataMatches` (value, pattern, options 0–3) and
///   `NSCoreDataStringSearch`, `NSCoreDataStringCompare` are what its fetches write for LIKE,
///   MATCHES and string searches. Core Data registers them without `SQLITE_DETERMINISTIC`, and
///   SQLite refuses such a function in an index expression, a partial index's `WHERE` and a
///   generated column; the tables Core Data makes have no `CHECK` constraints, the triggers it
///   keeps (derived attributes, R-tree indexes, mergeable strings) hold no predicates, and it
///   makes no views.
/// - `NSCoreDataPrependExternalReferenceMarker` and `NSCoreDataConvertTransformableToCodable`
///   serve statements of its migrations, and the history functions
///   (`NSPersistentHistoryBatchDeleteUpdateTrigger…`) temporary triggers of its batch deletions.
enum CoreDataTriggerFunctions {
    static let names = [
        "NSCoreDataTriggerUpdateAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
    ]

    /// The derivation functions by name, each as the in-memory derivation computes it.
    static let valueFunctions: [(name: String, transform: @Sendable (String) -> String)] = [
        ("NSCoreDataToUpper", { $0.uppercased() }),
        ("NSCoreDataToLower", { $0.lowercased() }),
        ("NSCoreDataCanonical", { StringFolding.fold($0, caseInsensitive: true, diacriticInsensitive: true) }),
    ]

    static func register(on connection: SQLiteConnection) throws {
        guard let db = connection.handle else { return }
        for name in names {
            // Any number of arguments: Core Data passes five today, and a later version may pass more.
            let rc = sqlite3_create_function_v2(db, name, -1, SQLITE_UTF8, nil, { context, _, _ in
                sqlite3_result_null(context)
            }, nil, nil, nil)
            guard rc == SQLITE_OK else { throw connection.error("registering \(name)") }
        }
        for (index, function) in valueFunctions.enumerated() {
            // The function's position rides in the user data, as a C callback captures nothing.
            let rc = sqlite3_create_function_v2(db, function.name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                                UnsafeMutableRawPointer(bitPattern: index + 1), { context, _, args in
                let position = Int(bitPattern: sqlite3_user_data(context)) - 1
                guard let args, CoreDataTriggerFunctions.valueFunctions.indices.contains(position),
                      sqlite3_value_type(args[0]) != SQLITE_NULL, let pointer = sqlite3_value_text(args[0]) else {
                    sqlite3_result_null(context)
                    return
                }
                let text = String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(args[0]))), as: UTF8.self)
                let result = CoreDataTriggerFunctions.valueFunctions[position].transform(text)
                sqlite3_result_text(context, result, Int32(result.utf8.count), sqliteTransient)
            }, nil, nil, nil)
            guard rc == SQLITE_OK else { throw connection.error("registering \(function.name)") }
        }
        // Core Data's trigger for a derived attribute over an attribute kept in mergeable storage
        // calls this with (table, Z_ENT, Z_PK, attribute, stored value) to get the plain string.
        // That storage's format is Core Data's own and not read here: a row without a value
        // derives none, as Core Data's does; one with a value fails its statement, naming the
        // table and attribute, so the save writes nothing rather than a wrong derived value.
        let mergeable = sqlite3_create_function_v2(db, "NSCoreDataDATriggerMergeableString", 5, SQLITE_UTF8, nil, { context, _, args in
            guard let args else { return sqlite3_result_null(context) }
            if sqlite3_value_type(args[4]) == SQLITE_NULL { return sqlite3_result_null(context) }
            let table = sqlite3_value_text(args[0]).map { String(cString: $0) } ?? "?"
            let attribute = sqlite3_value_text(args[3]).map { String(cString: $0) } ?? "?"
            let message = "NSCoreDataDATriggerMergeableString: \(table).\(attribute) is kept in Core Data's mergeable string storage, "
                + "which this framework cannot read, so the derived attribute over it cannot be computed"
            sqlite3_result_error(context, message, -1)
        }, nil, nil, nil)
        guard mergeable == SQLITE_OK else { throw connection.error("registering NSCoreDataDATriggerMergeableString") }
        // Core Data's clock for `now()` in its triggers: seconds since 2001-01-01, as dates are stored.
        let rc = sqlite3_create_function_v2(db, "NSCoreDataNow", 0, SQLITE_UTF8, nil, { context, _, _ in
            sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw connection.error("registering NSCoreDataNow") }
    }
}
