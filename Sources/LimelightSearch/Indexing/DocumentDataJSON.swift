import Foundation

extension IndexLayout.DocumentData {
    /// The document data a hit carries, as the indexer wrote it (a JSON object of five strings).
    ///
    /// Read by hand for that one shape: `limelight search` decodes it for every hit, and
    /// `JSONDecoder`'s first use in a short-lived process (its generic containers, looked up at
    /// run time) cost several times the rest of the hit's decoding. Any other shape (fields added
    /// later, escapes written differently) goes to `JSONDecoder`, so nothing it reads is lost.
    static func read(_ data: Data) throws -> IndexLayout.DocumentData {
        if let fields = FlatJSONObject.strings(data),
           let marker = fields["marker"], let uri = fields["uri"], let entity = fields["entity"],
           let store = fields["store"], let displayName = fields["displayName"], fields.count == 5 {
            return IndexLayout.DocumentData(marker: marker, uri: uri, entity: entity, store: store, displayName: displayName)
        }
        return try JSONDecoder().decode(IndexLayout.DocumentData.self, from: data)
    }

    /// The JSON object `read` takes back, written by hand: every indexed document carries one, and
    /// `JSONEncoder`, with its generic containers, took 6% of the import thread's time in a bulk
    /// run, more than any other step of building a document but the text's.
    func json() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(marker.utf8.count + uri.utf8.count + entity.utf8.count + store.utf8.count + displayName.utf8.count + 64)
        // Member by member, not over an array of the five pairs: that array was made per document.
        func append(_ key: String, _ value: String, first: Bool = false) {
            bytes.append(UInt8(ascii: first ? "{" : ","))
            FlatJSONObject.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            FlatJSONObject.appendString(value, to: &bytes)
        }
        append("marker", marker, first: true)
        append("uri", uri)
        append("entity", entity)
        append("store", store)
        append("displayName", displayName)
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }
}

/// A JSON object whose members are all strings, read from its UTF-8 bytes; `nil` for anything
/// else (a caller then uses a general decoder).
enum FlatJSONObject {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `string` as a JSON string: UTF-8 as it is, with the quote, the backslash and control
    /// characters escaped (RFC 8259).
    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    static func strings(_ data: Data) -> [String: String]? {
        data.withUnsafeBytes { raw -> [String: String]? in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.object()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func object() -> [String: String]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var result: [String: String] = [:]
            skipSpace()
            if take(UInt8(ascii: "}")) { return end() ? result : nil }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = string(), result.updateValue(value, forKey: key) == nil else { return nil }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                return end() ? result : nil
            }
        }

        private mutating func end() -> Bool {
            skipSpace()
            return position == bytes.count
        }

        private mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// A JSON string: its bytes copied as they are up to an escape, which is decoded.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            // Nearly every string has no escape: made from its bytes in place, in one step, rather
            // than gathered byte by byte.
            let start = position
            var bits: UInt8 = 0
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    position += 1
                    // ASCII is valid UTF-8 as it is; anything else is checked, and refused if invalid.
                    return bits < 0x80 ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                bits |= byte
                position += 1
            }
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let scalar = escape() else { return nil }
                    utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                case 0..<0x20:
                    return nil
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        private mutating func escape() -> Unicode.Scalar? {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let first = hex4() else { return nil }
                // A surrogate pair spells one scalar in two escapes.
                if (0xD800..<0xDC00).contains(first) {
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let second = hex4(), (0xDC00..<0xE000).contains(second) else { return nil }
                    return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                }
                return Unicode.Scalar(first)
            default: return nil
            }
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                position += 1
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                value = value << 4 | digit
            }
            return value
        }
    }
}
