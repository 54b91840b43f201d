import Foundation

/// A value inside a predicate: a constant, a key path, a variable, a function of other expressions,
/// a subquery … (Core Data's NSExpression; named so it does not collide with Foundation's
/// `Expression`).
public indirect enum QueryExpression: Equatable, CustomStringConvertible, @unchecked Sendable {
    case constant(QueryConstant)
    /// SELF.
    case evaluatedObject
    /// `$name`.
    case variable(String)
    /// A dotted key path, which may contain collection operators (`tags.@count`, `@sum.price`).
    case keyPath(String)
    /// A key path applied to the value of another expression (`$x.name`, `SUBQUERY(…).@count`).
    case keyPathOf(QueryExpression, String)
    /// A function by its selector name (`sum:`, `add:to:`, `now`, `uppercase:` …); `FUNCTION(…)`
    /// is `function("FUNCTION", [receiver, selector, args…])`.
    case function(String, [QueryExpression])
    /// `{a, b, c}`.
    case aggregate([QueryExpression])
    case subquery(collection: QueryExpression, variable: String, predicate: QueryPredicate)
    /// `array[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`.
    case index(QueryExpression, QueryIndex)
    /// TERNARY(predicate, true-value, false-value).
    case conditional(QueryPredicate, QueryExpression, QueryExpression)
    case anyKey

    public var description: String { PredicatePrinter.format(self) }

    /// Parses an expression in the format language, Core Data's `NSExpression(format:)`:
    /// `"$source.priceInCents / 100.0"`, `"FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'NoteToNote', $source.notes)"`.
    /// `%@`, `%K`, `%d` … take `arguments` in order; a bad format is an error naming the place.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    public init(format: String, argumentArray: [Any?]) throws {
        var parser = PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parseExpressionToEnd()
    }

    /// Convenience for a constant expression.
    public static func value(_ value: Any?) -> QueryExpression { .constant(QueryConstant(value)) }
}

/// Which element of a collection an index expression picks.
public enum QueryIndex: Equatable, Sendable {
    case first
    case last
    case size
    case position(QueryExpression)
}

/// A constant value in a predicate, compared by value (numbers numerically, objects by identity).
public struct QueryConstant: Equatable, @unchecked Sendable {
    public let value: Any?

    /// A NaN is stored as nil: it equals nothing, and SQLite would bind it as NULL, so "no value"
    /// is the one reading memory and SQL share.
    public init(_ value: Any?) {
        let unwrapped: Any?
        if let optional = value as? OptionalValueBox { unwrapped = optional.unboxed } else { unwrapped = value }
        if let double = unwrapped as? Double, double.isNaN { self.value = nil; return }
        if let float = unwrapped as? Float, float.isNaN { self.value = nil; return }
        self.value = Self.bridged(unwrapped)
    }

    /// Foundation objects as the Swift values they stand for. Arguments often come from
    /// Objective-C-style code: `NSNull()` means nil, as in Core Data; an `NSNumber` is read by the
    /// type it was made with, so `NSNumber(value: 1)` stays the number 1 rather than `YES`; an
    /// `NSArray` or `NSSet` of them is a list of those values.
    static func bridged(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            let code = String(cString: number.objCType)
            if code == "f" || code == "d" { return number.doubleValue }
            // Booleans are NSNumber subclasses of one-byte type; NSNumber(value: Int8(1)) is not.
            if (code == "c" || code == "B") && type(of: value) != NSNumber.self && (number.int64Value == 0 || number.int64Value == 1) {
                return number.boolValue
            }
            if (code == "Q" || code == "L") && number.uint64Value > UInt64(Int64.max) { return number.uint64Value }
            return number.int64Value
        }
        // Text and URLs compare as the Swift values: a Substring is one string, not its characters.
        if let substring = value as? Substring { return String(substring) }
        if type(of: value) is NSURL.Type, let url = value as? URL { return url }
        if type(of: value) is NSArray.Type, let array = value as? NSArray { return array.map { bridged($0) } }
        if type(of: value) is NSSet.Type, let set = value as? NSSet { return set.allObjects.map { bridged($0) } }
        return value
    }

    public static func == (lhs: QueryConstant, rhs: QueryConstant) -> Bool {
        PredicateValues.equal(lhs.value, rhs.value, options: [])
    }
}

/// Lets constants built from optionals store their wrapped value (or nil).
protocol OptionalValueBox { var unboxed: Any? { get } }
extension Optional: OptionalValueBox {
    var unboxed: Any? {
        switch self {
        case .some(let wrapped): return (wrapped as? OptionalValueBox)?.unboxed ?? wrapped
        case .none: return nil
        }
    }
}
