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

    struct ParenthesizedAttempt {
        var predicate: QueryPredicate?
        var position: Int
        var argumentIndex: Int
        var error: PredicateParseError?
    }

    let lexer: PredicateLexer
    var tokens: [PredicateToken] = []
    var position = 0
    var arguments: [Any?]
    var argumentIndex = 0
    var lexError: PredicateParseError?
    var depth = 0
    var parenthesizedAttempts: [Int: ParenthesizedAttempt] = [:]

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

    var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    func failure(_ expected: String) -> PredicateParseError {
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
    mutating func descend() throws {
        guard depth < Self.maximumDepth else { throw failure("at most \(Self.maximumDepth) levels of nesting") }
        depth += 1
    }

    func keyword(_ token: PredicateToken) -> String? {
        if case .identifier(let name) = token.kind { return name.uppercased() }
        return nil
    }

    mutating func accept(keyword word: String) -> Bool {
        if keyword(current) == word { position += 1; return true }
        return false
    }

    mutating func accept(symbol: String) -> Bool {
        if case .symbol(let s) = current.kind, s == symbol { position += 1; return true }
        return false
    }

    mutating func expect(symbol: String) throws {
        guard accept(symbol: symbol) else { throw failure("'\(symbol)'") }
    }

    static let reserved: Set<String> = ["AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
        "BETWEEN", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "NULL", "NIL", "TRUE", "YES", "FALSE",
        "NO", "FIRST", "LAST", "SIZE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "ANYKEY", "CASEINSENSITIVE", "CI", "FETCH",
        "UTI-CONFORMS-TO", "UTI-EQUALS"]

    // MARK: Predicates

    mutating func parseOr() throws -> QueryPredicate {
        try descend()
        defer { depth -= 1 }
        var parts = [try parseAnd()]
        while accept(keyword: "OR") || accept(symbol: "||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws -> QueryPredicate {
        var parts = [try parseNot()]
        while accept(keyword: "AND") || accept(symbol: "&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot() throws -> QueryPredicate {
        if accept(keyword: "NOT") || accept(symbol: "!") {
            try descend()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    mutating func parsePrimaryPredicate() throws -> QueryPredicate {
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
    mutating func parenthesizedPredicate() throws -> ParenthesizedAttempt {
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

    func startsComparisonOperator() -> Bool {
        switch current.kind {
        case .symbol(let s): return ["=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "%", ".", "["].contains(s)
        case .identifier(let name):
            return ["IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN", "UTI-CONFORMS-TO", "UTI-EQUALS"]
                .contains(name.uppercased())
        default: return false
        }
    }

    mutating func parseComparison() throws -> QueryPredicate {
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
        let rightStart = current
        let right = try parseExpression()
        if op == .between, keyword(current) == "AND", case .constant(let bound) = right, PredicateValues.elements(bound.value) == nil {
            // SQL's `x BETWEEN low AND high`, which the format language writes `x BETWEEN {low, high}`.
            throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(rightStart.offset), found: "a single value",
                                      expected: "{low, high} after BETWEEN (write BETWEEN {low, high}, not BETWEEN low AND high)")
        }
        var predicate = QueryPredicate.comparison(ComparisonPredicate(left: left, right: right, operatorType: op, modifier: modifier, options: options))
        if negateOperator { predicate = .not(predicate) }
        return negate ? .not(predicate) : predicate
    }

    mutating func parseOperator() throws -> (ComparisonPredicate.Operator, Bool) {
        let token = current
        switch token.kind {
        case .symbol(let s):
            let map: [String: ComparisonPredicate.Operator] = ["=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual,
                "<": .lessThan, "<=": .lessThanOrEqual, "=<": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "=>": .greaterThanOrEqual]
            if let op = map[s] { position += 1; return (op, false) }
        case .identifier(let name):
            let map: [String: ComparisonPredicate.Operator] = ["IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith,
                "ENDSWITH": .endsWith, "LIKE": .like, "MATCHES": .matches, "BETWEEN": .between,
                "UTI-CONFORMS-TO": .conformsTo, "UTI-EQUALS": .typeEquals]
            if let op = map[name.uppercased()] { position += 1; return (op, false) }
        default: break
        }
        let operators = "==, !=, <, >, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, BETWEEN, UTI-CONFORMS-TO, UTI-EQUALS"
        // A value alone is no predicate, not even a Boolean attribute (`isDone`), as in Apple's parser.
        let endsHere = ([.end, .symbol(")"), .symbol("&&"), .symbol("||")] as [PredicateToken.Kind]).contains(token.kind) || ["AND", "OR"].contains(keyword(token) ?? "")
        throw failure("a comparison operator (\(operators))" + (endsHere ? "; a Boolean key is compared too, as in isDone == YES" : ""))
    }

    mutating func parseOptions() throws -> ComparisonPredicate.Options {
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
}
