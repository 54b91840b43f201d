import Foundation
import CSQLite

/// SQLite's value for "copy the bytes now", which the C macro SQLITE_TRANSIENT does not export.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite database connection with a prepared-statement cache.
///
/// Not thread-safe by itself: the store that owns it serializes access.
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// `LIMELIGHT_SQL_DEBUG`: 1 logs statements and times to stderr, 2 adds bound values.
    let debugLevel = Int(XDGDirectories.variable("LIMELIGHT_SQL_DEBUG") ?? "") ?? 0
    /// Sees every statement run, whatever the debug level.
    var statementObserver: ((String) -> Void)?

    init(path: String, readOnly: Bool) throws {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        if readOnly, Self.isOthersIdleStore(path) {
            try openImmutable()
            return
        }
        handle = try Self.open(path, flags: flags)
        if readOnly, !Self.canRead(handle) { try reopenImmutable() }
    }

    /// Whether the file is one this user cannot write and that no program has open for writing
    /// (no `-wal` or `-shm` beside it). Reading it the usual way would leave a `-wal` and a
    /// `-shm` of this user's beside it, which the owner's application, unable to write them,
    /// could then not save through; it is read as an immutable file instead. Should the owner
    /// start writing meanwhile, the reader does not see those changes, as if it had read first.
    private static func isOthersIdleStore(_ path: String) -> Bool {
        guard access(path, W_OK) != 0, access(path, R_OK) == 0 else { return false }
        return !["-wal", "-shm"].contains { FileManager.default.fileExists(atPath: path + $0) }
    }

    private static func open(_ name: String, flags: Int32) throws -> OpaquePointer? {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw PersistenceError.store(path: name, reason: message)
        }
        sqlite3_busy_timeout(db, 5000)
        sqlite3_extended_result_codes(db, 1)
        return db
    }

    /// Whether the schema can be read: a WAL store needs its `-shm` file, which a read-only
    /// folder without one cannot give it (SQLite then reports it cannot open or write the file).
    private static func canRead(_ db: OpaquePointer?) -> Bool {
        let rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        let primary = sqlite3_extended_errcode(db) & 0xFF
        return rc == SQLITE_OK || (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY)
    }

    /// Opens a store that cannot be read in place (WAL, in a read-only folder, no `-shm`) as an
    /// immutable file: nobody can be writing it, since nobody can make its `-wal` there. With
    /// changes left in a `-wal` that would mean reading without them, so that is refused instead.
    private func reopenImmutable() throws {
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        guard wal == 0 else {
            close()
            throw PersistenceError.store(path: path, reason: "the store's newest changes are in its -wal file, which cannot be read "
                + "without a -shm file beside it, and the folder cannot be written to make one: copy the store with its -wal and -shm, "
                + "or into a folder that can be written")
        }
        close()
        try openImmutable()
    }

    /// Opens the file read-only as immutable: no locks, no `-wal` or `-shm`.
    private func openImmutable() throws {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        handle = try Self.open("file:\(escaped)?immutable=1", flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
        guard Self.canRead(handle) else { throw error("reading the store") }
    }

    /// How long a statement waits for another connection's lock before giving up, in
    /// milliseconds: 5 seconds unless the store's options say otherwise.
    var busyTimeout: Int32 = 5000 {
        didSet { sqlite3_busy_timeout(handle, busyTimeout) }
    }

    deinit { close() }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// How many prepared statements are kept for reuse.
    var cachedStatementCount: Int { statements.count }

    var lastError: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

    func error(_ context: String) -> PersistenceError {
        .store(path: path, reason: "\(context): \(lastError)\(explanation.map { " (\($0))" } ?? "")")
    }

    /// What the last error means for whoever uses the store, for the errors whose message
    /// alone does not say: a lock held elsewhere, a file that cannot be written, a damaged file.
    private var explanation: String? {
        guard let handle else { return nil }
        switch sqlite3_extended_errcode(handle) & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            let seconds = String(format: "%g", Double(busyTimeout) / 1000)
            return "another connection or process holds a lock on the store; gave up after waiting \(seconds) s (StoreOption.timeout)"
        case SQLITE_READONLY:
            return "the store's file, its folder or its -wal/-shm files cannot be written"
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return "the file is damaged or not a database"
        case SQLITE_CANTOPEN:
            return "the file or its folder cannot be opened"
        default:
            return nil
        }
    }

    /// Runs SQL that returns no rows (may contain several statements).
    func execute(_ sql: String) throws {
        let start = debugLevel > 0 ? Date() : nil
        statementObserver?(sql)
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
        if let start { log(sql, start: start, values: []) }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func prepare(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] {
            sqlite3_reset(cached)
            sqlite3_clear_bindings(cached)
            return cached
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else {
            throw error("cannot prepare \(sql)")
        }
        statements[sql] = statement
        return statement
    }

    /// Runs a statement with `values` bound, calling `row` for every result row. `cached: false`
    /// is for statements whose text is used once (primary keys inlined in `IN (…)`), which would
    /// otherwise fill the statement cache.
    func query(_ sql: String, _ values: [SQLiteValue] = [], cached: Bool = true, row: (OpaquePointer) throws -> Void) throws {
        let start = debugLevel > 0 ? Date() : nil
        statementObserver?(sql)
        // A cached statement still being stepped belongs to a query further out on this
        // connection (code run for each row of a fetch may query again): this one gets its own.
        let shared = cached && !(statements[sql].map { sqlite3_stmt_busy($0) != 0 } ?? false)
        let statement = shared ? try prepare(sql) : try prepareUncached(sql)
        defer { if shared { sqlite3_reset(statement) } else { sqlite3_finalize(statement) } }
        try bind(values, to: statement)
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_ROW { try row(statement); continue }
            if rc == SQLITE_DONE { break }
            throw error("executing \(sql)")
        }
        if let start { log(sql, start: start, values: values) }
    }

    /// Runs once more a statement from `prepare` whose parameters the caller bound itself
    /// (`sqlite3_bind_*`): for the many rows of one shape a save writes, without an array of
    /// values per row or a lookup of the statement by its text.
    func step(_ statement: OpaquePointer, sql: String) throws {
        let start = debugLevel > 0 ? Date() : nil
        statementObserver?(sql)
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw error("executing \(sql)") }
        if let start { log(sql, start: start, values: []) }
    }

    private func prepareUncached(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error("cannot prepare \(sql)")
        }
        return statement
    }

    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int {
        try query(sql, values) { _ in }
        return Int(sqlite3_changes(handle))
    }

    func bind(_ values: [SQLiteValue], to statement: OpaquePointer) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1), to: statement) }
    }

    func bind(_ value: SQLiteValue, at index: Int32, to statement: OpaquePointer) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(statement, index)
        case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
        case .real(let v): rc = sqlite3_bind_double(statement, index, v)
        case .text(let v): rc = sqlite3_bind_text(statement, index, v, Int32(v.utf8.count), sqliteTransient)  // the length keeps NULs inside the text
        case .blob(let v):
            rc = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }
        guard rc == SQLITE_OK else { throw error("binding value \(index)") }
    }

    func scalarInt(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int64? {
        var result: Int64?
        try query(sql, values) { statement in
            if sqlite3_column_type(statement, 0) != SQLITE_NULL { result = sqlite3_column_int64(statement, 0) }
        }
        return result
    }

    private func log(_ sql: String, start: Date, values: [SQLiteValue]) {
        let ms = String(format: "%.3f", Date().timeIntervalSince(start) * 1000)
        var line = "sql: \(sql) (\(ms) ms)"
        if debugLevel >= 2, !values.isEmpty { line += " values: \(values)" }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A value as SQLite stores it.
enum SQLiteValue: CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return "'\(v)'"
        case .blob(let v): return "<\(v.count) bytes>"
        }
    }

    /// Reads column `index` of the current row.
    init(statement: OpaquePointer, column index: Int32) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            // By length, not up to the first NUL: text may contain NUL characters.
            let count = Int(sqlite3_column_bytes(statement, index))
            self = .text(sqlite3_column_text(statement, index).map {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            if count > 0, let bytes = sqlite3_column_blob(statement, index) { self = .blob(Data(bytes: bytes, count: count)) }
            else { self = .blob(Data()) }
        default: self = .null
        }
    }
}
