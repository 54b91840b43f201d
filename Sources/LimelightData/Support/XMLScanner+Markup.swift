/// The parts of a document the reader checks and steps over without keeping: the XML
/// declaration, processing instructions, comments and the document type declaration.
extension XMLScanner {
    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` at the very start: only UTF-8
    /// (or its subset ASCII) is read, so a document saying it is in another encoding is refused
    /// rather than misread.
    mutating func xmlDeclaration() throws(XMLReaderError) {
        let start = index
        index += 5
        var sawVersion = false
        while true {
            let spaced = skipWhitespace()
            guard index < bytes.count else { throw failure("the file ends inside the XML declaration (truncated?)", at: start) }
            if starts(with: "?>") {
                index += 2
                break
            }
            let keyStart = index
            guard spaced, let keyRange = name() else { throw failure("malformed XML declaration") }
            let key = string(keyRange)
            let value = try attributeValue(named: key)
            switch key {
            case "version":
                guard value.hasPrefix("1."), value.count > 2 else { throw failure("unsupported XML version '\(value)'", at: keyStart) }
                sawVersion = true
            case "encoding":
                guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(value.lowercased()) else {
                    throw failure("unsupported encoding '\(value)' (only UTF-8 is read)", at: keyStart)
                }
            case "standalone":
                guard value == "yes" || value == "no" else { throw failure("standalone must be 'yes' or 'no', not '\(value)'", at: keyStart) }
            default:
                throw failure("'\(key)' does not belong in the XML declaration", at: keyStart)
            }
        }
        guard sawVersion else { throw failure("the XML declaration has no version", at: start) }
    }

    /// `<?target …?>`, skipped.
    mutating func processingInstruction() throws(XMLReaderError) {
        let start = index
        index += 2
        guard let target = name() else { throw failure("expected a name after '<?'") }
        guard string(target).lowercased() != "xml" else {
            throw failure("an XML declaration is only allowed at the very start of the file", at: start)
        }
        guard let end = find("?>") else { throw failure("the file ends inside a processing instruction (truncated?)", at: start) }
        guard end == index || Self.isWhitespace(bytes[index]) else { throw failure("expected white space or '?>' after '<?\(string(target))'") }
        index = end + 2
    }

    /// `<!-- … -->`, skipped; `--` may not appear inside.
    mutating func comment() throws(XMLReaderError) {
        let start = index
        index += 4
        guard let dashes = find("--"), dashes + 2 < bytes.count else {
            throw failure("the file ends inside a comment (truncated?)", at: start)
        }
        guard bytes[dashes + 2] == UInt8(ascii: ">") else { throw failure("'--' is not allowed inside a comment", at: dashes) }
        index = dashes + 3
    }

    /// `<!DOCTYPE name …>` with its external identifier and internal subset, skipped: quoted
    /// strings, comments and processing instructions inside are stepped over whole, so a `>` or
    /// `]` in them does not end it early.
    mutating func doctype() throws(XMLReaderError) {
        let start = index
        index += 9
        guard skipWhitespace(), name() != nil else { throw failure("expected the root element's name after <!DOCTYPE") }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                try skipQuoted(within: start)
            case UInt8(ascii: "["):
                index += 1
                try internalSubset(within: start)
            case UInt8(ascii: ">"):
                index += 1
                return
            default:
                index += 1
            }
        }
        throw failure("the file ends inside the DOCTYPE (truncated?)", at: start)
    }

    private mutating func internalSubset(within doctypeStart: Int) throws(XMLReaderError) {
        while index < bytes.count {
            if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<?") {
                try processingInstruction()
            } else {
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "'"): try skipQuoted(within: doctypeStart)
                case UInt8(ascii: "]"):
                    index += 1
                    return
                default: index += 1
                }
            }
        }
        throw failure("the file ends inside the DOCTYPE's internal subset (truncated?)", at: doctypeStart)
    }

    private mutating func skipQuoted(within doctypeStart: Int) throws(XMLReaderError) {
        let quote = bytes[index]
        index += 1
        while index < bytes.count, bytes[index] != quote { index += 1 }
        guard index < bytes.count else { throw failure("the file ends inside a quoted string in the DOCTYPE (truncated?)", at: doctypeStart) }
        index += 1
    }
}
