import Foundation

/// A computed column of a dictionary fetch (Core Data's `NSExpressionDescription`): a name, an
/// expression and the type of its result.
///
/// The expression is the predicate language's `QueryExpression`. Aggregate functions
/// (`sum:`, `count:`, `min:`, `max:`, `average:`, `median:`, `mode:` (the most frequent value, the
/// smallest when several tie), `stddev:` (population)) of a key path are
/// computed over each group, or over all matching objects when the request has no
/// `propertiesToGroupBy`; `.evaluatedObject` (SELF) gives each object's `ManagedObjectID`;
/// arithmetic and string functions of attributes are computed per row. The SQLite store computes
/// all of it in SQL.
///
/// ```swift
/// let total = try ExpressionDescription(name: "total", format: "sum:(replacementCost)", resultType: .double)
/// request.propertiesToFetch = ["loanedTo", total]
/// ```
public final class ExpressionDescription: PropertyDescription, @unchecked Sendable {
    /// What the column computes, in the predicate language (`sum:(cost)`, `SELF`, `pages * 2`).
    public var expression: QueryExpression {
        didSet { hasExpression = true }
    }
    /// False for a description made with `init()` until its expression is set: a fetch refuses it
    /// by name rather than computing something it was not asked for.
    private(set) var hasExpression = true
    /// The type values come back as: `.integer64` gives `Int64`, `.double` `Double`, `.decimal`
    /// `Decimal`, `.date` `Date`, `.objectID` a `ManagedObjectID`. `.undefined` (the default)
    /// takes the type of the attribute the expression reads where there is one (`min:` of a date
    /// is a date), `Int64` for `count:` and `Double` for `average:`.
    public var expressionResultType: AttributeType

    public init(name: String, expression: QueryExpression, resultType: AttributeType = .undefined) {
        self.expression = expression
        self.expressionResultType = resultType
        super.init(name: name)
    }

    /// An empty description, to be given its `name`, `expression` and `expressionResultType`
    /// one by one, as code written for Core Data's `NSExpressionDescription()` does. A fetch
    /// refuses it, naming what is missing, until it has a name and an expression.
    public convenience init() {
        self.init(name: "", expression: .evaluatedObject)
        hasExpression = false
    }

    /// Parses the expression from a format string such as `"sum:(replacementCost)"` or `"SELF"`.
    public convenience init(name: String, format: String, resultType: AttributeType = .undefined, _ arguments: Any?...) throws {
        var parser = PredicateParser(format: format, arguments: arguments)
        self.init(name: name, expression: try parser.parseExpressionToEnd(), resultType: resultType)
    }

    /// The evaluated object (SELF): each object's ID under `name`.
    public static func objectID(named name: String) -> ExpressionDescription {
        ExpressionDescription(name: name, expression: .evaluatedObject, resultType: .objectID)
    }

    /// Aggregate selectors, which reduce a group of rows to one value.
    static let aggregateFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    /// Whether the expression reduces many rows to one (it contains an aggregate function).
    var isAggregate: Bool { Self.containsAggregate(expression) }

    static func containsAggregate(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .function(let name, let arguments):
            return aggregateFunctions.contains(name) || arguments.contains(where: containsAggregate)
        case .conditional(_, let yes, let no): return containsAggregate(yes) || containsAggregate(no)
        case .keyPathOf(let base, _): return containsAggregate(base)
        default: return false
        }
    }

    public override var description: String { "ExpressionDescription(\(name): \(expression))" }
}
