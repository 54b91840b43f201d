import Foundation

/// A strict, non-validating XML 1.0 reader that turns a UTF-8 document into a tree of
/// `XMLTreeElement`s: for Xcode model files and XML property lists.
///
/// Why not FoundationXML: on Linux it is libxml2, and linking it makes every program load and
/// relocate libxml2, ICU, zlib and liblzma at start, used or not; and its parse of a model file
/// cost more than twice what building the model from it does. The files read here are small and
/// plain, so a byte scanner does.
///
/// Read: the XML declaration, processing instructions and comments (skipped), a `<!DOCTYPE>`
/// with or without an internal subset (skipped: entities it declares are not expanded, and
/// referring to one is an error), elements, attributes in either quote, CDATA sections, the five
/// predefined entities and character references. Line ends become line feeds (unless a property
/// list's reader asks to keep them), and tab, line feed and carriage return in attribute values
/// become spaces, as the specification says. Anything
/// not well-formed is refused with the line and column where it was found.
package enum XMLReader {
    /// Deeper nesting is refused: no file read here comes near it, and a hostile one must not
    /// exhaust the stack when the tree is walked or freed.
    package static let maximumDepth = 1000

    /// The root element of `data`. `keepsCarriageReturns` keeps carriage returns in text as
    /// written, as property-list readers do (Foundation's too), where the specification makes
    /// every line end a line feed: a property list's strings must read back as they were written.
    package static func parse(_ data: Data, keepsCarriageReturns: Bool = false) throws(XMLReaderError) -> XMLTreeElement {
        let outcome = data.withUnsafeBytes { raw -> Outcome in
            var scanner = XMLScanner(bytes: raw.bindMemory(to: UInt8.self), keepsCarriageReturns: keepsCarriageReturns)
            do throws(XMLReaderError) {
                return .parsed(try scanner.document())
            } catch {
                return .failed(error)
            }
        }
        switch outcome {
        case .parsed(let root): return root
        case .failed(let error): throw error
        }
    }

    /// How a parse inside `withUnsafeBytes` ended. Not `Result`: the runtime would look up its
    /// `Error` requirement by name the first time, a search through every conformance in the
    /// program, which cost a short-lived program more than the parse itself.
    private enum Outcome {
        case parsed(XMLTreeElement)
        case failed(XMLReaderError)
    }

    /// The root element of a document given as text.
    package static func parse(_ text: String) throws(XMLReaderError) -> XMLTreeElement {
        try parse(Data(text.utf8))
    }
}

/// Why a document was refused, and where (1-based line and column, the column in characters).
package struct XMLReaderError: Error, Equatable, CustomStringConvertible {
    package var reason: String
    package var line: Int
    package var column: Int

    package init(reason: String, line: Int, column: Int) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    package var description: String { "line \(line), column \(column): \(reason)" }
}

/// The scanning state: a position in the bytes of the document.
struct XMLScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var lines = LineCursor()
    /// Whether text keeps its carriage returns (see `XMLReader.parse`).
    let keepsCarriageReturns: Bool

    /// An element being read: its tree node, where its name is (to match the end tag), and its
    /// character data so far.
    private struct Frame {
        var element: XMLTreeElement
        var name: Range<Int>
        var text: [UInt8] = []
    }

    init(bytes: UnsafeBufferPointer<UInt8>, keepsCarriageReturns: Bool) {
        self.bytes = bytes
        self.keepsCarriageReturns = keepsCarriageReturns
    }

    mutating func document() throws(XMLReaderError) -> XMLTreeElement {
        try validateCharacters()
        if hasByteOrderMark { index = 3 }
        if starts(with: "<?xml"), index + 5 < bytes.count, Self.isWhitespace(bytes[index + 5]) { try xmlDeclaration() }
        var root: XMLTreeElement?
        var sawDoctype = false
        while true {
            skipWhitespace()
            guard index < bytes.count else { break }
            guard bytes[index] == UInt8(ascii: "<") else {
                throw failure(root == nil ? "text before the root element" : "text after the root element")
            }
            if starts(with: "<?") {
                try processingInstruction()
            } else if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<!DOCTYPE") {
                guard root == nil, !sawDoctype else { throw failure("a DOCTYPE is only allowed once, before the root element") }
                sawDoctype = true
                try doctype()
            } else if starts(with: "<!") {
                throw failure("unexpected '<!' outside the root element")
            } else {
                guard root == nil else { throw failure("a second element after the root element") }
                root = try element()
            }
        }
        guard let root else { throw failure("no root element") }
        return root
    }

    // MARK: Elements

    /// The element starting here and all its content, read with a stack rather than recursion.
    private mutating func element() throws(XMLReaderError) -> XMLTreeElement {
        let (first, firstName, closed) = try startTag()
        if closed { return first }
        var stack = [Frame(element: first, name: firstName)]
        while true {
            let top = stack.count - 1
            guard index < bytes.count else {
                throw failure("the file ends inside <\(stack[top].element.name)> (truncated?)")
            }
            switch bytes[index] {
            case UInt8(ascii: "<"):
                if starts(with: "</") {
                    var frame = stack.removeLast()
                    try endTag(of: frame)
                    frame.element.text = frame.text.isEmpty ? "" : String(decoding: frame.text, as: UTF8.self)
                    guard !stack.isEmpty else { return frame.element }
                    stack[stack.count - 1].element.children.append(frame.element)
                } else if starts(with: "<!--") {
                    try comment()
                } else if starts(with: "<![CDATA[") {
                    try cdata(into: &stack[top].text)
                } else if starts(with: "<?") {
                    try processingInstruction()
                } else if starts(with: "<!") {
                    throw failure("unexpected '<!' in content (only a comment or a CDATA section starts so)")
                } else {
                    let tagStart = index
                    let (child, name, closed) = try startTag()
                    if closed {
                        stack[top].element.children.append(child)
                    } else {
                        guard stack.count < XMLReader.maximumDepth else {
                            throw failure("elements nested deeper than \(XMLReader.maximumDepth) levels", at: tagStart)
                        }
                        stack.append(Frame(element: child, name: name))
                    }
                }
            case UInt8(ascii: "&"):
                try reference(into: &stack[top].text)
            default:
                try characterData(into: &stack[top].text)
            }
        }
    }

    /// A start tag: the element with its attributes, where its name is, and whether it was
    /// closed at once (`<name/>`).
    private mutating func startTag() throws(XMLReaderError) -> (XMLTreeElement, Range<Int>, closed: Bool) {
        let (line, column) = position(of: index)
        index += 1
        guard let nameRange = name() else { throw failure("expected an element name after '<'") }
        var element = XMLTreeElement(name: string(nameRange), line: line, column: column)
        var seen: Set<String>?
        while true {
            let spaced = skipWhitespace()
            guard index < bytes.count else { throw failure("the file ends inside the start tag of <\(element.name)> (truncated?)") }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                return (element, nameRange, false)
            }
            if bytes[index] == UInt8(ascii: "/") {
                guard starts(with: "/>") else { throw failure("expected '>' after '/' in the start tag of <\(element.name)>") }
                index += 2
                return (element, nameRange, true)
            }
            guard spaced else { throw failure("expected white space, '>' or '/>' in the start tag of <\(element.name)>") }
            let attributeStart = index
            guard let attributeName = name() else { throw failure("expected an attribute name, '>' or '/>' in the start tag of <\(element.name)>") }
            let key = string(attributeName)
            let value = try attributeValue(named: key)
            // A scan for the few attributes elements have; a set once there are many, so that a
            // hostile element cannot make the check quadratic.
            if element.attributes.count == 16 { seen = Set(element.attributes.map(\.name)) }
            let repeated = seen != nil ? seen?.insert(key).inserted == false : element.attributes.contains { $0.name == key }
            if repeated {
                throw failure("attribute '\(key)' given twice in <\(element.name)>", at: attributeStart)
            }
            element.attributes.append((key, value))
        }
    }

    /// `=` and a quoted value, from just after an attribute's name (also the XML declaration's).
    mutating func attributeValue(named key: String) throws(XMLReaderError) -> String {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw failure("expected '=' after attribute name '\(key)'") }
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw failure("the value of attribute '\(key)' must be in quotes")
        }
        let quote = bytes[index]
        index += 1
        let start = index
        // Most values hold nothing to replace: taken as they are.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == 0x09 || byte == 0x0A || byte == 0x0D { break }
            index += 1
        }
        if index < bytes.count, bytes[index] == quote {
            index += 1
            return string(start..<index - 1)
        }
        var value = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw failure("the file ends inside the value of attribute '\(key)' (truncated?)") }
            let byte = bytes[index]
            switch byte {
            case quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"):
                throw failure("'<' is not allowed in an attribute value (write &lt;)")
            case UInt8(ascii: "&"):
                try reference(into: &value)
            case 0x0D:
                // A line end is one space, however it was written.
                index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                value.append(0x20)
            case 0x09, 0x0A:
                index += 1
                value.append(0x20)
            default:
                index += 1
                value.append(byte)
            }
        }
    }

    /// `</name>` closing `frame`'s element.
    private mutating func endTag(of frame: Frame) throws(XMLReaderError) {
        let tagStart = index
        index += 2
        guard let closing = name() else { throw failure("expected an element name after '</'") }
        guard closing.count == frame.name.count, bytes[closing].elementsEqual(bytes[frame.name]) else {
            throw failure("</\(string(closing))> does not close <\(frame.element.name)> (opened at line \(frame.element.line))", at: tagStart)
        }
        skipWhitespace()
        guard index < bytes.count else { throw failure("the file ends inside the end tag of <\(frame.element.name)> (truncated?)") }
        guard bytes[index] == UInt8(ascii: ">") else { throw failure("expected '>' to end </\(frame.element.name)>") }
        index += 1
    }

    // MARK: Character data

    /// Text up to the next markup or reference, line ends made line feeds.
    private mutating func characterData(into text: inout [UInt8]) throws(XMLReaderError) {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") || (byte == 0x0D && !keepsCarriageReturns) { break }
            if byte == UInt8(ascii: ">"), index - start >= 2, bytes[index - 1] == UInt8(ascii: "]"), bytes[index - 2] == UInt8(ascii: "]") {
                throw failure("']]>' is not allowed in text", at: index - 2)
            }
            index += 1
        }
        text.append(contentsOf: bytes[start..<index])
        if index < bytes.count, bytes[index] == 0x0D {
            index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
            text.append(0x0A)
        }
    }

    /// `<![CDATA[` … `]]>`: its text as written, line ends made line feeds.
    private mutating func cdata(into text: inout [UInt8]) throws(XMLReaderError) {
        let opening = index
        index += 9
        guard let end = find("]]>") else { throw failure("the file ends inside a CDATA section (truncated?)", at: opening) }
        var position = index
        while position < end {
            if bytes[position] == 0x0D, !keepsCarriageReturns {
                text.append(0x0A)
                position += position + 1 < end && bytes[position + 1] == 0x0A ? 2 : 1
            } else {
                text.append(bytes[position])
                position += 1
            }
        }
        index = end + 3
    }

    /// `&name;` or `&#…;`, replaced by what it stands for.
    private mutating func reference(into text: inout [UInt8]) throws(XMLReaderError) {
        let start = index
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            index += 1
            let hex = index < bytes.count && bytes[index] == UInt8(ascii: "x")
            if hex { index += 1 }
            var value: UInt32 = 0
            var digits = 0
            while index < bytes.count, let digit = Self.digit(bytes[index], hex: hex) {
                value = value * (hex ? 16 : 10) + digit
                guard value <= 0x10FFFF else { throw failure("character reference beyond U+10FFFF", at: start) }
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
                throw failure("malformed character reference (expected &#digits; or &#xhex;)", at: start)
            }
            index += 1
            guard Self.isXMLCharacter(value), let scalar = Unicode.Scalar(value) else {
                throw failure("character reference to U+\(String(value, radix: 16, uppercase: true)), which XML does not allow", at: start)
            }
            UTF8.encode(scalar) { text.append($0) }
            return
        }
        guard let entity = name(), index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
            throw failure("'&' must start an entity reference (write &amp; for '&')", at: start)
        }
        index += 1
        switch string(entity) {
        case "amp": text.append(UInt8(ascii: "&"))
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "quot": text.append(UInt8(ascii: "\""))
        case "apos": text.append(UInt8(ascii: "'"))
        case let other: throw failure("unknown entity '&\(other);'", at: start)
        }
    }

    private static func digit(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// The `Char` production of the specification.
    private static func isXMLCharacter(_ value: UInt32) -> Bool {
        value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    }
}
