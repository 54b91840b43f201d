import Foundation

/// Recursive-descent parser for Apple's predicate format string syntax.
///
/// Precedence, loosest first: OR, AND, NOT, comparison, `+ -`, `* / %%`, `**` (right-associative),
/// unary minus, postfix (`.key`, `[index]`). `%%` (a literal percent sign) is the modulus
/// operator and prints as `modulus:by:(a, b)`.
///
/// A `(` at the start of a predicate may open a predicate or an expression (`(a + b) > 1`); the
/// parser tries the predicate reading first and remembers its outcome per position, so nested
/// parentheses cost linear time, not exponential. Nesting deeper than `maximumDepth` is an error,
/// not a stack overflow.
struct PredicateParser {
    static let maximumDepth = 100

    private struct ParenthesizedAttempt {
        var predicate: QueryPredicate?
        var position: Int
        var argumentIndex: Int
        var error: PredicateParseError?
    }

    private let lexer: PredicateLexer
    private var tokens: [PredicateToken] = []
    private var position = 0
    private var arguments: [Any?]
    private var argumentIndex = 0
    private var lexError: PredicateParseError?
    private var depth = 0
    private var parenthesizedAttempts: [Int: ParenthesizedAttempt] = [:]

    init(format: String, arguments: [Any?]) {
        lexer = PredicateLexer(format)
        self.arguments = arguments
        do { tokens = try lexer.tokenize() } catch let error as PredicateParseError { lexError = error } catch {}
    }

    mutating func parsePredicateToEnd() throws -> QueryPredicate {
        if let lexError { throw lexError }
        let predicate = try parseOr()
        guard case .end = current.kind else { throw failure("AND, OR or the end of the predicate") }
        return predicate
    }

    mutating func parseExpressionToEnd() throws -> QueryExpression {
        if let lexError { throw lexError }
        let expression = try parseExpression()
        guard case .end = current.kind else { throw failure("the end of the expression") }
        return expression
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private func failure(_ expected: String) -> PredicateParseError {
        let token = current
        let found: String
        switch token.kind {
        case .end: found = "end of string"
        case .identifier(let name), .escapedIdentifier(let name): found = "'\(name)'"
        case .string(let text): found = "string \"\(text)\""
        case .integer(_, let text), .real(_, let text): found = "number \(text)"
        case .variable(let name): found = "$\(name)"
        case .format(let letter): found = "%\(letter)"
        case .symbol(let symbol): found = "'\(symbol)'"
        }
        return PredicateParseError(format: lexer.format, offset: lexer.characterOffset(token.offset), found: found, expected: expected)
    }

    /// Enters one level of nesting; deeper than `maximumDepth` is an error.
    private mutating func descend() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("at most \(Self.maximumDepth) levels of nesting") }
    }

    private func keyword(_ token: PredicateToken) -> String? {
        if case .identifier(let name) = token.kind { return name.uppercased() }
        return nil
    }

    private mutating func accept(keyword word: String) -> Bool {
        if keyword(current) == word { position += 1; return true }
        return false
    }

    private mutating func accept(symbol: String) -> Bool {
        if case .symbol(let s) = current.kind, s == symbol { position += 1; return true }
        return false
    }

    private mutating func expect(symbol: String) throws {
        guard accept(symbol: symbol) else { throw failure("'\(symbol)'") }
    }

    static let reserved: Set<String> = ["AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
        "BETWEEN", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "NULL", "NIL", "TRUE", "YES", "FALSE",
        "NO", "FIRST", "LAST", "SIZE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "ANYKEY", "CASEINSENSITIVE", "CI", "FETCH",
        "UTI-CONFORMS-TO", "UTI-EQUALS"]

    // MARK: Predicates

    private mutating func parseOr() throws -> QueryPredicate {
        try descend()
        defer { depth -= 1 }
        var parts = [try parseAnd()]
        while accept(keyword: "OR") || accept(symbol: "||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws -> QueryPredicate {
        var parts = [try parseNot()]
        while accept(keyword: "AND") || accept(symbol: "&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws -> QueryPredicate {
        if accept(keyword: "NOT") || accept(symbol: "!") {
            try descend()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> QueryPredicate {
        if accept(keyword: "TRUEPREDICATE") { return .truePredicate }
        if accept(keyword: "FALSEPREDICATE") { return .falsePredicate }
        if case .symbol("(") = current.kind {
            // A parenthesized predicate, unless it turns out to be an expression like (a + b) > 1.
            let start = (position, argumentIndex)
            let attempt = try parenthesizedPredicate()
            if let predicate = attempt.predicate {
                (position, argumentIndex) = (attempt.position, attempt.argumentIndex)
                return predicate
            }
            (position, argumentIndex) = start
            do {
                return try parseComparison()
            } catch let error as PredicateParseError {
                // Report whichever reading got further: that is where the string went wrong.
                if let first = attempt.error, first.offset > error.offset { throw first }
                throw error
            }
        }
        return try parseComparison()
    }

    /// The predicate reading of the `(` at the current position, computed once per position.
    private mutating func parenthesizedPredicate() throws -> ParenthesizedAttempt {
        let start = position
        if let known = parenthesizedAttempts[start] { return known }
        var attempt = ParenthesizedAttempt(position: start, argumentIndex: argumentIndex)
        position += 1
        do {
            let inner = try parseOr()
            if accept(symbol: ")"), !startsComparisonOperator() {
                attempt.predicate = inner
                attempt.position = position
                attempt.argumentIndex = argumentIndex
            } else if !startsComparisonOperator() {
                attempt.error = failure("')'")
            }
        } catch let error as PredicateParseError {
            attempt.error = error
        }
        parenthesizedAttempts[start] = attempt
        return attempt
    }

    private func startsComparisonOperator() -> Bool {
        switch current.kind {
        case .symbol(let s): return ["=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "%", ".", "["].contains(s)
        case .identifier(let name):
            return ["IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN", "UTI-CONFORMS-TO", "UTI-EQUALS"]
                .contains(name.uppercased())
        default: return false
        }
    }

    private mutating func parseComparison() throws -> QueryPredicate {
        var modifier = ComparisonPredicate.Modifier.direct
        var negate = false
        if accept(keyword: "ANY") || accept(keyword: "SOME") {
            modifier = .any
        } else if accept(keyword: "ALL") {
            modifier = .all
        } else if accept(keyword: "NONE") {
            modifier = .any
            negate = true
        }
        let left = try parseExpression()
        let (op, negateOperator) = try parseOperator()
        let options = try parseOptions()
        let right = try parseExpression()
        var predicate = QueryPredicate.comparison(ComparisonPredicate(left: left, right: right, operatorType: op, modifier: modifier, options: options))
        if negateOperator { predicate = .not(predicate) }
        return negate ? .not(predicate) : predicate
    }

    private mutating func parseOperator() throws -> (ComparisonPredicate.Operator, Bool) {
        let token = current
        switch token.kind {
        case .symbol(let s):
            let map: [String: ComparisonPredicate.Operator] = ["=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual,
                "<": .lessThan, "<=": .lessThanOrEqual, "=<": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "=>": .greaterThanOrEqual]
            if let op = map[s] { position += 1; return (op, false) }
        case .identifier(let name):
            let map: [String: ComparisonPredicate.Operator] = ["IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith,
                "ENDSWITH": .endsWith, "LIKE": .like, "MATCHES": .matches, "BETWEEN": .between]
            if let op = map[name.uppercased()] { position += 1; return (op, false) }
            if name.uppercased().hasPrefix("UTI-") {
                throw failure("a comparison operator other than \(name.uppercased()) (uniform type identifiers have no database here)")
            }
        default: break
        }
        throw failure("a comparison operator (==, !=, <, >, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, BETWEEN)")
    }

    private mutating func parseOptions() throws -> ComparisonPredicate.Options {
        guard case .symbol("[") = current.kind else { return [] }
        let saved = position
        position += 1
        guard case .identifier(let letters) = current.kind else { position = saved; return [] }
        var options: ComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": continue
            default: throw failure("comparison options [c], [d], [n] or [cd]")
            }
        }
        position += 1
        try expect(symbol: "]")
        return options
    }

    // MARK: Expressions

    mutating func parseExpression() throws -> QueryExpression {
        var result = try parseTerm()
        let entered = depth
        defer { depth = entered }
        while true {
            if accept(symbol: "+") { try descend(); result = .function("add:to:", [result, try parseTerm()]) }
            else if accept(symbol: "-") { try descend(); result = .function("from:subtract:", [result, try parseTerm()]) }
            else { return result }
        }
    }

    private mutating func parseTerm() throws -> QueryExpression {
        var result = try parsePower()
        let entered = depth
        defer { depth = entered }
        while true {
            if accept(symbol: "*") { try descend(); result = .function("multiply:by:", [result, try parsePower()]) }
            else if accept(symbol: "/") { try descend(); result = .function("divide:by:", [result, try parsePower()]) }
            else if accept(symbol: "%") { try descend(); result = .function("modulus:by:", [result, try parsePower()]) }
            else { return result }
        }
    }

    private mutating func parsePower() throws -> QueryExpression {
        let base = try parseUnary()
        if accept(symbol: "**") {
            try descend()
            defer { depth -= 1 }
            return .function("raise:toPower:", [base, try parsePower()])
        }
        return base
    }

    private mutating func parseUnary() throws -> QueryExpression {
        if accept(symbol: "-") {
            try descend()
            defer { depth -= 1 }
            let operand = try parseUnary()
            if case .constant(let constant) = operand, let number = constant.value as? Int64, number != .min { return .value(-number) }
            if case .constant(let constant) = operand, let number = constant.value as? Double { return .value(-number) }
            return .function("from:subtract:", [.value(Int64(0)), operand])
        }
        try descend()
        defer { depth -= 1 }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: QueryExpression) throws -> QueryExpression {
        var result = base
        let entered = depth
        defer { depth = entered }
        while true {
            if case .symbol(".") = current.kind {
                position += 1
                let name = try keyName()
                switch result {
                case .keyPath(let path): result = .keyPath(path + "." + name)
                case .evaluatedObject: result = .keyPath(name)
                case .keyPathOf(let inner, let path): result = .keyPathOf(inner, path + "." + name)
                default: result = .keyPathOf(result, name)
                }
            } else if case .symbol("[") = current.kind {
                try descend()
                position += 1
                let index: QueryIndex
                if accept(keyword: "FIRST") { index = .first }
                else if accept(keyword: "LAST") { index = .last }
                else if accept(keyword: "SIZE") { index = .size }
                else { index = .position(try parseExpression()) }
                try expect(symbol: "]")
                result = .index(result, index)
            } else {
                return result
            }
        }
    }

    private mutating func keyName() throws -> String {
        switch current.kind {
        case .identifier(let name) where !Self.reserved.contains(name.uppercased()) || name.hasPrefix("@"):
            position += 1
            return name
        case .escapedIdentifier(let name):
            position += 1
            return name
        case .format("K"):
            position += 1
            return try keyPathArgument()
        default:
            throw failure("a key name")
        }
    }

    private mutating func nextArgument() throws -> Any? {
        guard argumentIndex < arguments.count else {
            let token = tokens[max(0, position - 1)]
            throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(token.offset), found: "a format specifier",
                                      expected: "an argument for this format specifier (only \(arguments.count) given)")
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    /// The argument of a `%K`: a non-empty key path string.
    private mutating func keyPathArgument() throws -> String {
        let token = tokens[max(0, position - 1)]
        let argument = try nextArgument()
        guard let path = argument as? String ?? (argument as? Substring).map(String.init), !path.isEmpty else {
            throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(token.offset),
                                      found: argument.map { "\(type(of: $0)) \($0)" } ?? "nil",
                                      expected: "a key path string for %K (argument \(argumentIndex))")
        }
        return path
    }

    private mutating func parseArguments() throws -> [QueryExpression] {
        try expect(symbol: "(")
        var items: [QueryExpression] = []
        if accept(symbol: ")") { return items }
        repeat { items.append(try parseExpression()) } while accept(symbol: ",")
        try expect(symbol: ")")
        return items
    }

    private mutating func parsePrimary() throws -> QueryExpression {
        let token = current
        switch token.kind {
        case .integer(let value, _):
            position += 1
            return .value(value)
        case .real(let value, _):
            position += 1
            return .value(value)
        case .string(let text):
            position += 1
            return .value(text)
        case .variable(let name):
            position += 1
            return .variable(name)
        case .escapedIdentifier(let name):
            position += 1
            return .keyPath(name)
        case .format(let letter):
            position += 1
            if letter == "K" { return .keyPath(try keyPathArgument()) }
            let argument = try nextArgument()
            switch letter {
            case "@":
                // A collection argument is a list of constants, as `{…}` is (IN %@, BETWEEN %@).
                if let argument, !(argument is String), let items = PredicateValues.elements(argument) {
                    return .aggregate(items.map { .value($0) })
                }
                return .value(argument)
            case "d", "i", "u", "x", "X", "c": return .value(argument.flatMap { PredicateValues.integer($0) } ?? argument)
            case "f", "F", "e", "g", "E", "G", "a", "A": return .value(argument.flatMap { PredicateValues.double($0) } ?? argument)
            default: return .value(argument.map { "\($0)" })
            }
        case .symbol("("):
            position += 1
            try descend()
            defer { depth -= 1 }
            let inner = try parseExpression()
            try expect(symbol: ")")
            return inner
        case .symbol("{"):
            position += 1
            var items: [QueryExpression] = []
            if !accept(symbol: "}") {
                repeat { items.append(try parseExpression()) } while accept(symbol: ",")
                try expect(symbol: "}")
            }
            return .aggregate(items)
        case .identifier(let name):
            return try parseNamed(name)
        default:
            throw failure("a value, key path or function")
        }
    }

    private mutating func parseNamed(_ name: String) throws -> QueryExpression {
        let upper = name.uppercased()
        switch upper {
        case "SELF": position += 1; return .evaluatedObject
        case "NULL", "NIL": position += 1; return .value(nil)
        case "TRUE", "YES": position += 1; return .value(true)
        case "FALSE", "NO": position += 1; return .value(false)
        case "ANYKEY": position += 1; return .anyKey
        case "SUBQUERY":
            position += 1
            try expect(symbol: "(")
            let collection = try parseExpression()
            try expect(symbol: ",")
            guard case .variable(let variable) = current.kind else { throw failure("a $variable") }
            position += 1
            try expect(symbol: ",")
            let predicate = try parseOr()
            try expect(symbol: ")")
            return .subquery(collection: collection, variable: variable, predicate: predicate)
        case "TERNARY":
            position += 1
            try expect(symbol: "(")
            let condition = try parseOr()
            try expect(symbol: ",")
            let yes = try parseExpression()
            try expect(symbol: ",")
            let no = try parseExpression()
            try expect(symbol: ")")
            return .conditional(condition, yes, no)
        case "FUNCTION":
            position += 1
            return .function("FUNCTION", try parseArguments())
        case "CAST":
            position += 1
            let arguments = try parseArguments()
            // CAST of a constant is folded, so a printed date (CAST(12.0, "NSDate")) reads back as the date.
            if arguments.count == 2, case .constant(let value) = arguments[0], case .constant(let type) = arguments[1],
               let typeName = type.value as? String, let cast = try? PredicateFunctions.cast(value.value, to: typeName) {
                return .value(cast)
            }
            return .function("CAST", arguments)
        default:
            break
        }
        if Self.reserved.contains(upper) { throw failure("a value, key path or function") }
        position += 1
        if case .symbol("(") = current.kind {
            guard let selector = PredicateFunctions.selector(for: name) else {
                throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(tokens[position - 1].offset),
                                          found: "'\(name)'", expected: "a known function")
            }
            return .function(selector, try parseArguments())
        }
        if name.contains(":") { throw failure("'(' after the function \(name)") }
        return .keyPath(name)
    }
}
