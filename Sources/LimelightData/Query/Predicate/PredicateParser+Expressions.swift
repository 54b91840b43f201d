import Foundation

/// Expressions: arithmetic by precedence, postfix key paths and indexes, literals, format
/// arguments, variables, functions, SUBQUERY, TERNARY, FUNCTION and CAST.
extension PredicateParser {
    // MARK: Expressions

    mutating func parseExpression() throws -> QueryExpression {
        var result = try parseTerm()
        let entered = depth
        defer { depth = entered }
        while true {
            if accept(symbol: "+") { try descend(); result = .function("add:to:", [result, try parseTerm()]) }
            else if accept(symbol: "-") { try descend(); result = .function("from:subtract:", [result, try parseTerm()]) }
            // Bitwise AND and OR of integers, which Foundation's format strings take between operands.
            else if accept(symbol: "&") { try descend(); result = .function("bitwiseAnd:with:", [result, try parseTerm()]) }
            else if accept(symbol: "|") { try descend(); result = .function("bitwiseOr:with:", [result, try parseTerm()]) }
            else if let set = ["UNION", "INTERSECT", "MINUS"].first(where: { accept(keyword: $0) }) {
                // Apple's set expressions: {1, 2} UNION tags.name. Only here, after a whole operand,
                // is the word an operator, so keys named `union` or `minus` still read as keys.
                try descend()
                result = .function(set, [result, try parseTerm()])
            }
            else { return result }
        }
    }

    mutating func parseTerm() throws -> QueryExpression {
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

    mutating func parsePower() throws -> QueryExpression {
        let base = try parseUnary()
        if accept(symbol: "**") {
            try descend()
            defer { depth -= 1 }
            return .function("raise:toPower:", [base, try parsePower()])
        }
        return base
    }

    mutating func parseUnary() throws -> QueryExpression {
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

    mutating func parsePostfix(_ base: QueryExpression) throws -> QueryExpression {
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

    mutating func keyName() throws -> String {
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
        case .format("@"):
            // Apple's parser takes a string %@ after a dot as the key it names (`SELF.%@.value`), the
            // way apps splice a key path chosen at run time into the middle of one.
            position += 1
            return try keyPathArgument(specifier: "%@ after a dot")
        case .string(let name) where !name.isEmpty:
            // A quoted key after a dot (`phoneNumbers.'value'.'digits'`), as Apple's parser takes a
            // string there: the way to name a key that is also a reserved word or not an identifier.
            position += 1
            return name
        default:
            throw failure("a key name")
        }
    }

    mutating func nextArgument() throws -> Any? {
        guard argumentIndex < arguments.count else {
            let token = tokens[max(0, position - 1)]
            throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(token.offset), found: "a format specifier",
                                      expected: "an argument for this format specifier (only \(arguments.count) given)")
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    /// The argument of a `%K`: a non-empty key path string, or a Swift key path through `@Managed`
    /// declarations (`\Recipe.name`, `\Book.author?.name`), which Core Data code passes as
    /// `#keyPath(Book.author.name)`.
    mutating func keyPathArgument(specifier: String = "%K") throws -> String {
        let token = tokens[max(0, position - 1)]
        let argument = try nextArgument()
        let named = (argument as? AnyKeyPath).flatMap(ManagedKeyPathNames.name(of:))
        guard let path = named ?? argument as? String ?? (argument as? Substring).map(String.init), !path.isEmpty else {
            throw PredicateParseError(format: lexer.format, offset: lexer.characterOffset(token.offset),
                                      found: argument.map { "\(type(of: $0)) \($0)" } ?? "nil",
                                      expected: "a key path string for \(specifier) (argument \(argumentIndex))")
        }
        return path
    }

    mutating func parseArguments() throws -> [QueryExpression] {
        try expect(symbol: "(")
        var items: [QueryExpression] = []
        if accept(symbol: ")") { return items }
        repeat { items.append(try parseExpression()) } while accept(symbol: ",")
        try expect(symbol: ")")
        return items
    }

    mutating func parsePrimary() throws -> QueryExpression {
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

    mutating func parseNamed(_ name: String) throws -> QueryExpression {
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
        case "FETCH":
            // FETCH(request, context, countOnly): a mapping model's source expression.
            position += 1
            return .function("FETCH", try parseArguments())
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
        if Self.reserved.contains(upper) {
            // Keys such as `size`, `first` or `order`… are common attribute names; say how to use one.
            throw failure("a value, key path or function; \(name) is a reserved word, write #\(name) or %K to use it as a key")
        }
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
