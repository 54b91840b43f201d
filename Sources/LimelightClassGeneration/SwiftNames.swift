import Foundation

/// What the generator needs to know about Swift's names: which words are keywords, what an
/// identifier is, and what may stand for a type.
enum SwiftNames {
    /// Words that cannot name a property without backticks: Swift's keywords used in
    /// declarations, statements and expressions, and the contextual ones that would be read as
    /// such in a property's declaration. Backticks on any of them are harmless.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
    ]

    /// Whether `name` is an identifier Swift accepts (with backticks when it is a keyword):
    /// letters, digits and underscores, not starting with a digit. Core Data's names are ASCII.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// `name` as it is written in a declaration or a member access: in backticks if a keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Whether `text` can be written as a Swift type as it stands: a dotted name with generic
    /// arguments, or an array or dictionary of such (`Tags`, `[String]`, `[String: Int]`,
    /// `Swift.Set<Foundation.URL>`). Anything else (Objective-C syntax, `id`, pointers) is not.
    static func isPlausibleTypeName(_ text: String) -> Bool {
        var scanner = TypeScanner(text.unicodeScalars.filter { $0 != " " })
        return scanner.type() && scanner.isAtEnd
    }

    /// The class name an entity's `representedClassName` gives in Swift: without the module Xcode
    /// prefixes (`.Recipe` for the current module, `MyApp.Recipe`); `nil` when it names no class
    /// of the application's (absent, or Core Data's own `NSManagedObject`).
    static func className(fromRepresented represented: String?) -> String? {
        guard var name = represented?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
        if let dot = name.firstIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        return name == "NSManagedObject" || name == "ManagedObject" ? nil : name
    }

    /// A type name made of `text`'s words: `my-model` → `MyModel`, `2024 data` → `Model2024Data`.
    static func typeName(from text: String) -> String {
        let words = text.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
        let joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = joined.first, !first.isNumber else { return "Model" + joined }
        return joined
    }
}

/// Reads a type's text: `name(.name)*(<type(, type)*>)?`, `[type]` or `[type: type]`.
private struct TypeScanner {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var isAtEnd: Bool { position == scalars.count }

    mutating func type() -> Bool {
        if take("[") {
            guard type() else { return false }
            if take(":") { guard type() else { return false } }
            return take("]")
        }
        guard name() else { return false }
        while take(".") { guard name() else { return false } }
        if take("<") {
            repeat { guard type() else { return false } } while take(",")
            return take(">")
        }
        return true
    }

    private mutating func name() -> Bool {
        let start = position
        while position < scalars.count, scalars[position].isASCII,
              scalars[position].properties.isAlphabetic || scalars[position] == "_" || (position > start && ("0"..."9").contains(scalars[position])) {
            position += 1
        }
        return position > start
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard position < scalars.count, scalars[position] == scalar else { return false }
        position += 1
        return true
    }
}
