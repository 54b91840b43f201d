/// The byte-level steps of the XML reader: matching literals, white space and names, making
/// strings, checking the encoding, and turning an offset into the line and column of a message.
extension XMLScanner {
    /// How far lines and columns have been counted: positions are asked for in document order
    /// (each element records where it starts), so counting goes on from the last one instead of
    /// from the start each time, which keeps a document on one long line linear to read.
    struct LineCursor {
        var offset = 0
        var line = 1
        var column = 1
    }

    func starts(with literal: StaticString) -> Bool {
        literal.withUTF8Buffer { starts(with: $0, at: index) }
    }

    func starts(with prefix: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        guard bytes.count - position >= prefix.count else { return false }
        for offset in 0..<prefix.count where bytes[position + offset] != prefix[offset] { return false }
        return true
    }

    /// Where `literal` next occurs at or after the current position.
    func find(_ literal: StaticString) -> Int? {
        literal.withUTF8Buffer { needle in
            guard let first = needle.first, bytes.count >= needle.count else { return nil }
            var position = index
            while position <= bytes.count - needle.count {
                if bytes[position] == first, starts(with: needle, at: position) { return position }
                position += 1
            }
            return nil
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Steps over white space; whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        return index > start
    }

    /// An XML name here, stepped over. Every non-ASCII character is let through as a name
    /// character: the specification's ranges exclude only a few symbols no file read here uses.
    mutating func name() -> Range<Int>? {
        let start = index
        guard index < bytes.count, Self.startsName(bytes[index]) else { return nil }
        index += 1
        while index < bytes.count, Self.continuesName(bytes[index]) { index += 1 }
        return start..<index
    }

    private static func startsName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"), 0x80...:
            return true
        default:
            return false
        }
    }

    private static func continuesName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): return true
        default: return startsName(byte)
        }
    }

    /// The text of a range of the document, which `validateCharacters` has checked is UTF-8.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Refuses a document that is not UTF-8 or holds control characters XML does not allow, so
    /// everything after can make strings from bytes without checking again.
    mutating func validateCharacters() throws(XMLReaderError) {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            throw failure("the document is UTF-16; only UTF-8 is read", at: 0)
        }
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                guard byte >= 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else {
                    throw failure("control character U+\(String(byte, radix: 16, uppercase: true)) is not allowed in XML", at: position)
                }
                position += 1
                continue
            }
            guard let length = Self.utf8SequenceLength(bytes, at: position) else { throw failure("invalid UTF-8", at: position) }
            position += length
        }
    }

    /// The length of the well-formed UTF-8 sequence of a character XML allows at `position`.
    private static func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int? {
        let lead = bytes[position]
        let length: Int
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: (length, scalar) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, scalar) = (3, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, scalar) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard bytes.count - position >= length else { return nil }
        for offset in 1..<length {
            let byte = bytes[position + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        // Overlong forms, surrogates, values beyond Unicode, and the two non-characters XML excludes.
        switch length {
        case 3: guard scalar >= 0x800, !(0xD800...0xDFFF).contains(scalar), scalar != 0xFFFE, scalar != 0xFFFF else { return nil }
        case 4: guard (0x10000...0x10FFFF).contains(scalar) else { return nil }
        default: break
        }
        return length
    }

    /// The error `reason` at `offset` (the current position if not given).
    mutating func failure(_ reason: String, at offset: Int? = nil) -> XMLReaderError {
        let (line, column) = position(of: min(offset ?? index, bytes.count))
        return XMLReaderError(reason: reason, line: line, column: column)
    }

    /// 1-based line and column of a byte offset; a column counts characters, not bytes, and a
    /// byte order mark is not one.
    mutating func position(of offset: Int) -> (line: Int, column: Int) {
        if offset < lines.offset { lines = LineCursor() }
        if lines.offset == 0, hasByteOrderMark { lines.offset = min(3, offset) }
        var position = lines.offset
        while position < offset {
            let byte = bytes[position]
            if byte == 0x0A || (byte == 0x0D && (position + 1 >= bytes.count || bytes[position + 1] != 0x0A)) {
                lines.line += 1
                lines.column = 1
            } else if byte & 0xC0 != 0x80, byte != 0x0D {
                lines.column += 1
            }
            position += 1
        }
        lines.offset = offset
        return (lines.line, lines.column)
    }

    /// Whether the document begins with the UTF-8 byte order mark.
    var hasByteOrderMark: Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }
}
