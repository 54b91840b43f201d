import Foundation

/// Writes property lists, XML and binary, in the forms Core Data and Foundation read: store
/// metadata, the records folder's `info.plist`, marker files, model version files.
///
/// Why not `PropertyListSerialization`: in a program that links Foundation statically it cannot
/// write an array (it reports "property lists cannot contain objects of type 'Not A Type'", so a
/// store's metadata could not be saved); and on Linux it builds the result through `NSData` and
/// copies it out byte by byte, which made encoding markers cost more than the rest of a save.
/// `PropertyListReader` reads what this writes.
enum PropertyListWriter {
    enum Format {
        case xml
        case binary
    }

    /// A value a property list cannot hold, and where it was.
    struct UnsupportedValue: Error, CustomStringConvertible {
        var keyPath: String
        var type: String
        var description: String { "a property list cannot hold \(type) (at \(keyPath.isEmpty ? "the top level" : keyPath))" }
    }

    static func data(_ root: Any, format: Format) throws -> Data {
        let value = try Value(root, keyPath: "")
        switch format {
        case .xml: return xml(value)
        case .binary: return BinaryPropertyListEncoder.encode(value)
        }
    }

    /// A property list value, typed: what both writers walk.
    indirect enum Value {
        case string(String)
        case bool(Bool)
        case integer(Int64)
        case unsignedInteger(UInt64)
        case real(Double)
        case date(Date)
        case data(Data)
        case array([Value])
        case dictionary([(key: String, value: Value)])
        /// A keyed archive's object reference.
        case uid(UInt64)

        init(_ value: Any, keyPath: String) throws {
            // A value stored through an optional arrives wrapped in one: what counts is inside.
            if let optional = value as? any OptionalPropertyListValue {
                guard let wrapped = optional.wrappedValue else { throw UnsupportedValue(keyPath: keyPath, type: "nil") }
                self = try Value(wrapped, keyPath: keyPath)
                return
            }
            if let number = Self.scalar(value) {
                self = number
                return
            }
            switch value {
            case let string as String: self = .string(string)
            case let uid as PropertyListUID: self = .uid(uid.value)
            case let date as Date: self = .date(date)
            case let data as Data: self = .data(data)
            case let array as [Any]:
                self = .array(try array.enumerated().map { try Value($0.element, keyPath: "\(keyPath)[\($0.offset)]") })
            case let dictionary as [String: Any]:
                // Sorted keys, as Foundation writes them: equal content gives equal bytes, which is
                // how writers of the records folder tell that nothing changed.
                self = .dictionary(try dictionary.sorted { $0.key < $1.key }.map { key, element in
                    (key, try Value(element, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)"))
                })
            default:
                throw UnsupportedValue(keyPath: keyPath, type: "\(Swift.type(of: value))")
            }
        }

        /// Numbers and booleans by their exact type, so an integer 1 never turns into `true`; an
        /// `NSNumber` (as a decoded property list holds) by the type it was made with.
        private static func scalar(_ value: Any) -> Value? {
            switch value {
            case let v as Bool where type(of: value) == Bool.self: return .bool(v)
            case let v as Int where type(of: value) == Int.self: return .integer(Int64(v))
            case let v as Int64 where type(of: value) == Int64.self: return .integer(v)
            case let v as Int32 where type(of: value) == Int32.self: return .integer(Int64(v))
            case let v as Int16 where type(of: value) == Int16.self: return .integer(Int64(v))
            case let v as Int8 where type(of: value) == Int8.self: return .integer(Int64(v))
            case let v as UInt where type(of: value) == UInt.self: return unsigned(UInt64(v))
            case let v as UInt64 where type(of: value) == UInt64.self: return unsigned(v)
            case let v as UInt32 where type(of: value) == UInt32.self: return .integer(Int64(v))
            case let v as UInt16 where type(of: value) == UInt16.self: return .integer(Int64(v))
            case let v as UInt8 where type(of: value) == UInt8.self: return .integer(Int64(v))
            case let v as Double where type(of: value) == Double.self: return .real(v)
            case let v as Float where type(of: value) == Float.self: return .real(Double(v))
            default: break
            }
            guard type(of: value) is NSNumber.Type, let number = value as? NSNumber else { return nil }
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "B"): return .bool(number.boolValue)
            case UInt8(ascii: "f"), UInt8(ascii: "d"): return .real(number.doubleValue)
            case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"): return unsigned(number.uint64Value)
            default: return .integer(number.int64Value)
            }
        }

        private static func unsigned(_ value: UInt64) -> Value {
            value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value)
        }
    }

    // MARK: XML

    private static func xml(_ root: Value) -> Data {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        write(root, indent: "", into: &out)
        out += "</plist>\n"
        return Data(out.utf8)
    }

    private static func write(_ value: Value, indent: String, into out: inout String) {
        switch value {
        case .string(let string): out += "\(indent)<string>\(escaped(string))</string>\n"
        case .bool(let bool): out += bool ? "\(indent)<true/>\n" : "\(indent)<false/>\n"
        case .integer(let int): out += "\(indent)<integer>\(int)</integer>\n"
        case .unsignedInteger(let int): out += "\(indent)<integer>\(int)</integer>\n"
        case .real(let double): out += "\(indent)<real>\(real(double))</real>\n"
        case .date(let date): out += "\(indent)<date>\(dateText(date))</date>\n"
        case .data(let data): out += "\(indent)<data>\(data.base64EncodedString())</data>\n"
        // As Foundation writes a keyed archive in XML.
        case .uid(let value): out += "\(indent)<dict>\n\(indent)\t<key>CF$UID</key>\n\(indent)\t<integer>\(value)</integer>\n\(indent)</dict>\n"
        case .array(let array):
            if array.isEmpty {
                out += "\(indent)<array/>\n"
                return
            }
            out += "\(indent)<array>\n"
            for element in array { write(element, indent: indent + "\t", into: &out) }
            out += "\(indent)</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty {
                out += "\(indent)<dict/>\n"
                return
            }
            out += "\(indent)<dict>\n"
            for (key, element) in entries {
                out += "\(indent)\t<key>\(escaped(key))</key>\n"
                write(element, indent: indent + "\t", into: &out)
            }
            out += "\(indent)</dict>\n"
        }
    }

    private static func escaped(_ text: String) -> String { XMLEscaping.escaped(text, inAttribute: false) }

    private static func real(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        return "\(value)"
    }

    /// ISO 8601 in UTC to the second, as XML property lists store dates.
    private static func dateText(_ date: Date) -> String {
        // A date no `time_t` holds (infinite, or 10^17 years off, as a binary list or a store's
        // column may give one) would trap converting; the shared writer shows it as the
        // formatter does.
        let whole = date.timeIntervalSince1970.rounded(.down)
        guard whole.isFinite, abs(whole) < 1e15 else { return ISO8601Timestamp.string(from: date) }
        var seconds = time_t(whole)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return ISO8601Timestamp.string(from: date) }
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}

/// Lets the writer look inside an `Optional` it meets as `Any`.
private protocol OptionalPropertyListValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalPropertyListValue {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}
