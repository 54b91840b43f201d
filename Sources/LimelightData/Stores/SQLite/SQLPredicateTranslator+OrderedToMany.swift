import Foundation

extension SQLPredicateTranslator {
    /// `items[FIRST]`, `items[LAST]` and `items[n]` of an ordered to-many: the member at that place,
    /// as a key, found through the `Z_FOK_` positions Core Data keeps beside each link. Members
    /// without a position (linked by a program that keeps none) come after the others, then by key,
    /// which is the order the store reads them in. An unordered to-many is a set, without places.
    mutating func orderedElement(_ expression: QueryExpression, _ base: QueryExpression, _ scope: Scope) throws -> Operand {
        let (sql, destination) = try orderedElementKey(expression, base, scope)
        return Operand(sql: sql, isObjectKey: true, objectRoot: destination.rootEntity, kind: .object)
    }

    /// `items[FIRST].name`: a key path from the member at a place of an ordered to-many.
    mutating func orderedElementKeyPath(_ expression: QueryExpression, _ base: QueryExpression, _ path: String, _ scope: Scope) throws -> Operand {
        let (key, destination) = try orderedElementKey(expression, base, scope)
        guard let table = schema.table(for: destination) else {
            throw Self.unsupported("the entity \(destination.name) has no table")
        }
        let alias = newAlias()
        let inner = try keyPathOperand(path.split(separator: ".").map(String.init), Scope(alias: alias, entity: destination, variables: scope.variables))
        if inner.toMany != nil {
            throw Self.unsupported("the to-many key path \(path) after \(PredicatePrinter.format(expression))")
        }
        var result = Operand(sql: "(SELECT \(inner.sql) FROM \(table.name) \(alias) WHERE \(alias).Z_PK = \(key))",
                             bindings: inner.bindings)
        result.isObjectKey = inner.isObjectKey
        result.objectRoot = inner.objectRoot
        result.attribute = inner.attribute
        result.kind = inner.kind
        return result
    }

    /// The SQL for the key of the member at `expression`'s place, and the members' entity. The
    /// place is written into the SQL as a number, so the key needs no bindings.
    private mutating func orderedElementKey(_ expression: QueryExpression, _ base: QueryExpression, _ scope: Scope) throws
        -> (sql: String, destination: EntityDescription) {
        guard case .index(_, let index) = expression else { throw Self.unsupported(PredicatePrinter.format(expression)) }
        let collection = try operand(base, scope)
        guard let toMany = collection.toMany, toMany.rest.isEmpty else {
            throw Self.unsupported("\(PredicatePrinter.format(expression)): a place is taken in an ordered to-many relationship, "
                                   + "not in \(PredicatePrinter.format(base))")
        }
        let relationship = toMany.relationship
        guard relationship.isOrdered else {
            throw PersistenceError.invalidRequest("\(PredicatePrinter.format(expression)): the to-many \(relationship.name) is unordered, "
                                                  + "a set without a first, last or n-th member")
        }
        var offset = 0
        switch index {
        case .first, .last: break
        case .size: throw Self.unsupported("[SIZE] is a count, not a member")
        case .position(let position):
            guard Self.isConstant(position) else {
                throw Self.unsupported("\(PredicatePrinter.format(expression)): the place in a to-many must be given, not read from the store")
            }
            var evaluator = PredicateEvaluator(variables: [:])
            let value = try evaluator.value(position, nil)
            // Memory reads a place outside the members as nil, a negative one included.
            guard let place = value.flatMap(PredicateValues.integer), place >= 0, place <= Int64(Int32.max) else {
                return ("NULL", relationship.destinationEntity ?? scope.entity)
            }
            offset = Int(place)
        }
        let (related, join) = try relatedRows(relationship, owner: toMany.scope)
        let key = "\(related.alias).Z_PK"
        var terms = [key]
        if let order = schema.orderColumn(for: relationship), orderColumnsPresent?.contains(order) ?? true {
            // The position sits in the join table for a many-to-many, beside the member otherwise.
            let column = "\(join.joinAlias ?? related.alias).\(order.column)"
            terms = ["\(column) IS NULL", column, key]
        }
        // [LAST] reads the same order backwards.
        let orderBy = terms.map { index == .last ? "\($0) DESC" : $0 }.joined(separator: ", ")
        let sql = "(SELECT \(key) FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition) "
            + "ORDER BY \(orderBy) LIMIT 1 OFFSET \(offset))"
        return (sql, related.entity)
    }
}
