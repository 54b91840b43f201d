import CXapian
import Foundation

/// An error from the Xapian database, with Xapian's own message.
public struct SearchIndexError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Another process holds the database for writing.
        case lock
        /// The database changed under a reader and could not be reopened.
        case modified
        /// The query string does not parse.
        case queryParse
        /// The database is missing or unreadable.
        case opening
        case corrupt
        case other
    }

    public var kind: Kind
    public var message: String
    public var path: String

    public var description: String {
        switch kind {
        case .lock: return "\(path): the index is locked by another writer (is limelightd already running?): \(message)"
        case .queryParse: return "cannot parse the query: \(message)"
        case .opening: return "\(path): cannot open the index: \(message)"
        default: return "\(path): \(message)"
        }
    }

    /// Reads and clears a C error.
    static func take(_ error: inout cx_error, path: String) -> SearchIndexError {
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        let kind: Kind
        switch error.code {
        case Int32(CX_ERR_LOCK.rawValue): kind = .lock
        case Int32(CX_ERR_MODIFIED.rawValue): kind = .modified
        case Int32(CX_ERR_QUERY.rawValue): kind = .queryParse
        case Int32(CX_ERR_OPENING.rawValue): kind = .opening
        case Int32(CX_ERR_CORRUPT.rawValue): kind = .corrupt
        default: kind = .other
        }
        cx_error_clear(&error)
        return SearchIndexError(kind: kind, message: message, path: path)
    }
}

/// Runs a C call that fills a `cx_error`, throwing it as a `SearchIndexError`.
@discardableResult
func xapianCall<T>(path: String, _ body: (UnsafeMutablePointer<cx_error>) -> T, failed: (T) -> Bool) throws -> T {
    var error = cx_error(code: 0, message: nil)
    let result = body(&error)
    if failed(result) || error.code != 0 {
        if error.code == 0 { error.code = Int32(CX_ERR_OTHER.rawValue) }
        throw SearchIndexError.take(&error, path: path)
    }
    return result
}

/// A C call that returns a new object (database, document): the object, or the error it reported.
func xapianObject(path: String, _ body: (UnsafeMutablePointer<cx_error>) -> OpaquePointer?) throws -> OpaquePointer {
    guard let object = try xapianCall(path: path, body, failed: { $0 == nil }) else {
        throw SearchIndexError(kind: .other, message: "no object and no error from Xapian", path: path)
    }
    return object
}
