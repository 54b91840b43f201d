import Foundation

/// Reads an archived `NSPredicate` (a fetched property's or a fetch request template's, or an
/// attribute's validation rule) back into the format string this framework parses.
///
/// Covers comparisons with their modifiers and options, compounds, `TRUEPREDICATE` and
/// `FALSEPREDICATE`, and expressions that are constants, key paths, variables, `SELF`, functions
/// and literal collections. Anything else (subqueries, custom selectors, blocks) throws, naming
/// the archived class, so a caller can leave the property out rather than change its meaning.
struct ArchivedPredicate {
    let archive: KeyedArchive
    /// Reads what a mapping model's expressions hold and a model's predicates must not: functions
    /// sent to a variable (`FUNCTION($manager, "selector:", …)`), arithmetic, and `FETCH(…)`.
    var allowsMethodCalls = false

    /// A bound or pattern that a validation predicate states.
    enum ValidationRule: Equatable {
        case minimum(Double)
        case maximum(Double)
        case pattern(String)
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Deeper nesting is refused: no written predicate comes near it, and reading recurses.
    private static let maximumDepth = 64

    /// The parts one read may visit. Archived objects may be shared: a predicate whose two
    /// operands are one predicate, whose two are another, and so on, is a few objects in the
    /// archive but 2^64 parts to write out, so visits are counted, not just nesting.
    let parts = PartCount()

    final class PartCount {
        static let maximum = 10_000
        private var visited = 0

        func visit() throws {
            visited += 1
            guard visited <= Self.maximum else {
                throw Unreadable(description: "the predicate has more than \(Self.maximum) parts (its archived objects are shared over and over)")
            }
        }
    }

    func format(_ predicate: KeyedArchive.Object) throws -> String {
        try format(predicate, depth: 0)
    }

    /// An archived `NSExpression` (a derived attribute's) as the format text that writes it.
    func expressionFormat(_ expression: KeyedArchive.Object) throws -> String {
        try self.expression(expression, depth: 0)
    }

    /// The rule a validation predicate of Core Data's shapes states: `SELF >= n`, `length <= n`,
    /// `timeIntervalSinceReferenceDate >= n`, `SELF MATCHES 'pattern'`; `nil` for any other.
    func validationRule(_ predicate: KeyedArchive.Object) throws -> ValidationRule? {
        guard try archive.className(of: predicate) == "NSComparisonPredicate",
              let operatorObject = try archive.object(predicate.fields["NSPredicateOperator"]),
              let left = try archive.object(predicate.fields["NSLeftExpression"]),
              let right = try archive.object(predicate.fields["NSRightExpression"]) else { return nil }
        let subject = try expression(left, depth: 1)
        guard ["SELF", "length", "timeIntervalSinceReferenceDate"].contains(subject) else { return nil }
        let constant = try archive.value(right.fields["NSConstantValue"])
        let number = (constant as? Int).map(Double.init) ?? constant as? Double
        switch operatorObject.fields["NSOperatorType"] as? Int {
        case 3?: return number.map(ValidationRule.minimum)
        case 1?: return number.map(ValidationRule.maximum)
        case 6?: return (constant as? String).map(ValidationRule.pattern)
        default: return nil
        }
    }

    // MARK: Predicates

    private func format(_ predicate: KeyedArchive.Object, depth: Int) throws -> String {
        guard depth < Self.maximumDepth else { throw Unreadable(description: "the predicate nests too deeply") }
        try parts.visit()
        let className = try archive.className(of: predicate)
        switch className {
        case "NSTruePredicate": return "TRUEPREDICATE"
        case "NSFalsePredicate": return "FALSEPREDICATE"
        case "NSCompoundPredicate":
            let parts = try archive.elements(predicate.fields["NSSubpredicates"]).map { reference -> String in
                guard let sub = try archive.object(reference) else { throw Unreadable(description: "an empty subpredicate") }
                return "(\(try format(sub, depth: depth + 1)))"
            }
            switch predicate.fields["NSCompoundPredicateType"] as? Int {
            case 0?:
                guard parts.count == 1, let only = parts.first else { throw Unreadable(description: "NOT of \(parts.count) predicates") }
                return "NOT \(only)"
            case 1?: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
            case 2?: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
            default: throw Unreadable(description: "an unknown compound predicate type")
            }
        case "NSComparisonPredicate":
            return try comparison(predicate, depth: depth)
        default:
            throw Unreadable(description: "\(className) predicates are not supported")
        }
    }

    private func comparison(_ predicate: KeyedArchive.Object, depth: Int) throws -> String {
        guard let operatorObject = try archive.object(predicate.fields["NSPredicateOperator"]),
              let left = try archive.object(predicate.fields["NSLeftExpression"]),
              let right = try archive.object(predicate.fields["NSRightExpression"]) else {
            throw Unreadable(description: "a comparison without its operator or operands")
        }
        let type = operatorObject.fields["NSOperatorType"] as? Int ?? -1
        guard var symbol = Self.operatorSymbols[type] else {
            throw Unreadable(description: "comparison operator \(type) (\(try archive.className(of: operatorObject))) is not supported")
        }
        if operatorObject.fields["NSNegate"] as? Bool == true {
            guard type == 4 || type == 5 else { throw Unreadable(description: "a negated \(symbol)") }
            symbol = type == 4 ? "!=" : "=="
        }
        let options = operatorObject.fields["NSOptions"] as? Int ?? 0
        let letters = (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "") + (options & 4 != 0 ? "n" : "")
        if !letters.isEmpty { symbol += "[\(letters)]" }
        let modifier: String
        switch operatorObject.fields["NSModifier"] as? Int ?? 0 {
        case 0: modifier = ""
        case 1: modifier = "ALL "
        case 2: modifier = "ANY "
        case let other: throw Unreadable(description: "comparison modifier \(other)")
        }
        return "\(modifier)\(try expression(left, depth: depth + 1)) \(symbol) \(try expression(right, depth: depth + 1))"
    }

    /// The arithmetic selectors and the operators the format language writes them with.
    private static let infixSymbols = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**"]

    /// `NSPredicateOperatorType` values and how a format string writes them.
    private static let operatorSymbols: [Int: String] = [
        0: "<", 1: "<=", 2: ">", 3: ">=", 4: "==", 5: "!=", 6: "MATCHES", 7: "LIKE", 8: "BEGINSWITH", 9: "ENDSWITH",
        10: "IN", 99: "CONTAINS", 100: "BETWEEN",
    ]

    // MARK: Expressions

    private func expression(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        guard depth < Self.maximumDepth else { throw Unreadable(description: "the predicate nests too deeply") }
        try parts.visit()
        let className = try archive.className(of: object)
        switch className {
        case "NSSelfExpression": return "SELF"
        case "NSVariableExpression":
            guard let name = try archive.string(object.fields["NSVariable"]) else { throw Unreadable(description: "a variable without a name") }
            return "$" + name
        case "NSKeyPathSpecifierExpression":
            guard let path = try archive.string(object.fields["NSKeyPath"]) else { throw Unreadable(description: "a key path without its path") }
            return PredicatePrinter.keyPath(path)
        case "NSConstantValueExpression":
            return try constant(object.fields["NSConstantValue"], depth: depth)
        case "NSAggregateExpression":
            let items = try archive.elements(object.fields["NSCollection"]).map { reference -> String in
                guard let item = try archive.object(reference) else { return "nil" }
                return try expression(item, depth: depth + 1)
            }
            return "{" + items.joined(separator: ", ") + "}"
        case "NSKeyPathExpression", "NSFunctionExpression":
            return try function(object, depth: depth)
        case "NSFetchRequestExpression" where allowsMethodCalls:
            guard let request = try archive.object(object.fields["NSFRExpression"]),
                  let context = try archive.object(object.fields["NSMOCExpression"]) else {
                throw Unreadable(description: "a fetch expression without its request or context")
            }
            let countOnly = object.fields["NSCountOnlyFlag"] as? Bool == true
            return "FETCH(\(try expression(request, depth: depth + 1)), \(try expression(context, depth: depth + 1)), \(countOnly ? "YES" : "NO"))"
        default:
            throw Unreadable(description: "\(className) expressions are not supported")
        }
    }

    /// A function expression; key paths are archived as one (`valueForKeyPath:` sent to `SELF`).
    private func function(_ object: KeyedArchive.Object, depth: Int) throws -> String {
        guard let selector = try archive.string(object.fields["NSSelectorName"]) else {
            throw Unreadable(description: "a function expression without its selector")
        }
        let arguments = try archive.elements(object.fields["NSArguments"]).map { reference -> String in
            guard let argument = try archive.object(reference) else { return "nil" }
            return try expression(argument, depth: depth + 1)
        }
        let operandObject = try archive.object(object.fields["NSOperand"])
        // Functions such as `count:` are sent to a class, archived as a constant naming it.
        let sentToClass = operandObject?.fields["NSConstantValueClassName"] != nil
        let operand = sentToClass ? nil : try operandObject.map { try expression($0, depth: depth + 1) }
        if selector == "valueForKeyPath:" || selector == "valueForKey:" {
            guard arguments.count == 1, var path = arguments.first else { throw Unreadable(description: "\(selector) without one key path") }
            // A key given as a constant string is a key, not text.
            if path.hasPrefix("\""), path.hasSuffix("\""), path.count >= 2 { path = PredicatePrinter.keyPath(String(path.dropFirst().dropLast())) }
            guard let operand, operand != "SELF" else { return path }
            return operand + "." + path
        }
        if allowsMethodCalls, let operand, operand != "SELF" {
            return "FUNCTION(" + ([operand, Self.quoted(selector)] + arguments).joined(separator: ", ") + ")"
        }
        guard operand == nil || operand == "SELF" else {
            throw Unreadable(description: "function \(selector) sent to \(operand ?? "")")
        }
        if allowsMethodCalls, let symbol = Self.infixSymbols[selector], arguments.count == 2 {
            return "(\(arguments[0]) \(symbol) \(arguments[1]))"
        }
        let name = selector.hasSuffix(":") ? String(selector.dropLast()) : selector
        return "\(name)(\(arguments.joined(separator: ", ")))"
    }

    private func constant(_ field: Any?, depth: Int) throws -> String {
        switch try archive.value(field) {
        case nil: return "nil"
        case let flag as Bool: return flag ? "YES" : "NO"
        case let number as Int: return String(number)
        case let number as Double: return String(number)
        case let text as String: return Self.quoted(text)
        case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let object as KeyedArchive.Object:
            // An array or set of constants.
            guard let elements = object.fields["NS.objects"] as? [Any] else {
                throw Unreadable(description: "a constant of class \(try archive.className(of: object))")
            }
            guard depth < Self.maximumDepth else { throw Unreadable(description: "the predicate nests too deeply") }
            return "{" + (try elements.map { try constant($0, depth: depth + 1) }).joined(separator: ", ") + "}"
        case let other?:
            throw Unreadable(description: "a constant of type \(type(of: other))")
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
