import Foundation
import CSQLite

/// Converts attribute values between their Swift types and SQLite's storage classes, as Core Data
/// stores them: dates as seconds since 2001-01-01, UUIDs as 16-byte blobs, booleans as 0/1.
enum SQLiteValueMapping {
    /// A stored value as its column holds it. The common pairs (a slot of the attribute's own
    /// type) are a branch each; the rest go through the value's `Any` form.
    static func sqlValue(_ stored: StoredValue, for attribute: AttributeDescription) throws -> SQLiteValue {
        switch (stored, attribute.attributeType) {
        case (.null, _): return .null
        case (.int64(let v), .integer64): return .integer(v)
        case (.int32(let v), .integer32): return .integer(Int64(v))
        case (.int16(let v), .integer16): return .integer(Int64(v))
        case (.bool(let v), .boolean): return .integer(v ? 1 : 0)
        case (.double(let v), .double): return .real(v)
        case (.float(let v), .float): return .real(Double(v))
        case (.string(let v), .string): return .text(v)
        case (.date(let v), .date): return .real(v.timeIntervalSinceReferenceDate)
        case (.data(let v), .binaryData): return blob(v, for: attribute)
        default: return try sqlValue(stored.value, for: attribute)
        }
    }

    static func sqlValue(_ value: Any?, for attribute: AttributeDescription) throws -> SQLiteValue {
        guard let value else { return .null }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64, .boolean:
            guard let int = AttributeValueCoercion.integer(value) else { return mismatch(value, attribute) }
            return .integer(int)
        case .double, .float:
            guard let double = AttributeValueCoercion.double(value) else { return mismatch(value, attribute) }
            return .real(double)
        case .decimal:
            if let decimal = value as? Decimal { return .text("\(decimal)") }
            guard let double = AttributeValueCoercion.double(value) else { return mismatch(value, attribute) }
            return .real(double)
        case .string:
            if let text = value as? String { return .text(text) }
            return .text("\(value)")
        case .date:
            guard let date = value as? Date else { return mismatch(value, attribute) }
            return .real(date.timeIntervalSinceReferenceDate)
        case .binaryData:
            guard let data = value as? Data else { return mismatch(value, attribute) }
            return blob(data, for: attribute)
        case .uuid:
            guard let uuid = value as? UUID else { return mismatch(value, attribute) }
            return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case .uri:
            guard let url = value as? URL else { return mismatch(value, attribute) }
            return .text(url.absoluteString)
        case .objectID:
            guard let id = value as? ManagedObjectID else { return mismatch(value, attribute) }
            return .text(id.uriRepresentation().absoluteString)
        case .transformable, .undefined:
            let encoded = try ValueTransformerRegistry.shared.encode(value, for: attribute)
            return blob(encoded, for: attribute)
        case .composite:
            // A composite has no column of its own: its elements have one each
            // (`SQLiteCompositeColumns`). A single value stands for none (a tombstone of one).
            return .null
        }
    }

    /// Bytes as the attribute's column holds them: behind Core Data's marker when it allows
    /// external storage.
    private static func blob(_ data: Data, for attribute: AttributeDescription) -> SQLiteValue {
        .blob(attribute.allowsExternalBinaryDataStorage ? ExternalBinaryData.encode(data) : data)
    }

    private static func mismatch(_ value: Any, _ attribute: AttributeDescription) -> SQLiteValue {
        // Validation reports wrong types before a save reaches the store; store nothing rather than
        // something of the wrong type if a caller bypassed it.
        .null
    }

    /// Column `column` of the current row, for a common pair of storage class and attribute type
    /// (an integer column for an integer attribute, text for a string, a real for a double or a
    /// date) or NULL, read straight from the statement; `nil` for the rest (`otherValue`).
    @inline(__always)
    static func commonValue(_ statement: OpaquePointer, column: Int32, type: AttributeType) -> StoredValue? {
        // One `sqlite3_column_value` and then the value's own readers: each `sqlite3_column_…`
        // call takes and releases the connection's state and error bookkeeping again, and a type
        // check and a read per value paid that twice.
        guard let value = sqlite3_column_value(statement, column) else { return .null }
        let storage = sqlite3_value_type(value)
        if storage == SQLITE_NULL { return .null }
        switch (type, storage) {
        case (.integer64, SQLITE_INTEGER): return .int64(sqlite3_value_int64(value))
        // A number too large for a narrow attribute is no common value: `otherValue` refuses it
        // rather than keeping its low bits.
        case (.integer32, SQLITE_INTEGER):
            guard let int = Int32(exactly: sqlite3_value_int64(value)) else { return nil }
            return .int32(int)
        case (.integer16, SQLITE_INTEGER):
            guard let int = Int16(exactly: sqlite3_value_int64(value)) else { return nil }
            return .int16(int)
        case (.boolean, SQLITE_INTEGER): return .bool(sqlite3_value_int64(value) != 0)
        case (.double, SQLITE_FLOAT): return .double(sqlite3_value_double(value))
        case (.date, SQLITE_FLOAT): return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(value)))
        case (.string, SQLITE_TEXT):
            // By length, not up to the first NUL: text may contain NUL characters. The text first,
            // then its length, as SQLite's documentation orders the two calls.
            guard let text = sqlite3_value_text(value) else { return .string("") }
            let count = Int(sqlite3_value_bytes(value))
            return .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        default:
            return nil
        }
    }

    /// A column value that its attribute cannot take: the reason, without the place (the caller,
    /// which knows the row, adds that).
    struct Mismatch: Error {
        var reason: String
        /// The column, once a caller that knows it adds it.
        var column: String?
        /// Bytes a transformable attribute's transformer cannot decode. Core Data's transformer
        /// then returns nil and the object reads nil there, so a reader may take it so (logged,
        /// the bytes left in the file) where every other mismatch is refused.
        var isUndecodable = false
    }

    /// Column `column` of the current row as `attribute`'s value when `commonValue` has none: through
    /// `SQLiteValue`, with `external` finding the files that values stored outside the row name.
    /// Throws `Mismatch` for a value of a storage class or range the attribute cannot take.
    static func otherValue(_ statement: OpaquePointer, column: Int32, external: ExternalBinaryData,
                           attribute: AttributeDescription?) throws(Mismatch) -> StoredValue {
        guard let attribute else { return .null }
        return StoredValue(try swiftValue(SQLiteValue(statement: statement, column: column), for: attribute, external: external))
    }

    static func swiftValue(_ value: SQLiteValue, for attribute: AttributeDescription, external: ExternalBinaryData) throws(Mismatch) -> Any? {
        if case .null = value { return nil }
        if attribute.allowsExternalBinaryDataStorage, attribute.attributeType == .binaryData || attribute.attributeType == .transformable,
           case .blob(let blob) = value {
            // A reference whose file is gone reads as nil and keeps its reference (see
            // `ExternalBinaryData.decode`): the bytes may come back with the folder.
            guard let data = external.decode(blob) else { return nil }
            return try swiftValue(.blob(data), forStored: attribute)
        }
        return try swiftValue(value, forStored: attribute)
    }

    /// A column value, as the attribute's Swift value, once any external-storage marker is gone.
    /// SQLite lets any column hold any storage class; a value is converted only when nothing is
    /// lost (an integer written as text, a whole number as a real, text as a string's bytes), and
    /// refused otherwise, so a save never writes back something other than what was read.
    private static func swiftValue(_ value: SQLiteValue, forStored attribute: AttributeDescription) throws(Mismatch) -> Any? {
        let type = attribute.attributeType
        switch type {
        case .integer16:
            guard let int = integer(value).flatMap({ Int16(exactly: $0) }) else { throw mismatch(value, "an Integer 16") }
            return int
        case .integer32:
            guard let int = integer(value).flatMap({ Int32(exactly: $0) }) else { throw mismatch(value, "an Integer 32") }
            return int
        case .integer64:
            guard let int = integer(value) else { throw mismatch(value, "an Integer 64") }
            return int
        case .boolean:
            // Any number but 0 is true, as Core Data's NSNumber reads it.
            guard let int = integer(value) else { throw mismatch(value, "a Boolean") }
            return int != 0
        case .double:
            guard let double = double(value) else { throw mismatch(value, "a Double") }
            return double
        case .float:
            guard let double = double(value) else { throw mismatch(value, "a Float") }
            return Float(double)
        case .decimal:
            let decimal: Decimal?
            switch value {
            case .text(let text): decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            case .integer(let int): decimal = Decimal(int)
            case .real(let real): decimal = real.isFinite ? Decimal(real) : nil
            default: decimal = nil
            }
            guard let decimal else { throw mismatch(value, "a Decimal") }
            return decimal
        case .string, .uri:
            let text: String
            switch value {
            case .text(let t): text = t
            case .integer(let i): text = String(i)
            case .real(let r): text = String(r)
            case .blob(let bytes):
                // Bytes that are UTF-8 are the text SQLite would give; others would come back
                // changed (replacement characters) and be written so by the next save.
                guard let decoded = String(bytes: bytes, encoding: .utf8) else { throw mismatch(value, "a String (not UTF-8)") }
                text = decoded
            case .null: return nil
            }
            guard type == .uri else { return text }
            guard let url = URL(string: text) else { throw mismatch(value, "a URI") }
            return url
        case .date:
            guard let seconds = double(value), seconds.isFinite else { throw mismatch(value, "a Date (seconds since 2001)") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .binaryData:
            switch value {
            case .blob(let data): return data
            case .text(let text): return Data(text.utf8)
            default: throw mismatch(value, "Binary Data")
            }
        case .uuid:
            if case .blob(let data) = value, data.count == 16 {
                let b = [UInt8](data)
                return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            }
            if case .text(let text) = value, let uuid = UUID(uuidString: text) { return uuid }
            throw mismatch(value, "a UUID (16 bytes)")
        case .objectID:
            guard case .text(let text) = value, let url = URL(string: text) else { throw mismatch(value, "an object ID URI") }
            return url
        case .transformable, .undefined:
            guard case .blob(let data) = value else { throw mismatch(value, "a transformable value (bytes)") }
            guard let transformer = ValueTransformerRegistry.shared.transformer(for: attribute.valueTransformerName) else { return data }
            do {
                return try transformer.decode(data)
            } catch {
                throw Mismatch(reason: "\(describe(value)) could not be decoded by \(attribute.valueTransformerName ?? "the default transformer"): \(error)",
                               isUndecodable: true)
            }
        case .composite:
            return nil
        }
    }

    private static func mismatch(_ value: SQLiteValue, _ expected: String) -> Mismatch {
        Mismatch(reason: "\(describe(value)) is not \(expected) value")
    }

    /// A value as a person checking the file would see it: its storage class and, when short, itself.
    static func describe(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let int): return "INTEGER \(int)"
        case .real(let real): return "REAL \(real)"
        case .text(let text): return text.count <= 40 ? "TEXT '\(text)'" : "TEXT of \(text.utf8.count) bytes"
        case .blob(let bytes):
            let hex = bytes.prefix(16).map { String(format: "%02X", $0) }.joined()
            return "BLOB of \(bytes.count) bytes (X'\(hex)\(bytes.count > 16 ? "…" : "")')"
        }
    }

    static func integer(_ value: SQLiteValue) -> Int64? {
        switch value {
        case .integer(let v): return v
        // Only a whole number within range: `Int64(exactly:)` is nil for fractions, NaN and
        // anything beyond 2^63.
        case .real(let v): return Int64(exactly: v)
        case .text(let t): return Int64(t)
        default: return nil
        }
    }

    static func double(_ value: SQLiteValue) -> Double? {
        switch value {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let t): return Double(t)
        default: return nil
        }
    }
}
