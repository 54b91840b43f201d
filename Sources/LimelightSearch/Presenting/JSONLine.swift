import Foundation

/// A JSON value on one line, keys sorted and slashes left as they are: how the programs print
/// JSON, so that the same value always reads the same and paths stay legible.
public enum JSONLine {
    public static func text(_ value: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
