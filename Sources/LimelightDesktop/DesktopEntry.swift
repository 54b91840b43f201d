import Foundation

/// The keys of a desktop file's `[Desktop Entry]` group, as the Desktop Entry Specification lays
/// them out: `Key=Value` lines under a `[Group]` header, `#` comments, blank lines. Localized keys
/// (`Name[fr]=`) are kept under their full name; other groups (actions') are skipped.
public struct DesktopEntry: Equatable, Sendable {
    /// Values by key, unescaped only of surrounding whitespace; the first of a repeated key wins.
    public let values: [String: String]

    public init(text: String) {
        var values: [String: String] = [:]
        var group = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { group = line; continue }
            guard group == "[Desktop Entry]", !line.hasPrefix("#") else { continue }
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            if values[key] == nil { values[key] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        self.values = values
    }

    public func value(forKey key: String) -> String? { values[key] }
}
