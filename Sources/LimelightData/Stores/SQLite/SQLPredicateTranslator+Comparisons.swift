import Foundation

extension SQLPredicateTranslator {
    mutating func scalarComparison(_ c: ComparisonPredicate, _ left: Operand, _ scope: Scope, _ bindings: inout [SQLiteValue],
                                   right outerRight: Operand? = nil) throws -> String {
        let flags = (c.options.contains(.caseInsensitive) ? 1 : 0) | (c.options.contains(.diacriticInsensitive) ? 2 : 0)
        func fold(_ sql: String) -> String { flags == 0 ? sql : "LL_FOLD(\(sql), \(flags))" }

        // A list with values from the store: BETWEEN as two comparisons, IN as equalities, so nil
        // and folding behave as they do one by one.
        if outerRight == nil, c.operatorType == .in || c.operatorType == .between, case .aggregate(let items) = c.right,
           !items.allSatisfy(Self.isConstant) {
            func compared(_ op: ComparisonPredicate.Operator, _ item: QueryExpression) -> QueryPredicate {
                .comparison(ComparisonPredicate(left: c.left, right: item, operatorType: op, options: c.options))
            }
            if c.operatorType == .between {
                guard items.count == 2 else { throw Self.unsupported("BETWEEN needs {low, high}, got \(items.count) values") }
                return try condition(.and([compared(.greaterThanOrEqual, items[0]), compared(.lessThanOrEqual, items[1])]), scope, &bindings)
            }
            return try condition(.or(items.map { compared(.equal, $0) }), scope, &bindings)
        }
        // Right sides that are collections: IN and BETWEEN.
        if c.operatorType == .in || c.operatorType == .between, let items = try constantItems(c.right) {
            bindings += left.bindings
            if c.operatorType == .between {
                guard items.count == 2 else { throw Self.unsupported("BETWEEN needs {low, high}") }
                let low = try constantOperand(items[0]), high = try constantOperand(items[1])
                // Memory cannot order values of different kinds, so neither does SQL.
                for (bound, value) in zip([low, high], items) where Self.kindsDiffer(left, bound) { throw Self.listMismatch(c, left, value) }
                bindings += low.bindings + high.bindings
                return "\(fold(left.sql)) BETWEEN \(fold(low.sql)) AND \(fold(high.sql))"
            }
            if items.isEmpty { return "0" }
            var placeholders: [String] = []
            for item in items {
                let value = try constantOperand(item)
                if Self.dateAndString(left, value) { throw Self.listMismatch(c, left, item) }
                // A value of another kind equals nothing in the column (`count IN {'5'}`), as in
                // memory; SQLite's affinity would turn '5' into 5.
                if value.isNull || Self.namesAnotherTable(left, value) || Self.kindsDiffer(left, value) { continue }
                placeholders.append(fold(value.sql))
                bindings += value.bindings
            }
            let hasNull = items.contains { $0 == nil }
            let test = placeholders.isEmpty ? "0" : "\(fold(left.sql)) IN (\(placeholders.joined(separator: ", ")))"
            guard hasNull else { return test }
            bindings += left.bindings
            return "(\(test) OR \(left.sql) IS NULL)"
        }
        if outerRight == nil, c.operatorType == .in, case .keyPath = c.right {
            let right = try operand(c.right, scope)
            if let toMany = right.toMany {
                // x IN toMany → ANY toMany == x
                var flipped = c
                flipped.left = c.right
                flipped.right = c.left
                flipped.operatorType = .equal
                flipped.modifier = .any
                return try collectionComparison(flipped, .toMany(toMany), scope, &bindings)
            }
        }
        // x IN SUBQUERY(…).name → ANY SUBQUERY(…).name == x, as memory looks through the values.
        if outerRight == nil, c.operatorType == .in, case .keyPathOf(.subquery, _) = c.right {
            let right = try operand(c.right, scope)
            if let kept = right.rows, !kept.path.isEmpty {
                var flipped = c
                flipped.left = c.right
                flipped.right = c.left
                flipped.operatorType = .equal
                flipped.modifier = .any
                return try collectionComparison(flipped, .kept(kept), scope, &bindings)
            }
        }
        var right = try outerRight ?? operand(c.right, scope)
        if right.toMany != nil { throw Self.unsupported("a to-many key path on the right of \(c.operatorType.rawValue)") }
        if let membership = try membership(c, left, right, &bindings) { return membership }
        if let decided = mismatchedEquality(c, left, right, &bindings) { return decided }
        try checkTypes(c, left, right)
        var left = left
        // An object from another entity's table is no row here, whatever its key: it is bound as
        // a key no row has, as an unsaved object is, so == never and != always holds, as in memory.
        if Self.namesAnotherTable(left, right) {
            if right.sql == "?" { right.bindings = [.integer(-1)] } else if left.sql == "?" { left.bindings = [.integer(-1)] }
        }
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
                // A pattern from the store goes through the same matcher memory uses.
                bindings += left.bindings + right.bindings
                return "LL_LIKE(\(fold(l)), \(fold(r)))"
            }
            let folded = StringFolding.fold(pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
            bindings += left.bindings + [.text(Self.globPattern(fromLike: folded))]
            return "\(fold(l)) GLOB ?"
        case .matches:
            bindings += left.bindings + right.bindings
            return "LL_MATCHES(\(flags & 2 != 0 ? "LL_FOLD(\(l), 2)" : l), \(r), \(flags & 1))"
        case .conformsTo, .typeEquals:
            bindings += left.bindings + right.bindings
            return "LL_UTI(\(l), \(r), \(c.operatorType == .typeEquals ? 1 : 0))"
        case .between:
            throw Self.unsupported("BETWEEN needs {low, high} as its right operand, got \(PredicatePrinter.format(c.right))")
        }
    }

    /// Refuses comparisons of values of different kinds (a string attribute against a number …),
    /// naming the operand, instead of letting SQLite's type affinity give an answer memory would not.
    func checkTypes(_ c: ComparisonPredicate, _ left: Operand, _ right: Operand) throws {
        let op = c.operatorType.rawValue
        func describe(_ operand: Operand, _ expression: QueryExpression) -> String {
            if let attribute = operand.attribute { return "\(operand.kind?.rawValue ?? "a value") (the attribute \(attribute.name))" }
            if case .constant(let constant) = expression { return PredicateValues.describe(constant.value) }
            return "\(operand.kind?.rawValue ?? "a value") (\(PredicatePrinter.format(expression)))"
        }
        switch c.operatorType {
        case .beginsWith, .endsWith, .contains, .like, .matches, .in, .conformsTo, .typeEquals:
            if let kind = left.kind, kind != .string {
                throw PersistenceError.invalidRequest("type mismatch: the left operand of \(op) is \(describe(left, c.left)), not a string")
            }
            if let kind = right.kind, kind != .string {
                throw PersistenceError.invalidRequest("type mismatch: the right operand of \(op) is \(describe(right, c.right)), not a string")
            }
        default:
            guard let l = left.kind, let r = right.kind, l != r else { return }
            let why = Self.dateAndString(left, right) ? ": a date compares only with a date" : ""
            throw PersistenceError.invalidRequest(
                "type mismatch: \(op) compares the left operand, \(describe(left, c.left)), with the right operand, \(describe(right, c.right))\(why)")
        }
    }

    /// Whether two object references name objects of different root entities, whose keys number
    /// rows of different tables.
    static func namesAnotherTable(_ left: Operand, _ right: Operand) -> Bool {
        guard left.isObjectKey, right.isObjectKey, let l = left.objectRoot, let r = right.objectRoot else { return false }
        return l !== r
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
            return PredicateValues.members(constant.value)
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
