import Foundation

/// Reads an XML property list (`<plist><dict>…</dict></plist>`, or a bare value) through
/// `XMLReader`: element by element into Swift values, refusing what the property list format
/// does not allow with the line of the element at fault.
enum XMLPropertyListDecoder {
    static func decode(_ data: Data) throws(PropertyListReadError) -> Any {
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(data, keepsCarriageReturns: true)
        } catch {
            throw PropertyListReadError("malformed XML at \(error)")
        }
        return try decode(element: root)
    }

    /// The property list an element already read holds: a `<plist>`, or a bare value (a
    /// property list kept inside another XML document, such as an XML store's metadata).
    static func decode(element root: XMLTreeElement) throws(PropertyListReadError) -> Any {
        guard root.name == "plist" else { return try value(root, depth: 0) }
        guard root.children.count == 1, root.hasOnlyWhitespaceText else {
            throw failure("<plist> must hold exactly one value", root)
        }
        return try value(root.children[0], depth: 0)
    }

    private static func value(_ element: XMLTreeElement, depth: Int) throws(PropertyListReadError) -> Any {
        switch element.name {
        case "dict":
            return try dictionary(element, depth: depth)
        case "array":
            try requireContainer(element, depth: depth)
            var array: [Any] = []
            array.reserveCapacity(element.children.count)
            for child in element.children { array.append(try value(child, depth: depth + 1)) }
            return array
        case "string":
            return try text(of: element)
        case "integer":
            let text = try text(of: element)
            guard let number = integer(text) else { throw failure("'\(text)' is not an integer", element) }
            return number
        case "real":
            let text = try text(of: element)
            guard let number = real(text) else { throw failure("'\(text)' is not a real number", element) }
            return number
        case "true", "false":
            guard element.children.isEmpty, element.hasOnlyWhitespaceText else { throw failure("<\(element.name)/> holds something", element) }
            return element.name == "true"
        case "date":
            let text = try text(of: element)
            guard let date = ISO8601Timestamp.date(from: text) else { throw failure("'\(text)' is not a date", element) }
            return date
        case "data":
            // Base64 may be broken over lines and indented: only the white space goes.
            let digits = try text(of: element).utf8.filter { !XMLScanner.isWhitespace($0) }
            guard let data = Data(base64Encoded: Data(digits)) else { throw failure("<data> does not hold base64", element) }
            return data
        default:
            throw failure("<\(element.name)> is not a property list element", element)
        }
    }

    /// `<key>` and value pairs, in order.
    private static func dictionary(_ element: XMLTreeElement, depth: Int) throws(PropertyListReadError) -> [String: Any] {
        try requireContainer(element, depth: depth)
        let children = element.children
        guard children.count % 2 == 0 else { throw failure("<dict> has a key without a value", element) }
        var result: [String: Any] = [:]
        result.reserveCapacity(children.count / 2)
        var position = 0
        while position < children.count {
            let key = children[position]
            guard key.name == "key" else { throw failure("expected <key>, found <\(key.name)>", key) }
            result[try text(of: key)] = try value(children[position + 1], depth: depth + 1)
            position += 2
        }
        return result
    }

    private static func requireContainer(_ element: XMLTreeElement, depth: Int) throws(PropertyListReadError) {
        guard depth < PropertyListReader.maximumDepth else {
            throw failure("containers nested deeper than \(PropertyListReader.maximumDepth) levels", element)
        }
        guard element.hasOnlyWhitespaceText else { throw failure("<\(element.name)> holds text outside its elements", element) }
    }

    /// The character data of an element that may hold nothing else.
    private static func text(of element: XMLTreeElement) throws(PropertyListReadError) -> String {
        guard element.children.isEmpty else { throw failure("<\(element.name)> holds <\(element.children[0].name)>", element) }
        return element.text
    }

    /// Decimal or `0x` hexadecimal, signed: an `Int`, or a `UInt64` for a value above `Int.max`.
    /// No white space around it, as Foundation's reader allows none.
    static func integer(_ text: String) -> Any? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for character in digits.utf8 {
            let digit: UInt64
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(character - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(character - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { return nil }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        if magnitude <= UInt64(Int.max) { return Int(magnitude) }
        return magnitude
    }

    /// A number as `Double` reads it, or the spellings of infinity and not-a-number writers use.
    static func real(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return Double(text)
        }
    }

    private static func failure(_ reason: String, _ element: XMLTreeElement) -> PropertyListReadError {
        PropertyListReadError("\(reason) (line \(element.line))")
    }
}
