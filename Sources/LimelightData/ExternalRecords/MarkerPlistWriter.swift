import Foundation

/// Writes a marker's property list as XML directly, in the form `PropertyListSerialization` writes
/// (sorted keys, tab indents, dates to the second, data in base64).
///
/// Why not `PropertyListSerialization`: on Linux it builds the result through `NSData` and copies it
/// out byte by byte, which made encoding cost more than the rest of a save with markers on
/// (profiled: about half of all instructions of a 1,000-object save). A marker holds a handful of
/// values, so a small writer is enough.
enum MarkerPlistWriter {
    static func xml(_ root: [String: Any]) -> Data? {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        guard write(root, indent: "", into: &out) else { return nil }
        out += "</plist>\n"
        return Data(out.utf8)
    }

    /// False for a value a property list cannot hold.
    private static func write(_ value: Any, indent: String, into out: inout String) -> Bool {
        switch value {
        case let string as String:
            out += "\(indent)<string>\(escaped(string))</string>\n"
        case let bool as Bool:
            out += bool ? "\(indent)<true/>\n" : "\(indent)<false/>\n"
        case let int as Int:
            out += "\(indent)<integer>\(int)</integer>\n"
        case let double as Double:
            out += "\(indent)<real>\(real(double))</real>\n"
        case let date as Date:
            out += "\(indent)<date>\(dateText(date))</date>\n"
        case let data as Data:
            out += "\(indent)<data>\(data.base64EncodedString())</data>\n"
        case let array as [Any]:
            if array.isEmpty {
                out += "\(indent)<array/>\n"
                return true
            }
            out += "\(indent)<array>\n"
            for element in array where !write(element, indent: indent + "\t", into: &out) { return false }
            out += "\(indent)</array>\n"
        case let dictionary as [String: Any]:
            if dictionary.isEmpty {
                out += "\(indent)<dict/>\n"
                return true
            }
            out += "\(indent)<dict>\n"
            for key in dictionary.keys.sorted() {
                out += "\(indent)\t<key>\(escaped(key))</key>\n"
                guard let element = dictionary[key], write(element, indent: indent + "\t", into: &out) else { return false }
            }
            out += "\(indent)</dict>\n"
        default:
            return false
        }
        return true
    }

    private static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func real(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        return "\(value)"
    }

    /// ISO 8601 in UTC to the second, as XML property lists store dates.
    private static func dateText(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
