import Foundation

/// Replaces `$VARIABLE`s with constants (fetch request templates, `$FETCH_SOURCE`).
enum PredicateSubstitution {
    static func substitute(_ predicate: QueryPredicate, _ variables: [String: Any?]) -> QueryPredicate {
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .not(let inner): return .not(substitute(inner, variables))
        case .and(let parts): return .and(parts.map { substitute($0, variables) })
        case .or(let parts): return .or(parts.map { substitute($0, variables) })
        case .comparison(var comparison):
            comparison.left = substitute(comparison.left, variables)
            comparison.right = substitute(comparison.right, variables)
            return .comparison(comparison)
        }
    }

    static func substitute(_ expression: QueryExpression, _ variables: [String: Any?], bound: Set<String> = []) -> QueryExpression {
        switch expression {
        case .variable(let name) where !bound.contains(name):
            guard let value = variables[name] else { return expression }
            // Collections become lists of constants, as they do through %@.
            if let value, !(value is String), let items = PredicateValues.elements(value) { return .aggregate(items.map { .value($0) }) }
            return .value(value)
        case .keyPathOf(let base, let path):
            let substituted = substitute(base, variables, bound: bound)
            // A key path from a value given now (`$FETCH_SOURCE.folder`) is read now, as Core Data
            // does: the store is then asked about the value, which SQL can say.
            if let given = constantValue(substituted) {
                do {
                    let value = try PredicateEvaluator.keyPath(path, of: given.value)
                    if let value, !(value is String), let items = PredicateValues.elements(value) { return .aggregate(items.map { .value($0) }) }
                    return .value(value)
                } catch {
                    // Not readable now: left for the evaluation to report.
                }
            }
            return .keyPathOf(substituted, path)
        case .function(let name, let args): return .function(name, args.map { substitute($0, variables, bound: bound) })
        case .aggregate(let items): return .aggregate(items.map { substitute($0, variables, bound: bound) })
        case .index(let base, let index):
            if case .position(let position) = index { return .index(substitute(base, variables, bound: bound), .position(substitute(position, variables, bound: bound))) }
            return .index(substitute(base, variables, bound: bound), index)
        case .conditional(let condition, let yes, let no):
            return .conditional(substitute(condition, variables), substitute(yes, variables, bound: bound), substitute(no, variables, bound: bound))
        case .subquery(let collection, let variable, let predicate):
            var inner = variables
            inner[variable] = nil
            return .subquery(collection: substitute(collection, variables, bound: bound), variable: variable,
                             predicate: substitute(predicate, inner.filter { $0.key != variable }))
        default:
            return expression
        }
    }
}

extension PredicateSubstitution {
    /// The value an expression stands for when it is a constant or a list of constants.
    private static func constantValue(_ expression: QueryExpression) -> QueryConstant? {
        switch expression {
        case .constant(let constant): return constant
        case .aggregate(let items):
            var values: [Any?] = []
            for item in items {
                guard case .constant(let constant) = item else { return nil }
                values.append(constant.value)
            }
            return QueryConstant(values)
        default: return nil
        }
    }
}

/// Builds the predicate of a fetched property, with `$FETCH_SOURCE` bound to its object.
enum FetchedPropertySupport {
    static func predicate(format: String, source: ManagedObject) throws -> QueryPredicate {
        try QueryPredicate(format: format).withSubstitutionVariables(["FETCH_SOURCE": source, "FETCHED_PROPERTY": nil])
    }
}
