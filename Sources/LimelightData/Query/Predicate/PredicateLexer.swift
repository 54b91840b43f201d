import Foundation

/// A token of the predicate format language.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)       // key path component or keyword, as written
        case escapedIdentifier(String) // #keyword: always a key
        case string(String)
        case number(Double, isInteger: Bool, text: String)
        case variable(String)
        case format(Character)         // %@ %K %d %i %f %s …
        case symbol(String)            // operators and punctuation
        case end
    }

    let kind: Kind
    let offset: Int
}

/// Splits a format string into tokens. Never traps: malformed input becomes an error.
struct PredicateLexer {
    let characters: [Character]
    let format: String

    init(_ format: String) {
        self.format = format
        self.characters = Array(format)
    }

    func error(_ offset: Int, expected: String) -> PredicateParseError {
        let found = offset < characters.count ? "'\(characters[offset])'" : "end of string"
        return PredicateParseError(format: format, offset: offset, found: found, expected: expected)
    }

    func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        var i = 0
        let count = characters.count
        func peek(_ offset: Int = 0) -> Character? { i + offset < count ? characters[i + offset] : nil }
        while i < count {
            let c = characters[i]
            if c.isWhitespace { i += 1; continue }
            let start = i
            if c == "\"" || c == "'" {
                i += 1
                var text = ""
                var closed = false
                while i < count {
                    let d = characters[i]
                    if d == c { closed = true; i += 1; break }
                    if d == "\\" {
                        guard i + 1 < count else { break }
                        let e = characters[i + 1]
                        i += 2
                        switch e {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        case "0": text.append("\0")
                        case "u":
                            guard i + 4 <= count, let code = UInt32(String(characters[i..<i + 4]), radix: 16),
                                  let scalar = Unicode.Scalar(code) else { throw error(i, expected: "four hex digits after \\u") }
                            text.unicodeScalars.append(scalar)
                            i += 4
                        default: text.append(e)
                        }
                        continue
                    }
                    text.append(d)
                    i += 1
                }
                guard closed else { throw error(count, expected: "closing \(c)") }
                tokens.append(PredicateToken(kind: .string(text), offset: start))
                continue
            }
            if c.isNumber && c.isASCII || (c == "." && (peek(1)?.isNumber ?? false) && (peek(1)?.isASCII ?? false)) {
                tokens.append(try number(&i, start: start))
                continue
            }
            if c == "$" {
                i += 1
                let name = identifierText(&i)
                guard !name.isEmpty else { throw error(i, expected: "a variable name after $") }
                tokens.append(PredicateToken(kind: .variable(name), offset: start))
                continue
            }
            if c == "%" {
                i += 1
                var spec = peek()
                if spec == "l" { i += 1; if peek() == "l" { i += 1 }; spec = peek() }
                guard let letter = spec, "@KdiufsxXcegEG%".contains(letter) else { throw error(i, expected: "a format specifier such as %@ or %K") }
                i += 1
                tokens.append(PredicateToken(kind: letter == "%" ? .symbol("%") : .format(letter), offset: start))
                continue
            }
            if c == "#" {
                i += 1
                let name = identifierText(&i)
                guard !name.isEmpty else { throw error(i, expected: "a name after #") }
                tokens.append(PredicateToken(kind: .escapedIdentifier(name), offset: start))
                continue
            }
            if c.isLetter || c == "_" || c == "@" {
                let name = identifierText(&i)
                tokens.append(PredicateToken(kind: .identifier(name), offset: start))
                continue
            }
            let two = i + 1 < count ? String(characters[i...i + 1]) : ""
            if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"].contains(two) {
                tokens.append(PredicateToken(kind: .symbol(two), offset: start))
                i += 2
                continue
            }
            if "=<>!(){}[],.+-*/:".contains(c) {
                tokens.append(PredicateToken(kind: .symbol(String(c)), offset: start))
                i += 1
                continue
            }
            throw error(i, expected: "an operator, a name, a number or a string")
        }
        tokens.append(PredicateToken(kind: .end, offset: count))
        return tokens
    }

    /// Letters, digits, `_`, `@`, and `:` when it is part of a selector (`raise:toPower:`).
    private func identifierText(_ i: inout Int) -> String {
        var text = ""
        while i < characters.count {
            let c = characters[i]
            if c.isLetter || c.isNumber || c == "_" || c == "@" || c == "-" && text.lowercased() == "uti" {
                text.append(c)
                i += 1
            } else if c == ":" && !text.isEmpty && !text.hasPrefix("@") {
                text.append(c)
                i += 1
            } else {
                break
            }
        }
        return text
    }

    private func number(_ i: inout Int, start: Int) throws -> PredicateToken {
        let count = characters.count
        if characters[i] == "0", i + 1 < count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][characters[i + 1]] {
            i += 2
            var digits = ""
            while i < count, characters[i].isHexDigit { digits.append(characters[i]); i += 1 }
            guard let value = Int64(digits, radix: radix) else { throw error(i, expected: "digits for a base-\(radix) number") }
            return PredicateToken(kind: .number(Double(value), isInteger: true, text: String(characters[start..<i])), offset: start)
        }
        var text = ""
        var isInteger = true
        while i < count, characters[i].isASCII, characters[i].isNumber { text.append(characters[i]); i += 1 }
        if i < count, characters[i] == ".", i + 1 < count, characters[i + 1].isASCII, characters[i + 1].isNumber {
            isInteger = false
            text.append(".")
            i += 1
            while i < count, characters[i].isASCII, characters[i].isNumber { text.append(characters[i]); i += 1 }
        } else if i < count, characters[i] == ".", !(i + 1 < count && characters[i + 1].isLetter) {
            isInteger = false
            i += 1
        }
        if i < count, characters[i] == "e" || characters[i] == "E" {
            var j = i + 1
            var exponent = "e"
            if j < count, characters[j] == "+" || characters[j] == "-" { exponent.append(characters[j]); j += 1 }
            if j < count, characters[j].isASCII, characters[j].isNumber {
                while j < count, characters[j].isASCII, characters[j].isNumber { exponent.append(characters[j]); j += 1 }
                text += exponent
                isInteger = false
                i = j
            }
        }
        guard let value = Double(text.isEmpty ? "0" : text) else { throw error(start, expected: "a number") }
        return PredicateToken(kind: .number(value, isInteger: isInteger && abs(value) < 9.2e18, text: text), offset: start)
    }
}
