import Foundation

/// Expressions built piece by piece, as code written for Core Data builds `NSExpression`s:
/// `QueryExpression(forFunction: "sum:", arguments: [QueryExpression(forKeyPath: "price")])` is
/// what the format `"sum:(price)"` reads as.
extension QueryExpression {
    /// A key path, dotted (`"author.name"`) and with collection operators (`"items.@sum.price"`)
    /// as in a format string.
    public init(forKeyPath keyPath: String) {
        self = .keyPath(keyPath)
    }

    /// The key path `@Managed` declarations stand for (`\Book.author?.name` is `"author.name"`),
    /// as Core Data's `NSExpression(forKeyPath:)` takes a Swift key path. One through a computed
    /// property keeps its printed form, which a fetch then refuses by name.
    public init<Root: ManagedObject, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        self = .keyPath(ManagedKeyPathNames.name(of: keyPath) ?? "\(keyPath)")
    }

    /// A constant: a number, string, date, object, collection or `nil`.
    public init(forConstantValue value: Any?) {
        self = .constant(QueryConstant(value))
    }

    /// `$name`, given a value by substitution.
    public init(forVariable name: String) {
        self = .variable(name)
    }

    /// A function by Core Data's selector name (`"sum:"`, `"count:"`, `"add:to:"`, `"now"` …);
    /// the short spelling of the format language (`"sum"`) is taken too. A name that is no known
    /// function is kept, and refused by name when the expression is evaluated or fetched with.
    public init(forFunction name: String, arguments: [QueryExpression]) {
        self = .function(PredicateFunctions.selector(for: name) ?? name, arguments)
    }

    /// `{a, b, c}`.
    public init(forAggregate subexpressions: [QueryExpression]) {
        self = .aggregate(subexpressions)
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    public init(forConditional predicate: QueryPredicate, trueExpression: QueryExpression, falseExpression: QueryExpression) {
        self = .conditional(predicate, trueExpression, falseExpression)
    }

    /// SELF: the object being evaluated (in a fetch of dictionaries, each object's ID).
    public static func expressionForEvaluatedObject() -> QueryExpression { .evaluatedObject }
}
