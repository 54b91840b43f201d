import Foundation

extension SQLPredicateTranslator {
    /// `base['key']` as the key path it reads. A string subscript is key-value coding's
    /// `valueForKey:`, which on an object reads the property and on a collection (a to-many, the
    /// objects a SUBQUERY keeps) reads it of every member, as `tags.color` does: evaluation in
    /// memory follows it so, so `tags['color']` is translated as `tags.color`. A number picks a
    /// place instead (`orderedElement`).
    static func keyed(_ base: QueryExpression, _ key: String, in expression: QueryExpression) throws -> QueryExpression {
        // One key names one property: a dot or an operator in it would read as a path here.
        guard !key.isEmpty, !key.contains("."), !key.hasPrefix("@") else {
            throw unsupported("\(PredicatePrinter.format(expression)): the key '\(key)' of a subscript names one property")
        }
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case .keyPath(let path): return .keyPath(path + "." + key)
        case .variable: return .keyPathOf(base, key)
        case .keyPathOf(let inner, let path): return .keyPathOf(inner, path + "." + key)
        case .subquery: return .keyPathOf(base, key)
        default:
            throw unsupported("\(PredicatePrinter.format(expression)): a key of \(PredicatePrinter.format(base))")
        }
    }
}
