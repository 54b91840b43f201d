import Foundation

/// A condition on objects, in the language of Apple's predicate format strings:
/// `QueryPredicate(format: "name BEGINSWITH[cd] %@ AND rating > 3", "sal")`.
///
/// Named so it does not collide with Foundation's `Predicate`. Fetch requests translate predicates
/// to SQL; `evaluate(with:)` runs them in memory with the same meaning. Constants inside are
/// treated as immutable values, which is what makes the type `Sendable`.
public indirect enum QueryPredicate: Equatable, CustomStringConvertible, @unchecked Sendable {
    case truePredicate
    case falsePredicate
    case comparison(ComparisonPredicate)
    case and([QueryPredicate])
    case or([QueryPredicate])
    case not(QueryPredicate)

    /// Parses a format string; `%@`, `%K`, `%d` … take `arguments` in order.
    public init(format: String, _ arguments: Any?...) throws {
        var parser = PredicateParser(format: format, arguments: arguments)
        self = try parser.parsePredicateToEnd()
    }

    public init(format: String, argumentArray: [Any?]) throws {
        var parser = PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parsePredicateToEnd()
    }

    /// A predicate that is always `value`, Core Data's `NSPredicate(value:)`.
    public init(value: Bool) {
        self = value ? .truePredicate : .falsePredicate
    }

    /// All of `subpredicates`, as `NSCompoundPredicate(andPredicateWithSubpredicates:)`; true
    /// when there are none.
    public init(andPredicateWithSubpredicates subpredicates: [QueryPredicate]) {
        self = .and(subpredicates)
    }

    /// Any of `subpredicates`, as `NSCompoundPredicate(orPredicateWithSubpredicates:)`; false
    /// when there are none.
    public init(orPredicateWithSubpredicates subpredicates: [QueryPredicate]) {
        self = .or(subpredicates)
    }

    /// The opposite of `subpredicate`, as `NSCompoundPredicate(notPredicateWithSubpredicate:)`.
    public init(notPredicateWithSubpredicate subpredicate: QueryPredicate) {
        self = .not(subpredicate)
    }

    /// The predicate as a format string that parses back to an equal predicate.
    public var predicateFormat: String { PredicatePrinter.format(self) }
    public var description: String { predicateFormat }

    /// Replaces `$VARIABLE`s with values.
    public func withSubstitutionVariables(_ variables: [String: Any?]) -> QueryPredicate {
        PredicateSubstitution.substitute(self, variables)
    }

    /// Whether `object` (a managed object, a dictionary, or any `KeyValueCodingReadable`) satisfies
    /// the predicate.
    public func evaluate(with object: Any?, substitutionVariables: [String: Any?] = [:]) throws -> Bool {
        var evaluator = PredicateEvaluator(variables: substitutionVariables)
        return try evaluator.evaluate(self, object)
    }
}

/// A comparison of two expressions: `left OP[options] right`, possibly over a collection.
public struct ComparisonPredicate: Equatable, Sendable {
    public enum Operator: String, Sendable, CaseIterable {
        case lessThan = "<", lessThanOrEqual = "<=", greaterThan = ">", greaterThanOrEqual = ">="
        case equal = "==", notEqual = "!="
        case matches = "MATCHES", like = "LIKE", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
        case `in` = "IN", contains = "CONTAINS", between = "BETWEEN"
        /// The left uniform type identifier is the right one or declares conformance to it.
        case conformsTo = "UTI-CONFORMS-TO"
        /// The two uniform type identifiers name the same type.
        case typeEquals = "UTI-EQUALS"
    }

    public enum Modifier: Sendable, Equatable {
        case direct
        /// ANY / SOME: true when some element of the left collection satisfies the comparison.
        case any
        /// ALL: every element does.
        case all
    }

    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
    }

    public var left: QueryExpression
    public var right: QueryExpression
    public var operatorType: Operator
    public var modifier: Modifier
    public var options: Options

    public init(left: QueryExpression, right: QueryExpression, operatorType: Operator, modifier: Modifier = .direct, options: Options = []) {
        self.left = left
        self.right = right
        self.operatorType = operatorType
        self.modifier = modifier
        self.options = options
    }
}
