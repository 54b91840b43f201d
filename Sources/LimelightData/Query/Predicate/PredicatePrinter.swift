import Foundation

/// Prints predicates as canonical format strings that parse back to equal predicates.
enum PredicatePrinter {
    static func format(_ predicate: QueryPredicate) -> String {
        switch predicate {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .not(let inner):
            if case .comparison(let c) = inner, c.modifier == .any, case .keyPath = c.left {
                return "NONE " + comparisonBody(c)
            }
            return "NOT " + wrapped(inner)
        // Empty compounds (built in code) print as what they mean: AND of nothing holds, OR fails.
        case .and(let parts): return parts.isEmpty ? "TRUEPREDICATE" : parts.map(wrapped).joined(separator: " AND ")
        case .or(let parts): return parts.isEmpty ? "FALSEPREDICATE" : parts.map(wrapped).joined(separator: " OR ")
        case .comparison(let comparison):
            switch comparison.modifier {
            case .direct: return comparisonBody(comparison)
            case .any: return "ANY " + comparisonBody(comparison)
            case .all: return "ALL " + comparisonBody(comparison)
            }
        }
    }

    private static func wrapped(_ predicate: QueryPredicate) -> String {
        switch predicate {
        case .and, .or: return "(" + format(predicate) + ")"
        default: return format(predicate)
        }
    }

    private static func comparisonBody(_ c: ComparisonPredicate) -> String {
        var options = ""
        if !c.options.isEmpty {
            options = "["
            if c.options.contains(.caseInsensitive) { options += "c" }
            if c.options.contains(.diacriticInsensitive) { options += "d" }
            if c.options.contains(.normalized) { options += "n" }
            options += "]"
        }
        return "\(format(c.left)) \(c.operatorType.rawValue)\(options) \(format(c.right))"
    }

    static func format(_ expression: QueryExpression) -> String {
        switch expression {
        case .constant(let constant): return literal(constant.value)
        case .evaluatedObject: return "SELF"
        case .anyKey: return "ANYKEY"
        case .variable(let name): return "$" + name
        case .keyPath(let path): return keyPath(path)
        case .keyPathOf(let base, let path): return operand(base) + "." + keyPath(path)
        case .aggregate(let items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))"
        case .conditional(let condition, let yes, let no): return "TERNARY(\(format(condition)), \(format(yes)), \(format(no)))"
        case .index(let base, let index):
            let inner: String
            switch index {
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            case .position(let position): inner = format(position)
            }
            return operand(base) + "[" + inner + "]"
        case .function(let name, let args):
            // modulus:by: prints as a function: `%%` is this parser's spelling, not Apple's.
            let infix = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
                         "UNION": "UNION", "INTERSECT": "INTERSECT", "MINUS": "MINUS"]
            if let symbol = infix[name], args.count == 2 { return "(\(format(args[0])) \(symbol) \(format(args[1])))" }
            return name + "(" + args.map(format).joined(separator: ", ") + ")"
        }
    }

    private static func operand(_ expression: QueryExpression) -> String {
        switch expression {
        case .keyPath, .variable, .evaluatedObject, .subquery, .function, .index, .keyPathOf: return format(expression)
        default: return "(" + format(expression) + ")"
        }
    }

    /// A key path as a format string spells it: reserved words and odd names escaped with `#`, and
    /// keys after a dot that are not names at all (`'ab-12'`) quoted.
    static func keyPath(_ path: String) -> String {
        path.split(separator: ".").enumerated().map { index, component in
            if index > 0, !component.unicodeScalars.allSatisfy(PredicateLexer.isIdentifierContinuation) { return quoted(String(component)) }
            // Reserved words and names that start like a number need the # escape to read back as keys.
            let startsLikeAName = component.unicodeScalars.first.map(PredicateLexer.isIdentifierStart) ?? false
            return PredicateParser.reserved.contains(component.uppercased()) || !startsLikeAName ? "#" + component : String(component)
        }.joined(separator: ".")
    }

    static func literal(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let bool as Bool: return bool ? "YES" : "NO"
        case let string as String: return quoted(string)
        case let date as Date: return "CAST(\(number(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case let double as Double: return number(double)
        case let float as Float: return number(Double(float))
        case let decimal as Decimal: return "\(decimal)"
        case let array as [Any?]: return "{" + array.map(literal).joined(separator: ", ") + "}"
        case let object as ManagedObject: return quoted(object.objectID.uriRepresentation().absoluteString)
        case let id as ManagedObjectID: return quoted(id.uriRepresentation().absoluteString)
        // Values without a literal are cast from text, so they read back as the same type.
        case let uuid as UUID: return "CAST(\(quoted(uuid.uuidString)), \"NSUUID\")"
        case let url as URL: return "CAST(\(quoted(url.absoluteString)), \"NSURL\")"
        case let data as Data: return "CAST(\(quoted(data.base64EncodedString())), \"NSData\")"
        case let value?:
            if let integer = PredicateValues.integer(value) { return String(integer) }
            return quoted("\(value)")
        }
    }

    private static func number(_ value: Double) -> String {
        if value.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
        // 1e999 reads back as infinity; Swift would print "inf", which reads as a key path.
        if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
        if value == value.rounded(), abs(value) < 1e15 { return String(format: "%.1f", value) }
        return "\(value)"
    }

    /// A double-quoted string; quotes, backslashes and control characters are escaped so the
    /// printed form reads back to the same scalars.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
