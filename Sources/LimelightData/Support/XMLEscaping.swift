/// Text made safe to write into XML, for every writer the project has: model files, property
/// lists, and elements kept from a model as they were read.
enum XMLEscaping {
    /// `&`, `<` and `>` as entities; a carriage return as a character reference, since a reader
    /// turns one written as it is into a line feed; in an attribute also `"`, and tab and line
    /// feed as references, since a reader turns those, written as they are, into spaces.
    static func escaped(_ text: String, inAttribute: Bool) -> String {
        let needsWork = text.utf8.contains { byte in
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0x0D: return true
            case UInt8(ascii: "\""), 0x09, 0x0A: return inAttribute
            default: return false
            }
        }
        guard needsWork else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
