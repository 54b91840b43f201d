import Foundation

/// Core Data reads an R-tree fetch index only where a predicate names it, with the function
/// `indexed:by:` around the attribute (`indexed:by:(latitude, "byLocation") BETWEEN {40, 55}`);
/// a plain comparison of the attribute leaves the R-tree unused, in Core Data as here.
///
/// The comparison is the attribute's own, so the answer is the same with or without the index
/// (and in memory, where `indexed:by:` is its first argument). When the index is an R-tree of
/// the entity over that attribute and the comparison bounds it by constants, the rows are
/// narrowed first by the R-tree (`Z_PK IN (SELECT Z_PK FROM Z_Place_byLocation WHERE
/// ZLATITUDE_MAX >= ? AND ZLATITUDE_MIN <= ?)`), which SQLite answers from the tree. The
/// R-tree's 32-bit bounds are rounded outwards, so it never loses a row the comparison keeps.
extension SQLPredicateTranslator {
    static let rTreeFunction = "indexed:by:"

    mutating func rTreeComparison(_ c: ComparisonPredicate, _ scope: Scope, _ bindings: inout [SQLiteValue],
                                  right: Operand?) throws -> String? {
        guard case .function(Self.rTreeFunction, let args) = c.left else { return nil }
        guard args.count == 2, case .keyPath(let keyPath) = args[0], case .constant(let named) = args[1],
              let indexName = named.value as? String else {
            throw Self.unsupported("indexed:by: takes an attribute and an index name (indexed:by:(latitude, \"byLocation\"))")
        }
        var plain = c
        plain.left = args[0]
        let sql = try comparison(plain, scope, &bindings, right: right)
        guard c.modifier == .direct, right == nil, let (low, high) = try bounds(c),
              let (index, column) = rTreeIndex(named: indexName, over: keyPath, in: scope.entity) else { return sql }
        var narrowing: [String] = []
        if let low { narrowing.append("\(column)_MAX >= ?"); bindings.append(.real(low)) }
        if let high { narrowing.append("\(column)_MIN <= ?"); bindings.append(.real(high)) }
        guard !narrowing.isEmpty else { return sql }
        return "(\(sql) AND \(scope.primaryKey) IN (SELECT Z_PK FROM \(index.name) WHERE \(narrowing.joined(separator: " AND "))))"
    }

    /// The R-tree index of that name declared by the entity or an entity above it (they share a
    /// table), and the column of the attribute among its elements. None for an attribute other
    /// than a number or a date: the R-tree holds 0 for any other value, so it cannot narrow.
    func rTreeIndex(named name: String, over keyPath: String, in entity: EntityDescription) -> (SQLiteRTreeIndex, String)? {
        guard let attribute = FetchIndexCheck.attribute(at: keyPath, of: entity),
              attribute.attributeType.isNumeric || attribute.attributeType == .date else { return nil }
        var declaring: EntityDescription? = entity
        while let current = declaring {
            if current.fetchIndexes.contains(where: { $0.name == name && $0.kind == .rTree }),
               let table = schema.table(for: current),
               let index = schema.rTreeIndexes(for: table).first(where: { $0.name == "Z_\(current.name)_\(name)" }) {
                let column = schema.column(forKeyPath: keyPath, of: current)
                return index.columns.contains(column) ? (index, column) : nil
            }
            declaring = current.superentity
        }
        return nil
    }

    /// The range a comparison with constants keeps, nil on an open side; nil for a comparison
    /// that is no range (`!=`, `IN`, a string).
    func bounds(_ c: ComparisonPredicate) throws -> (Double?, Double?)? {
        func number(_ value: Any?) -> Double? {
            switch value {
            case let date as Date: return date.timeIntervalSinceReferenceDate
            case let bool as Bool: return bool ? 1 : 0
            case let number as NSNumber: return number.doubleValue
            default: return nil
            }
        }
        if c.operatorType == .between {
            guard let items = try constantItems(c.right), items.count == 2,
                  let low = number(items[0]), let high = number(items[1]) else { return nil }
            return (low, high)
        }
        guard Self.isConstant(c.right) else { return nil }
        var evaluator = PredicateEvaluator(variables: [:])
        guard let value = number(try evaluator.value(c.right, nil)) else { return nil }
        switch c.operatorType {
        case .equal: return (value, value)
        case .greaterThan, .greaterThanOrEqual: return (value, nil)
        case .lessThan, .lessThanOrEqual: return (nil, value)
        default: return nil
        }
    }
}
