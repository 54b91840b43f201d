import Foundation

extension SQLPredicateTranslator {
    mutating func scalarComparison(_ c: ComparisonPredicate, _ left: Operand, _ scope: Scope, _ bindings: inout [SQLiteValue]) throws -> String {
        let flags = (c.options.contains(.caseInsensitive) ? 1 : 0) | (c.options.contains(.diacriticInsensitive) ? 2 : 0)
        func fold(_ sql: String) -> String { flags == 0 ? sql : "LL_FOLD(\(sql), \(flags))" }

        // Right sides that are collections: IN and BETWEEN.
        if c.operatorType == .in || c.operatorType == .between, let items = try constantItems(c.right) {
            bindings += left.bindings
            if c.operatorType == .between {
                guard items.count == 2 else { throw Self.unsupported("BETWEEN needs {low, high}") }
                let low = try constantOperand(items[0]), high = try constantOperand(items[1])
                bindings += low.bindings + high.bindings
                return "\(left.sql) BETWEEN \(low.sql) AND \(high.sql)"
            }
            if items.isEmpty { return "0" }
            var placeholders: [String] = []
            for item in items {
                let value = try constantOperand(item)
                if value.isNull { continue }
                placeholders.append(fold(value.sql))
                bindings += value.bindings
            }
            let hasNull = items.contains { $0 == nil }
            let test = placeholders.isEmpty ? "0" : "\(fold(left.sql)) IN (\(placeholders.joined(separator: ", ")))"
            return hasNull ? "(\(test) OR \(left.sql) IS NULL)" : test
        }
        if c.operatorType == .in, case .keyPath = c.right {
            let right = try operand(c.right, scope)
            if let toMany = right.toMany {
                // x IN toMany → ANY toMany == x
                var flipped = c
                flipped.left = c.right
                flipped.right = c.left
                flipped.operatorType = .equal
                flipped.modifier = .any
                return try collectionComparison(flipped, toMany, scope, &bindings)
            }
        }
        let right = try operand(c.right, scope)
        if right.toMany != nil { throw Self.unsupported("a to-many key path on the right of \(c.operatorType.rawValue)") }
        let l = left.sql, r = right.sql
        switch c.operatorType {
        case .equal, .notEqual:
            let negated = c.operatorType == .notEqual
            if right.isNull { bindings += left.bindings; return "\(l) IS \(negated ? "NOT " : "")NULL" }
            if left.isNull { bindings += right.bindings; return "\(r) IS \(negated ? "NOT " : "")NULL" }
            bindings += left.bindings + right.bindings
            return "\(fold(l)) IS \(negated ? "NOT " : "")\(fold(r))"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            bindings += left.bindings + right.bindings
            return "\(fold(l)) \(c.operatorType.rawValue) \(fold(r))"
        case .beginsWith:
            bindings += left.bindings + right.bindings + right.bindings
            return "substr(\(fold(l)), 1, length(\(fold(r)))) = \(fold(r))"
        case .endsWith:
            bindings += left.bindings + right.bindings + left.bindings + right.bindings + right.bindings
            return "(\(l) IS NOT NULL AND (length(\(fold(r))) = 0 OR substr(\(fold(l)), -length(\(fold(r)))) = \(fold(r))))"
        case .contains:
            bindings += left.bindings + right.bindings
            return "instr(\(fold(l)), \(fold(r))) > 0"
        case .in:
            bindings += right.bindings + left.bindings
            return "instr(\(fold(r)), \(fold(l))) > 0"
        case .like:
            guard case .constant(let constant) = c.right, let pattern = constant.value as? String else {
                throw Self.unsupported("LIKE with a pattern that is not a constant string")
            }
            let folded = StringFolding.fold(pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
            bindings += left.bindings + [.text(Self.globPattern(fromLike: folded))]
            return "\(fold(l)) GLOB ?"
        case .matches:
            guard case .constant(let constant) = c.right, let pattern = constant.value as? String else {
                throw Self.unsupported("MATCHES with a pattern that is not a constant string")
            }
            bindings += [.text((flags & 1 != 0 ? "(?i)" : "") + pattern)] + left.bindings
            return "REGEXP(?, \(flags & 2 != 0 ? "LL_FOLD(\(l), 2)" : l))"
        case .between:
            throw Self.unsupported("BETWEEN needs constant bounds {low, high}")
        }
    }

    /// ANY/ALL/NONE (and CONTAINS) over a to-many: EXISTS over the related rows.
    mutating func collectionComparison(_ c: ComparisonPredicate, _ toMany: (relationship: RelationshipDescription, scope: Scope, rest: [String]),
                                             _ scope: Scope, _ bindings: inout [SQLiteValue]) throws -> String {
        let (related, join) = try relatedRows(toMany.relationship, owner: toMany.scope)
        let inner = Scope(alias: related.alias, entity: related.entity, variables: scope.variables)
        var element = c
        element.modifier = .direct
        element.left = toMany.rest.isEmpty ? .evaluatedObject : .keyPath(toMany.rest.joined(separator: "."))
        if c.operatorType == .contains && toMany.rest.isEmpty { element.operatorType = .equal }
        var innerBindings: [SQLiteValue] = []
        let test = try condition(.comparison(element), inner, &innerBindings)
        bindings += innerBindings
        let from = "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition)"
        if c.modifier == .all { return "NOT EXISTS (SELECT 1 \(from) AND NOT coalesce((\(test)), 0))" }
        return "EXISTS (SELECT 1 \(from) AND (\(test)))"
    }

    /// Values of a constant collection on the right side (`IN {1, 2}`, `IN %@` with an array).
    func constantItems(_ expression: QueryExpression) throws -> [Any?]? {
        switch expression {
        case .aggregate(let items):
            return try items.map { item -> Any? in
                guard case .constant(let constant) = item else { throw Self.unsupported("a non-constant element in {…}") }
                return constant.value
            }
        case .constant(let constant):
            if constant.value is String { return nil }
            return PredicateValues.elements(constant.value)
        default:
            return nil
        }
    }

    /// Apple's LIKE (`*`, `?`, backslash escapes) as an SQLite GLOB pattern.
    static func globPattern(fromLike pattern: String) -> String {
        var result = ""
        var escaped = false
        for character in pattern {
            if escaped {
                result += ["*", "?", "["].contains(character) ? "[\(character)]" : String(character)
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "[": result += "[[]"
            default: result.append(character)
            }
        }
        return result
    }
}
