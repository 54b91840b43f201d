import Foundation

/// A token of the predicate format language.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)       // key path component or keyword, as written
        case escapedIdentifier(String) // #keyword: always a key
        case string(String)
        case integer(Int64, text: String)
        case real(Double, text: String)
        case variable(String)
        case format(Character)         // %@ %K %d %i %f %s …
        case symbol(String)            // operators and punctuation
        case end
    }

    let kind: Kind
    /// Offset in Unicode scalars; errors convert it to characters.
    let offset: Int
}

/// Splits a format string into tokens. Never traps: malformed input becomes an error.
///
/// The lexer walks Unicode scalars rather than characters, so a combining mark after a quote or a
/// backslash cannot glue itself to that delimiter and change where a string ends.
struct PredicateLexer {
    let scalars: [Unicode.Scalar]
    let format: String

    init(_ format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    /// The character offset of a scalar offset, which is what error messages report.
    func characterOffset(_ scalarOffset: Int) -> Int {
        let clamped = max(0, min(scalarOffset, scalars.count))
        let index = format.unicodeScalars.index(format.unicodeScalars.startIndex, offsetBy: clamped)
        return format.distance(from: format.startIndex, to: index)
    }

    func error(_ offset: Int, expected: String) -> PredicateParseError {
        let found = offset < scalars.count ? "'\(Character(scalars[offset]))'" : "end of string"
        return PredicateParseError(format: format, offset: characterOffset(offset), found: found, expected: expected)
    }

    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        // Letters that are also numbers (Roman numerals) only continue a name, like digits.
        c == "_" || c == "@" || (c.properties.isAlphabetic && c.properties.numericType == nil)
    }

    static func isIdentifierContinuation(_ c: Unicode.Scalar) -> Bool {
        if c == "_" || c == "@" || c.properties.isAlphabetic { return true }
        if ("0"..."9").contains(c) { return true }
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber: return true
        default: return false
        }
    }

    static func isDigit(_ c: Unicode.Scalar?) -> Bool { c.map { ("0"..."9").contains($0) } ?? false }

    func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        var i = 0
        let count = scalars.count
        func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < count ? scalars[i + offset] : nil }
        while i < count {
            let c = scalars[i]
            if c.properties.isWhitespace { i += 1; continue }
            let start = i
            if c == "\"" || c == "'" {
                tokens.append(PredicateToken(kind: .string(try quotedString(&i, quote: c)), offset: start))
                continue
            }
            if Self.isDigit(c) || (c == "." && Self.isDigit(peek(1))) {
                tokens.append(try number(&i, start: start))
                continue
            }
            if c == "$" {
                i += 1
                let name = identifierText(&i, allowColons: false)
                guard !name.isEmpty else { throw error(i, expected: "a variable name after $") }
                tokens.append(PredicateToken(kind: .variable(name), offset: start))
                continue
            }
            if c == "%" {
                tokens.append(try formatSpecifier(&i, start: start))
                continue
            }
            if c == "#" {
                i += 1
                let name = identifierText(&i, allowColons: false)
                guard !name.isEmpty else { throw error(i, expected: "a name after #") }
                tokens.append(PredicateToken(kind: .escapedIdentifier(name), offset: start))
                continue
            }
            if Self.isIdentifierStart(c) {
                let name = identifierText(&i, allowColons: true)
                tokens.append(PredicateToken(kind: .identifier(name), offset: start))
                continue
            }
            let two = i + 1 < count ? String(String.UnicodeScalarView([c, scalars[i + 1]])) : ""
            if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**", ":="].contains(two) {
                tokens.append(PredicateToken(kind: .symbol(two), offset: start))
                i += 2
                continue
            }
            // `&` and `|` alone are bitwise (`(mediaSubtype & %d) != 0`, as Photos' fetch options
            // are written); doubled they are AND and OR, read just above.
            if "=<>!(){}[],.+-*/&|".unicodeScalars.contains(c) {
                tokens.append(PredicateToken(kind: .symbol(String(c)), offset: start))
                i += 1
                continue
            }
            throw error(i, expected: "an operator, a name, a number or a string")
        }
        tokens.append(PredicateToken(kind: .end, offset: count))
        return tokens
    }

    /// `%@ %K %d %i %u %x %c %f %e %g %s`, with the C length modifiers `h hh l ll q z t j L`;
    /// `%%` is a literal percent sign.
    private func formatSpecifier(_ i: inout Int, start: Int) throws -> PredicateToken {
        i += 1
        var length = ""
        while i < scalars.count, "hlqztjL".unicodeScalars.contains(scalars[i]), length.count < 2 {
            length.unicodeScalars.append(scalars[i])
            i += 1
        }
        guard i < scalars.count else { throw error(i, expected: "a format specifier such as %@ or %K") }
        let letter = scalars[i]
        if letter == "%" && length.isEmpty {
            i += 1
            return PredicateToken(kind: .symbol("%"), offset: start)
        }
        let allowed = length.isEmpty ? "@KdiuxXcCfFeEgGsSaA" : "diuxXfFeEgGaA"
        guard allowed.unicodeScalars.contains(letter) else { throw error(i, expected: "a format specifier such as %@ or %K") }
        i += 1
        return PredicateToken(kind: .format(Character(letter)), offset: start)
    }

    private func quotedString(_ i: inout Int, quote: Unicode.Scalar) throws -> String {
        let count = scalars.count
        i += 1
        var text = String.UnicodeScalarView()
        while i < count {
            let d = scalars[i]
            if d == quote { i += 1; return String(text) }
            guard d == "\\" else { text.append(d); i += 1; continue }
            guard i + 1 < count else { break }
            let escape = scalars[i + 1]
            i += 2
            switch escape {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "a": text.append("\u{07}")
            case "b": text.append("\u{08}")
            case "f": text.append("\u{0C}")
            case "v": text.append("\u{0B}")
            case "0"..."7":
                // Up to three octal digits, as in C.
                var value = escape.value - 48
                var digits = 1
                while digits < 3, i < count, ("0"..."7").contains(scalars[i]) {
                    value = value * 8 + scalars[i].value - 48
                    i += 1
                    digits += 1
                }
                guard let scalar = Unicode.Scalar(value) else { throw error(i - 1, expected: "an octal escape below \\400") }
                text.append(scalar)
            case "x", "X":
                let code = try hexEscape(&i, digits: 2, name: "two hex digits after \\x")
                text.append(Unicode.Scalar(UInt8(code)))
            case "u", "U":
                let code = try hexEscape(&i, digits: 4, name: "four hex digits after \\u")
                if let scalar = Unicode.Scalar(code) { text.append(scalar); continue }
                // A UTF-16 surrogate pair written as two escapes: \uD83D\uDE00.
                guard code < 0xDC00, i + 1 < count, scalars[i] == "\\", scalars[i + 1] == "u" || scalars[i + 1] == "U" else {
                    throw error(i, expected: "a surrogate pair \\uD800…\\uDBFF followed by \\uDC00…\\uDFFF")
                }
                i += 2
                let low = try hexEscape(&i, digits: 4, name: "four hex digits after \\u")
                guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)) else {
                    throw error(i - 4, expected: "a low surrogate \\uDC00…\\uDFFF after a high surrogate")
                }
                text.append(scalar)
            default: text.append(escape)
            }
        }
        throw error(count, expected: "closing \(quote)")
    }

    /// The value of the `digits` hex digits at `i`.
    private func hexEscape(_ i: inout Int, digits: Int, name: String) throws -> UInt32 {
        guard i + digits <= scalars.count else { throw error(i, expected: name) }
        let text = String(String.UnicodeScalarView(scalars[i..<i + digits]))
        guard text.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }), let code = UInt32(text, radix: 16) else {
            throw error(i, expected: name)
        }
        i += digits
        return code
    }

    /// Letters, digits, `_`, `@`, and `:` when it ends a selector part (`raise:toPower:`).
    private func identifierText(_ i: inout Int, allowColons: Bool) -> String {
        var text = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            if Self.isIdentifierContinuation(c) {
                text.append(c)
                i += 1
            } else if c == "-", let word = utiContinuation(after: String(text), at: i + 1) {
                // UTI-CONFORMS-TO and UTI-EQUALS are single reserved words.
                text.append(c)
                text.append(contentsOf: word.unicodeScalars)
                i += 1 + word.unicodeScalars.count
            } else if allowColons, c == ":", !text.isEmpty, text.first != "@", i + 1 >= scalars.count || scalars[i + 1] != "=" {
                text.append(c)
                i += 1
            } else {
                break
            }
        }
        return String(text)
    }

    /// The word that continues `UTI-…` at `offset`, when `prefix` and it form UTI-EQUALS,
    /// UTI-CONFORMS or UTI-CONFORMS-TO (so `uti-1` stays a subtraction).
    private func utiContinuation(after prefix: String, at offset: Int) -> String? {
        let wanted: [String]
        switch prefix.uppercased() {
        case "UTI": wanted = ["CONFORMS", "EQUALS"]
        case "UTI-CONFORMS": wanted = ["TO"]
        default: return nil
        }
        var end = offset
        while end < scalars.count, Self.isIdentifierContinuation(scalars[end]) { end += 1 }
        let word = String(String.UnicodeScalarView(scalars[offset..<end]))
        return wanted.contains(word.uppercased()) ? word : nil
    }

    private func number(_ i: inout Int, start: Int) throws -> PredicateToken {
        let count = scalars.count
        if scalars[i] == "0", i + 1 < count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][Character(scalars[i + 1])] {
            i += 2
            var digits = ""
            while i < count, scalars[i].properties.isASCIIHexDigit || scalars[i] == "_" {
                if scalars[i] != "_" { digits.unicodeScalars.append(scalars[i]) }
                i += 1
            }
            let text = String(String.UnicodeScalarView(scalars[start..<i]))
            // Hex literals may spell the full 64-bit pattern (0xFFFFFFFFFFFFFFFF is -1).
            guard let value = Int64(digits, radix: radix) ?? UInt64(digits, radix: radix).map({ Int64(bitPattern: $0) }) else {
                throw error(start + 2, expected: "digits for a base-\(radix) number")
            }
            return PredicateToken(kind: .integer(value, text: text), offset: start)
        }
        var text = ""
        var isInteger = true
        func digits() { while i < count, Self.isDigit(scalars[i]) { text.unicodeScalars.append(scalars[i]); i += 1 } }
        digits()
        if i < count, scalars[i] == ".", Self.isDigit(i + 1 < count ? scalars[i + 1] : nil) {
            isInteger = false
            text.append(".")
            i += 1
            digits()
        }
        if i < count, scalars[i] == "e" || scalars[i] == "E" {
            var j = i + 1
            var exponent = "e"
            if j < count, scalars[j] == "+" || scalars[j] == "-" { exponent.unicodeScalars.append(scalars[j]); j += 1 }
            if Self.isDigit(j < count ? scalars[j] : nil) {
                while j < count, Self.isDigit(scalars[j]) { exponent.unicodeScalars.append(scalars[j]); j += 1 }
                text += exponent
                isInteger = false
                i = j
            }
        }
        if text.hasPrefix(".") { text = "0" + text }
        if isInteger, let value = Int64(text) { return PredicateToken(kind: .integer(value, text: text), offset: start) }
        guard let value = Double(text) else { throw error(start, expected: "a number") }
        return PredicateToken(kind: .real(value, text: text), offset: start)
    }
}
