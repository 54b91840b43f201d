import Foundation

/// The command line of a desktop file's `Exec=` key, as the Desktop Entry Specification defines it:
/// the value's string escapes (`\s \n \t \r \\`), then arguments split on spaces, double-quoted
/// arguments with `\"`, `` \` ``, `\$` and `\\` inside, and field codes expanded.
public struct DesktopEntryExec: Equatable, Sendable {
    /// The arguments before field-code expansion (`%f` still in place).
    public let arguments: [String]

    /// Reads the `Exec=` of the `[Desktop Entry]` group (actions' groups have their own).
    public init?(desktopFileText text: String) {
        guard let value = DesktopEntry(text: text).value(forKey: "Exec"),
              let parsed = try? Self.split(Self.unescapeValue(value)), !parsed.isEmpty else { return nil }
        arguments = parsed
    }

    public init(arguments: [String]) { self.arguments = arguments }

    /// The command for opening `file`: `%f %F %u %U` become the file, `%i %c %k` and the deprecated
    /// codes go, `%%` is a percent sign. Without a file code the file is appended, as launchers do.
    public func command(for file: String) -> [String] {
        var result: [String] = []
        var usedFile = false
        for argument in arguments {
            switch argument {
            case "%f", "%F", "%u", "%U":
                result.append(file)
                usedFile = true
            case "%i", "%c", "%k", "%d", "%D", "%n", "%N", "%v", "%m":
                continue
            default:
                result.append(argument.replacingOccurrences(of: "%%", with: "%"))
            }
        }
        if !usedFile { result.append(file) }
        return result
    }

    public struct SyntaxError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The general escapes of a desktop-file string value.
    public static func unescapeValue(_ value: String) -> String {
        var result = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\", let next = iterator.next() else { result.append(character); continue }
            switch next {
            case "s": result.append(" ")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            default: result.append("\\"); result.append(next)
            }
        }
        return result
    }

    /// Splits an unescaped Exec value into arguments, honouring double quotes.
    public static func split(_ value: String) throws -> [String] {
        var arguments: [String] = []
        var current = ""
        var inArgument = false
        var quoted = false
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            if quoted {
                switch character {
                case "\"": quoted = false
                case "\\":
                    guard let next = iterator.next() else { throw SyntaxError(description: "Exec= ends inside an escape") }
                    guard "\"`$\\".contains(next) else { throw SyntaxError(description: "Exec= has a stray backslash before '\(next)'") }
                    current.append(next)
                default: current.append(character)
                }
            } else if character == " " || character == "\t" {
                if inArgument { arguments.append(current); current = ""; inArgument = false }
            } else if character == "\"" {
                quoted = true
                inArgument = true
            } else {
                current.append(character)
                inArgument = true
            }
        }
        guard !quoted else { throw SyntaxError(description: "Exec= has an unclosed quote") }
        if inArgument { arguments.append(current) }
        return arguments
    }
}
