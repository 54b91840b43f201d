import Foundation

extension SQLPredicateTranslator {
    /// What ANY/ALL/NONE range over: the members of a to-many, or the objects a SUBQUERY keeps,
    /// each with the key path read from every element (empty for the elements themselves).
    enum Elements {
        case toMany((relationship: RelationshipDescription, scope: Scope, rest: [String]))
        case kept(KeptRows)
    }

    /// ANY/ALL/NONE (and CONTAINS) over a to-many or a SUBQUERY's objects: EXISTS over their rows.
    mutating func collectionComparison(_ c: ComparisonPredicate, _ elements: Elements, _ scope: Scope, _ bindings: inout [SQLiteValue],
                                       right: Operand? = nil) throws -> String {
        // Without ANY/ALL/NONE a to-many means something only for CONTAINS: some element equals
        // the right side (which is what in-memory evaluation of a collection does too).
        if c.modifier == .direct && c.operatorType != .contains {
            throw Self.unsupported("the to-many key path \(PredicatePrinter.format(c.left)) with \(c.operatorType.rawValue) needs ANY, ALL or NONE")
        }
        // The right side belongs to the outer object, so it is translated before entering the rows.
        var outerRight = right
        if outerRight == nil, !Self.isConstant(c.right) {
            if case .aggregate = c.right { throw Self.unsupported("a list with values from the store on the right of \(c.operatorType.rawValue) over a to-many") }
            outerRight = try operand(c.right, scope)
        }
        let rows: KeptRows
        switch elements {
        case .toMany(let toMany):
            let (related, join) = try relatedRows(toMany.relationship, owner: toMany.scope)
            rows = KeptRows(from: "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition)", bindings: [],
                            alias: related.alias, entity: related.entity, path: toMany.rest)
        case .kept(let kept):
            rows = kept
        }
        // The SUBQUERY's variable is its own: what is compared here is read from each kept row.
        let inner = Scope(alias: rows.alias, entity: rows.entity, variables: scope.variables)
        var element = c
        // A key path through a second to-many (`ANY folders.notes.title == …`) keeps the modifier,
        // so its rest becomes an EXISTS of its own: ANY and ALL then range over all the elements
        // reached, as in memory, where such a path gives one flattened collection.
        element.modifier = c.modifier == .all ? .all : .any
        element.left = rows.path.isEmpty ? .evaluatedObject : .keyPath(rows.path.joined(separator: "."))
        if c.operatorType == .contains && c.modifier == .direct { element.operatorType = .equal }
        var innerBindings: [SQLiteValue] = []
        let test = try comparison(element, inner, &innerBindings, right: outerRight)
        bindings += rows.bindings + innerBindings
        if c.modifier == .all { return "NOT EXISTS (SELECT 1 \(rows.from) AND NOT coalesce((\(test)), 0))" }
        return "EXISTS (SELECT 1 \(rows.from) AND (\(test)))"
    }

    /// `SUBQUERY(collection, $x, predicate).name`: the objects the subquery keeps, read through
    /// `path` by whoever ranges over them (ANY/ALL/NONE, CONTAINS, IN). As a single value it is a
    /// collection, which equals no single value, as in memory.
    mutating func subqueryValues(_ collection: QueryExpression, _ variable: String, _ predicate: QueryPredicate, _ path: String,
                                 _ scope: Scope) throws -> Operand {
        let components = path.split(separator: ".").map(String.init)
        // In memory an operator further along applies to all the values at once (`.name.@count`
        // counts the kept objects), which no comparison of one row at a time can say.
        if let op = components.first(where: { $0.hasPrefix("@") }) {
            throw Self.unsupported("\(op) inside the key path \(path) after a SUBQUERY (it takes @count, @sum, @avg, @min or @max first)")
        }
        var result = try subqueryRows(collection, variable, predicate, scope)
        result.rows?.path = components
        return result
    }
}
