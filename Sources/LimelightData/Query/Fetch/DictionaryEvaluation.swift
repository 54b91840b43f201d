import Foundation

/// Dictionary results computed from objects, for stores that do not run queries themselves (the
/// in-memory store): the same columns, grouping, HAVING, DISTINCT, order and paging as the SQL
/// the SQLite store runs, with values of the same types.
enum DictionaryEvaluation {
    static func results(of objects: [ManagedObject], request: FetchSpecification, entity: EntityDescription) throws -> [[String: Any]] {
        let plan = try DictionaryPlan(request: request, entity: entity)
        let columnKeys = Set(plan.columns.map(\.key))
        let sortsRows = request.sortDescriptors.allSatisfy { columnKeys.contains($0.key) }
        var rows: [[String: Any]]
        if plan.isGrouped {
            if let key = request.sortDescriptors.first(where: { !columnKeys.contains($0.key) })?.key {
                throw PersistenceError.invalidRequest("a grouped fetch of entity \(entity.name) can only sort by fetched columns, not '\(key)'")
            }
            rows = try groups(of: objects, plan: plan).map { group in try row(plan.columns, group: group, entity: entity) }
            if let having = request.havingPredicate {
                rows = try rows.filter { try having.evaluate(with: $0, substitutionVariables: $0) }
            }
        } else {
            let ordered = sortsRows ? objects : ValueOrdering.sort(objects, by: request.sortDescriptors)
            rows = try ordered.map { object in try row(plan.columns, group: [object], entity: entity) }
        }
        if request.returnsDistinctResults {
            var seen: Set<String> = []
            rows = rows.filter { row in seen.insert(signature(plan.columns.map { row[$0.key] })).inserted }
        }
        if sortsRows, !request.sortDescriptors.isEmpty {
            rows.sort { left, right in
                for descriptor in request.sortDescriptors {
                    let result = ValueOrdering.compare(sortable(left[descriptor.key]), sortable(right[descriptor.key]), comparison: descriptor.comparison)
                    if result == .orderedSame { continue }
                    return descriptor.ascending ? result == .orderedAscending : result == .orderedDescending
                }
                return false
            }
        }
        let start = min(request.fetchOffset, rows.count)
        let end = request.fetchLimit > 0 ? min(rows.count, start + request.fetchLimit) : rows.count
        return Array(rows[start..<end])
    }

    /// Objects grouped by the values of the GROUP BY columns, in order of first appearance; one
    /// group of everything (even of nothing, as SQL gives one row of aggregates) without them.
    private static func groups(of objects: [ManagedObject], plan: DictionaryPlan) throws -> [[ManagedObject]] {
        guard !plan.groupBy.isEmpty else { return [objects] }
        var positions: [String: Int] = [:]
        var members: [[ManagedObject]] = []
        for object in objects {
            let key = signature(try plan.groupBy.map { try value($0, group: [object], entity: plan.entity) })
            if let index = positions[key] {
                members[index].append(object)
            } else {
                positions[key] = members.count
                members.append([object])
            }
        }
        return members
    }

    private static func row(_ columns: [DictionaryColumn], group: [ManagedObject], entity: EntityDescription) throws -> [String: Any] {
        var row: [String: Any] = [:]
        for column in columns {
            if let value = try value(column, group: group, entity: entity) { row[column.key] = value }
        }
        return row
    }

    private static func value(_ column: DictionaryColumn, group: [ManagedObject], entity: EntityDescription) throws -> Any? {
        switch column {
        case .attribute(let key, _, let attribute):
            return coerce(group.first?.value(forKeyPath: key), to: .attribute(attribute.attributeType))
        case .toOne(let key, _, _):
            return coerce(group.first?.value(forKeyPath: key), to: .objectID)
        case .expression(let description):
            return coerce(try evaluate(description.expression, group: group), to: DictionaryValueType.of(description, entity: entity))
        }
    }

    /// An expression over a group: aggregate functions reduce the group, everything else reads
    /// the group's first object (the grouped values are the same for all of them).
    private static func evaluate(_ expression: QueryExpression, group: [ManagedObject]) throws -> Any? {
        var evaluator = PredicateEvaluator(variables: [:])
        guard case .function(let name, let arguments) = expression, ExpressionDescription.containsAggregate(expression) else {
            return try evaluator.value(expression, group.first)
        }
        guard ExpressionDescription.aggregateFunctions.contains(name) else {
            return try PredicateFunctions.evaluate(name, try arguments.map { try evaluate($0, group: group) })
        }
        if name == "count:", arguments.isEmpty || arguments == [.evaluatedObject] { return Int64(group.count) }
        guard let argument = arguments.first, arguments.count == 1 else {
            throw PersistenceError.invalidRequest("\(name) takes one argument, got \(arguments.count)")
        }
        let values = try group.compactMap { try evaluator.value(argument, $0) }.map { ($0 as? ManagedObject)?.objectID ?? $0 }
        switch name {
        case "count:": return Int64(values.count)
        case "min:", "max:":
            let wanted: ComparisonResult = name == "min:" ? .orderedAscending : .orderedDescending
            return values.reduce(nil as Any?) { best, next in
                guard let best else { return next }
                return ValueOrdering.compare(next, best, comparison: .standard) == wanted ? next : best
            }
        case "mode:":
            // One value per column: the most frequent, the smallest when several tie (as in SQL).
            return values.isEmpty ? nil : PredicateValues.elements(try PredicateFunctions.evaluate(name, [values]))?.first ?? nil
        default:
            // As in SQL, an aggregate of no values is NULL.
            return values.isEmpty ? nil : try PredicateFunctions.evaluate(name, [values])
        }
    }

    /// A value in the type the SQLite store gives for the same column.
    static func coerce(_ value: Any?, to type: DictionaryValueType) -> Any? {
        guard let value else { return nil }
        if let object = value as? ManagedObject { return object.objectID }
        switch type {
        case .objectID: return value as? ManagedObjectID
        case .attribute(.date):
            return value as? Date ?? AttributeValueCoercion.double(value).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .attribute(let attributeType):
            if attributeType.isNumeric || attributeType == .boolean {
                return AttributeValueCoercion.coerce(value, to: attributeType)
                    ?? AttributeValueCoercion.double(value).flatMap { AttributeValueCoercion.coerce($0.rounded(), to: attributeType) }
            }
            return AttributeValueCoercion.coerce(value, to: attributeType) ?? value
        case .natural:
            switch value {
            case let date as Date: return date.timeIntervalSinceReferenceDate
            case is Double, is Float, is Decimal: return AttributeValueCoercion.double(value)
            default: return AttributeValueCoercion.integer(value) ?? value
            }
        }
    }

    private static func sortable(_ value: Any?) -> Any? {
        (value as? ManagedObjectID).map { $0.primaryKey as Any } ?? value
    }

    /// Text that is equal for values SQL treats as equal (1 and 1.0 alike), for grouping and
    /// DISTINCT by hashing instead of comparing every pair.
    private static func signature(_ values: [Any?]) -> String {
        values.map { value -> String in
            switch value {
            case nil: return "-"
            case let id as ManagedObjectID: return "o" + id.uriString
            case let date as Date: return "n\(date.timeIntervalSinceReferenceDate)"
            case let text as String: return "s" + text
            case let number? where !(number is Data) && AttributeValueCoercion.double(number) != nil:
                return "n\(AttributeValueCoercion.double(number) ?? 0)"
            case let other?: return "\(type(of: other)):\(other)"
            }
        }.joined(separator: "\u{1F}")
    }
}
