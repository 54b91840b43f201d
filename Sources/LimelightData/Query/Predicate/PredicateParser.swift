import Foundation

/// Recursive-descent parser for Apple's predicate format string syntax.
///
/// Precedence, loosest first: OR, AND, NOT, comparison, `+ -`, `* /`, `**` (right-associative),
/// unary minus, postfix (`.key`, `[index]`).
struct PredicateParser {
    private let lexer: PredicateLexer
    private var tokens: [PredicateToken] = []
    private var position = 0
    private var arguments: [Any?]
    private var argumentIndex = 0
    private var lexError: PredicateParseError?

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
        case .number(_, _, let text): found = "number \(text)"
        case .variable(let name): found = "$\(name)"
        case .format(let letter): found = "%\(letter)"
        case .symbol(let symbol): found = "'\(symbol)'"
        }
        return PredicateParseError(format: lexer.format, offset: token.offset, found: found, expected: expected)
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

    private static let reserved: Set<String> = ["AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
        "BETWEEN", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "NULL", "NIL", "TRUE", "YES", "FALSE",
        "NO", "FIRST", "LAST", "SIZE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "ANYKEY"]

    // MARK: Predicates

    private mutating func parseOr() throws -> QueryPredicate {
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
        if accept(keyword: "NOT") || accept(symbol: "!") { return .not(try parseNot()) }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> QueryPredicate {
        if accept(keyword: "TRUEPREDICATE") { return .truePredicate }
        if accept(keyword: "FALSEPREDICATE") { return .falsePredicate }
        if case .symbol("(") = current.kind {
            // A parenthesized predicate, unless it turns out to be an expression like (a + b) > 1.
            let saved = (position, argumentIndex)
            position += 1
            var firstError: PredicateParseError?
            do {
                let inner = try parseOr()
                if accept(symbol: ")"), !startsComparisonOperator() { return inner }
                if !startsComparisonOperator() { firstError = failure("')'") }
            } catch let error as PredicateParseError {
                firstError = error
            }
            (position, argumentIndex) = saved
            do {
                return try parseComparison()
            } catch let error as PredicateParseError {
                // Report whichever reading got further: that is where the string went wrong.
                if let firstError, firstError.offset > error.offset { throw firstError }
                throw error
            }
        }
        return try parseComparison()
    }

    private func startsComparisonOperator() -> Bool {
        switch current.kind {
        case .symbol(let s): return ["=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "."].contains(s)
        case .identifier(let name):
            return ["IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN"].contains(name.uppercased())
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
        let right: QueryExpression
        if op == .between {
            right = try parseExpression()
        } else {
            right = try parseExpression()
        }
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
        while true {
            if accept(symbol: "+") { result = .function("add:to:", [result, try parseTerm()]) }
            else if accept(symbol: "-") { result = .function("from:subtract:", [result, try parseTerm()]) }
            else { return result }
        }
    }

    private mutating func parseTerm() throws -> QueryExpression {
        var result = try parsePower()
        while true {
            if accept(symbol: "*") { result = .function("multiply:by:", [result, try parsePower()]) }
            else if accept(symbol: "/") { result = .function("divide:by:", [result, try parsePower()]) }
            else { return result }
        }
    }

    private mutating func parsePower() throws -> QueryExpression {
        let base = try parseUnary()
        if accept(symbol: "**") { return .function("raise:toPower:", [base, try parsePower()]) }
        return base
    }

    private mutating func parseUnary() throws -> QueryExpression {
        if accept(symbol: "-") {
            let operand = try parseUnary()
            if case .constant(let constant) = operand, let number = constant.value as? Int64 { return .value(-number) }
            if case .constant(let constant) = operand, let number = constant.value as? Double { return .value(-number) }
            return .function("from:subtract:", [.value(Int64(0)), operand])
        }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: QueryExpression) throws -> QueryExpression {
        var result = base
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
            return try nextArgument().map { "\($0)" } ?? ""
        default:
            throw failure("a key name")
        }
    }

    private mutating func nextArgument() throws -> Any? {
        guard argumentIndex < arguments.count else {
            let token = tokens[max(0, position - 1)]
            throw PredicateParseError(format: lexer.format, offset: token.offset, found: "a format specifier",
                                      expected: "an argument for this format specifier (only \(arguments.count) given)")
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
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
        case .number(let value, let isInteger, _):
            position += 1
            return isInteger ? .value(Int64(value)) : .value(value)
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
            let argument = try nextArgument()
            switch letter {
            case "K": return .keyPath(argument.map { "\($0)" } ?? "")
            case "@":
                if let array = argument as? [Any?] { return .aggregate(array.map { .value($0) }) }
                return .value(argument)
            case "d", "i", "u", "x", "X", "c": return .value(argument.flatMap { PredicateValues.integer($0) } ?? argument)
            case "f", "e", "g", "E", "G": return .value(argument.flatMap { PredicateValues.double($0) } ?? argument)
            default: return .value(argument.map { "\($0)" })
            }
        case .symbol("("):
            position += 1
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
            return .function("CAST", try parseArguments())
        default:
            break
        }
        if Self.reserved.contains(upper) { throw failure("a value, key path or function") }
        position += 1
        if case .symbol("(") = current.kind {
            guard let selector = PredicateFunctions.selector(for: name) else {
                throw PredicateParseError(format: lexer.format, offset: tokens[position - 1].offset, found: "'\(name)'", expected: "a known function")
            }
            return .function(selector, try parseArguments())
        }
        if name.contains(":") { throw failure("'(' after the function \(name)") }
        return .keyPath(name)
    }
}
