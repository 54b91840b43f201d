import CSQLite

/// The SQL functions Core Data's own triggers call, registered so that saves work on stores
/// Core Data made with such triggers (for derived attributes such as a to-many's count, and in
/// stores of apps that track history).
///
/// The triggers do their work in SQL (the derived column is updated by the trigger's `UPDATE`);
/// the function calls only tell Core Data's in-process row cache which objects the trigger
/// changed. Without the functions, SQLite refuses every statement that fires such a trigger
/// ("no such function"), so no object of the entity could be saved. Here they do nothing: a
/// context reads the derived values when it next fetches or refreshes the objects.
enum CoreDataTriggerFunctions {
    static let names = [
        "NSCoreDataTriggerUpdateAffectedObjectValue",
        "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        "NSCoreDataDATriggerUpdatedAffectedObjectValue",
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
    }
}
