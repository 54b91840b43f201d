import CSQLiteBench
import Foundation

/// The raw sqlite3 C API peer: what a programmer writes by hand with prepared statements.
final class RawDatabase {
    let handle: OpaquePointer
    let path: String

    init(_ path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else {
            throw BenchError("sqlite3_open \(path) failed")
        }
        handle = db
        self.path = path
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw BenchError("\(path): \(sql): \(text)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("\(path): cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return RawStatement(statement)
    }

    /// Text values of the first column of every row.
    func strings(_ sql: String) throws -> [String] {
        let statement = try prepare(sql)
        var values: [String] = []
        while statement.step() { values.append(statement.text(0)) }
        return values
    }
}

final class RawStatement {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { sqlite3_finalize(handle) }

    /// True while there is a row.
    func step() -> Bool { sqlite3_step(handle) == SQLITE_ROW }
    func reset() { sqlite3_reset(handle) }
    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ index: Int32, _ value: String) { sqlite3_bind_text(handle, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String { sqlite3_column_text(handle, column).map { String(cString: $0) } ?? "" }
}
