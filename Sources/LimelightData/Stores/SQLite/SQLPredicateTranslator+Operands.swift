import Foundation

extension SQLPredicateTranslator {
    mutating func operand(_ expression: QueryExpression, _ scope: Scope) throws -> Operand {
        if let result = try resultOperand(expression, scope) { return result }
        if case .index = expression, Self.isConstant(expression) {
            var evaluator = PredicateEvaluator(variables: [:])
            return try constantOperand(try evaluator.value(expression, nil))
        }
        switch expression {
        case .constant(let constant): return try constantOperand(constant.value)
        case .evaluatedObject: return Operand(sql: "\(scope.alias).Z_PK", isObjectKey: true, objectRoot: scope.entity.rootEntity, kind: .object)
        case .variable(let name):
            guard let bound = scope.variables[name] else { throw Self.unsupported("the variable $\(name) has no value (substitute it first)") }
            return Operand(sql: "\(bound.alias).Z_PK", isObjectKey: true, objectRoot: bound.entity.rootEntity, kind: .object)
        case .keyPath(let path):
            return try keyPathOperand(path.split(separator: ".").map(String.init), scope)
        case .keyPathOf(.variable(let name), let path):
            guard let bound = scope.variables[name] else { throw Self.unsupported("the variable $\(name) has no value") }
            var inner = scope
            inner.alias = bound.alias
            inner.entity = bound.entity
            return try keyPathOperand(path.split(separator: ".").map(String.init), inner)
        case .keyPathOf(.subquery(let collection, let variable, let predicate), let path) where path.hasPrefix("@"):
            return try subqueryAggregate(collection, variable, predicate, path, scope)
        case .keyPathOf(.subquery(let collection, let variable, let predicate), let path):
            return try subqueryValues(collection, variable, predicate, path, scope)
        case .index(.subquery(let collection, let variable, let predicate), .size):
            return try subqueryAggregate(collection, variable, predicate, "@count", scope)
        case .subquery(let collection, let variable, let predicate):
            return try subqueryRows(collection, variable, predicate, scope)
        case .index(let base, .size):
            // [SIZE] of a to-many is its @count; of a constant list, its length.
            if case .aggregate(let items) = base { return try constantOperand(Int64(items.count)) }
            let collection = try operand(base, scope)
            guard let toMany = collection.toMany, toMany.rest.isEmpty else {
                throw Self.unsupported("[SIZE] of something other than a to-many relationship: \(PredicatePrinter.format(base))")
            }
            let (related, join) = try relatedRows(toMany.relationship, owner: toMany.scope)
            return Operand(sql: "(SELECT count(*) FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition))", kind: .number)
        case .index(let base, .position(.constant(let key))) where key.value is String:
            return try operand(try Self.keyed(base, key.value as? String ?? "", in: expression), scope)
        case .index(let base, .first), .index(let base, .last), .index(let base, .position):
            return try orderedElement(expression, base, scope)
        case .keyPathOf(.index(let base, let index), let path):
            return try orderedElementKeyPath(.index(base, index), base, path, scope)
        case .function(let name, let args):
            return try functionOperand(name, args, scope)
        case .conditional(let predicate, let yes, let no):
            var bindings: [SQLiteValue] = []
            let test = try condition(predicate, scope, &bindings)
            let a = try operand(yes, scope), b = try operand(no, scope)
            return Operand(sql: "(CASE WHEN \(test) THEN \(a.sql) ELSE \(b.sql) END)", bindings: bindings + a.bindings + b.bindings,
                           kind: a.kind == b.kind ? a.kind : nil)
        default:
            throw Self.unsupported(PredicatePrinter.format(expression))
        }
    }

    func constantOperand(_ value: Any?) throws -> Operand {
        switch value {
        case nil: return Operand(sql: "NULL", isNull: true)
        case let object as ManagedObject:
            return Operand(sql: "?", bindings: [object.objectID.primaryKey.map { .integer($0) } ?? .integer(-1)], isObjectKey: true,
                           objectRoot: object.objectID.entity.rootEntity, kind: .object)
        case let id as ManagedObjectID:
            return Operand(sql: "?", bindings: [id.primaryKey.map { .integer($0) } ?? .integer(-1)], isObjectKey: true,
                           objectRoot: id.entity.rootEntity, kind: .object)
        default:
            return Operand(sql: "?", bindings: [try Self.sqlValue(value)], kind: ValueKind(constant: value))
        }
    }

    /// The FROM clause of the rows `SUBQUERY(collection, $x, predicate)` keeps, correlated with the
    /// owner in `scope`, with its bindings and the related rows' alias and entity.
    private mutating func subqueryFrom(_ collection: QueryExpression, _ variable: String, _ predicate: QueryPredicate,
                                       _ scope: Scope) throws -> (String, [SQLiteValue], (alias: String, entity: EntityDescription)) {
        let rows = try operand(collection, scope)
        guard let toMany = rows.toMany, toMany.rest.isEmpty else {
            throw Self.unsupported("SUBQUERY over something other than a to-many relationship: \(PredicatePrinter.format(collection))")
        }
        let (related, join) = try relatedRows(toMany.relationship, owner: toMany.scope)
        var inner = Scope(alias: related.alias, entity: related.entity, variables: scope.variables)
        inner.variables[variable] = (related.alias, related.entity)
        var bindings: [SQLiteValue] = []
        let test = try condition(predicate, inner, &bindings)
        let from = "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition) AND (\(test))"
        return (from, bindings, (related.alias, related.entity))
    }

    /// The rows a bare `SUBQUERY(collection, $x, predicate)` keeps, for membership (`SELF IN
    /// SUBQUERY(…)`). As a value it is a collection: never nil, equal to no number or string.
    mutating func subqueryRows(_ collection: QueryExpression, _ variable: String, _ predicate: QueryPredicate, _ scope: Scope) throws -> Operand {
        let (from, bindings, related) = try subqueryFrom(collection, variable, predicate, scope)
        var result = Operand(sql: "1", kind: .collection)
        result.rows = KeptRows(from: from, bindings: bindings, alias: related.alias, entity: related.entity)
        return result
    }

    /// `SUBQUERY(collection, $x, predicate).@count`, and `.@sum.x`, `.@avg.x`, `.@min.x`, `.@max.x`,
    /// as a correlated aggregate over the rows the subquery keeps.
    mutating func subqueryAggregate(_ collection: QueryExpression, _ variable: String, _ predicate: QueryPredicate, _ path: String,
                                    _ scope: Scope) throws -> Operand {
        let (from, bindings, related) = try subqueryFrom(collection, variable, predicate, scope)
        let components = path.split(separator: ".").map(String.init)
        if components == ["@count"] { return Operand(sql: "(SELECT count(*) \(from))", bindings: bindings, kind: .number) }
        let functions = ["@sum": "total", "@avg": "avg", "@min": "min", "@max": "max"]
        guard let op = components.first, let function = functions[op], components.count >= 2 else {
            throw Self.unsupported("\(path) after a SUBQUERY (it takes @count, or @sum, @avg, @min or @max with a key path)")
        }
        let value = try keyPathOperand(Array(components.dropFirst()), Scope(alias: related.alias, entity: related.entity, variables: scope.variables))
        if value.toMany != nil { throw Self.unsupported("\(path) through a to-many after a SUBQUERY") }
        let kind = function == "min" || function == "max" ? value.kind : .number
        return Operand(sql: "(SELECT \(function)(\(value.sql)) \(from))", bindings: value.bindings + bindings, kind: kind)
    }

    /// `entity` (or `entity.name`) of the objects in `scope`, as Core Data's predicates use it to
    /// tell an entity from its sub-entities (`entity == %@`): the row's entity number read as the
    /// entity's name, which entity constants are compared as.
    func entityOperand(_ rest: [String], _ scope: Scope) throws -> Operand {
        guard rest.isEmpty || rest == ["name"] else {
            throw Self.unsupported("entity.\(rest.joined(separator: ".")): of an object's entity, a predicate reads the entity or its name")
        }
        let names = scope.entity.rootEntity.selfAndDescendants.map { entity in
            "WHEN \(schema.number(of: entity)) THEN '\(entity.name.replacingOccurrences(of: "'", with: "''"))'"
        }
        return Operand(sql: "(CASE \(scope.alias).Z_ENT \(names.joined(separator: " ")) END)", kind: .string)
    }

    static func sqlValue(_ value: Any?) throws -> SQLiteValue {
        switch value {
        case nil: return .null
        case let string as String: return .text(string)
        // An entity compares by its name, as `entity` reads in SQL (`entityOperand`).
        case let entity as EntityDescription: return .text(entity.name)
        case let bool as Bool: return .integer(bool ? 1 : 0)
        case let date as Date: return .real(date.timeIntervalSinceReferenceDate)
        case let uuid as UUID: return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case let url as URL: return .text(url.absoluteString)
        case let data as Data: return .blob(data)
        case let decimal as Decimal: return .real(NSDecimalNumber(decimal: decimal).doubleValue)
        case let double as Double: return .real(double)
        case let float as Float: return .real(Double(float))
        case let value?:
            if let integer = AttributeValueCoercion.integer(value) { return .integer(integer) }
            throw unsupported("a constant of type \(type(of: value))")
        }
    }

    /// A key path from `scope`: a column, a scalar subquery through to-ones, an aggregate over a
    /// to-many, or (returned as `toMany`) a to-many for ANY/ALL/NONE.
    mutating func keyPathOperand(_ components: [String], _ scope: Scope) throws -> Operand {
        guard let first = components.first else { throw Self.unsupported("an empty key path") }
        if first == "entity", PredicateEvaluator.readsEntity(of: scope.entity) { return try entityOperand(Array(components.dropFirst()), scope) }
        guard let property = scope.entity.property(named: first) ?? scope.entity.selfAndDescendants.lazy.compactMap({ $0.property(named: first) }).first else {
            if first.hasPrefix("@") {
                // Apple's guide writes the operator first (`@sum.items.price < 1000`); over a to-many
                // that is the operator after it, which is how memory reads it too.
                if components.count >= 2, let relationship = scope.entity.property(named: components[1]) as? RelationshipDescription,
                   relationship.isToMany {
                    return try keyPathOperand([components[1], first] + components.dropFirst(2), scope)
                }
                throw Self.unsupported("the collection operator \(first) at the start of \(components.joined(separator: ".")): "
                                       + "it follows a to-many relationship, as in items.@sum.price")
            }
            throw PersistenceError.invalidRequest("entity \(scope.entity.name) has no property '\(first)'")
        }
        let rest = Array(components.dropFirst())
        if let composite = property as? CompositeAttributeDescription {
            return try compositeOperand(composite, rest: rest, scope)
        }
        if let attribute = property as? AttributeDescription {
            if rest == ["length"], attribute.attributeType == .string, SQLiteSchema.isStoredInRow(attribute) {
                // A string's length (`title.length > 0`), as in memory.
                return Operand(sql: "length(\(scope.alias).\(schema.column(for: attribute)))", kind: .number)
            }
            guard rest.isEmpty else { throw Self.unsupported("key path through the attribute \(scope.entity.name).\(first)") }
            guard SQLiteSchema.isStoredInRow(attribute) else { throw Self.unsupported("the transient attribute \(scope.entity.name).\(first)") }
            return Operand(sql: "\(scope.alias).\(schema.column(for: attribute))", attribute: attribute, kind: ValueKind(attribute: attribute))
        }
        guard let relationship = property as? RelationshipDescription else {
            throw Self.unsupported("the fetched property \(scope.entity.name).\(first)")
        }
        if relationship.isToMany {
            if let op = rest.first, op.hasPrefix("@") {
                let (related, join) = try relatedRows(relationship, owner: scope)
                let from = "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition)"
                if op == "@count" {
                    guard rest.count == 1 else { throw Self.unsupported("a key path after \(first).@count") }
                    return Operand(sql: "(SELECT count(*) \(from))", kind: .number)
                }
                let functions = ["@sum": "total", "@avg": "avg", "@min": "min", "@max": "max"]
                guard let function = functions[op], rest.count >= 2 else {
                    throw Self.unsupported("the collection operator \(first).\(op)\(rest.count < 2 && functions[op] != nil ? " without a key path after it" : "")")
                }
                let inner = try keyPathOperand(Array(rest.dropFirst()), Scope(alias: related.alias, entity: related.entity, variables: scope.variables))
                if inner.toMany != nil { throw Self.unsupported("\(op) over a to-many inside the to-many \(first)") }
                let kind: ValueKind? = function == "min" || function == "max" ? inner.kind : .number
                return Operand(sql: "(SELECT \(function)(\(inner.sql)) \(from))", bindings: inner.bindings, kind: kind)
            }
            return Operand(sql: "", toMany: (relationship, scope, rest))
        }
        let column = "\(scope.alias).\(schema.column(for: relationship))"
        if rest.isEmpty { return Operand(sql: column, isObjectKey: true, objectRoot: relationship.destinationEntity?.rootEntity, kind: .object) }
        guard let destination = relationship.destinationEntity, let table = schema.table(for: destination) else {
            throw Self.unsupported("relationship \(first) has no destination table")
        }
        if rest.first?.hasPrefix("@") == true { throw Self.unsupported("a collection operator after the to-one \(first)") }
        if scope.key == nil, let next = rest.first,
           let relationship = destination.selfAndDescendants.lazy.compactMap({ $0.property(named: next) as? RelationshipDescription }).first,
           relationship.isToMany {
            // A to-many right behind this to-one: its rows are those of the object the column points to.
            return try keyPathOperand(rest, Scope(alias: column, entity: destination, variables: scope.variables, key: column))
        }
        let alias = newAlias()
        let inner = try keyPathOperand(rest, Scope(alias: alias, entity: destination, variables: scope.variables))
        if let toMany = inner.toMany {
            throw Self.unsupported("the to-many \(toMany.relationship.name) behind the to-one \(first) (use a SUBQUERY)")
        }
        var result = Operand(sql: "(SELECT \(inner.sql) FROM \(table.name) \(alias) WHERE \(alias).Z_PK = \(column))", bindings: inner.bindings)
        result.isObjectKey = inner.isObjectKey
        result.objectRoot = inner.objectRoot
        result.attribute = inner.attribute
        result.kind = inner.kind
        return result
    }

    /// An element of a composite attribute (`magnitude.richter`): its flattened column. The
    /// composite itself (or a nested one) is a value only as far as SQL can tell, whether it has
    /// one: NULL when every element column is, for `magnitude == nil`.
    func compositeOperand(_ composite: CompositeAttributeDescription, rest: [String], _ scope: Scope) throws -> Operand {
        let owner = "\(scope.entity.name).\(composite.name)"
        guard SQLiteSchema.isStoredInRow(composite) else { throw Self.unsupported("the transient attribute \(owner)") }
        guard let element = rest.isEmpty ? composite : composite.element(atPath: rest) else {
            throw PersistenceError.invalidRequest("the composite attribute \(owner) has no element '\(rest.joined(separator: "."))'")
        }
        guard let nested = element as? CompositeAttributeDescription else {
            let column = SQLiteSchema.columnName(forPath: [composite.name] + rest)
            return Operand(sql: "\(scope.alias).\(column)", attribute: element, kind: ValueKind(attribute: element))
        }
        let empty = nested.leafElements.map { "\(scope.alias).\(SQLiteSchema.columnName(forPath: [composite.name] + rest + $0.path)) IS NULL" }
        return Operand(sql: "(CASE WHEN \(empty.joined(separator: " AND ")) THEN NULL ELSE 1 END)", attribute: nested, kind: .composite)
    }

    mutating func functionOperand(_ name: String, _ args: [QueryExpression], _ scope: Scope) throws -> Operand {
        if name == "now" { return Operand(sql: "?", bindings: [.real(Date().timeIntervalSinceReferenceDate)], kind: .date) }
        if name == "random" || name == "random:" || name == "randomn:" {
            throw Self.unsupported("the function \(name): a random number per row cannot agree with evaluation in memory")
        }
        if name == "FUNCTION" || name == "FETCH" { throw Self.unsupported("\(name)(…), which calls a method on objects in memory") }
        // Functions of constants are computed here once and bound as their value.
        if args.allSatisfy(Self.isConstant) {
            var evaluator = PredicateEvaluator(variables: [:])
            let values = try args.map { try evaluator.value($0, nil) }
            return try constantOperand(try PredicateFunctions.evaluate(name, values))
        }
        if name == "CAST", args.count == 2, case .constant(let type) = args[1], let typeName = type.value as? String {
            // Dates are stored as seconds since 2001, so casts between numbers and dates are the value itself.
            guard ["NSDate", "Date", "NSNumber", "Number"].contains(typeName) else {
                throw Self.unsupported("CAST to \(typeName) of a value from the store")
            }
            var value = try operand(args[0], scope)
            guard value.kind == nil || value.kind == .number || value.kind == .date else {
                throw Self.unsupported("CAST of \(value.kind?.rawValue ?? "a value") to \(typeName)")
            }
            value.kind = typeName.hasSuffix("Date") ? .date : .number
            return value
        }
        if name == "noindex:", args.count == 1 { return try operand(args[0], scope) }
        // Outside a comparison it can narrow (`SQLPredicateTranslator+RTree`), the attribute itself.
        if name == Self.rTreeFunction, args.count == 2 { return try operand(args[0], scope) }
        if ["sum:", "count:", "min:", "max:", "average:"].contains(name), args.count == 1 {
            return try aggregateFunction(name, args[0], scope)
        }
        let operands = try args.map { try operand($0, scope) }
        for (index, operand) in operands.enumerated() where operand.toMany != nil {
            throw Self.unsupported("a to-many key path as \(PredicateFunctions.operandName(index, of: name))")
        }
        let sql = operands.map(\.sql)
        let bindings = operands.flatMap(\.bindings)
        let numeric: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
            "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:",
            "abs:", "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:"]
        if numeric.contains(name) {
            for (index, operand) in operands.enumerated() where operand.kind != nil && operand.kind != .number {
                throw PersistenceError.invalidRequest(
                    "type mismatch: \(PredicateFunctions.operandName(index, of: name)) is \(operand.kind?.rawValue ?? "not a number"), not a number")
            }
        }
        let binary = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|",
                      "leftshift:by:": "<<", "rightshift:by:": ">>", "modulus:by:": "%"]
        if let symbol = binary[name], sql.count == 2 { return Operand(sql: "(\(sql[0]) \(symbol) \(sql[1]))", bindings: bindings, kind: .number) }
        if name == "divide:by:", sql.count == 2 { return Operand(sql: "(CAST(\(sql[0]) AS REAL) / \(sql[1]))", bindings: bindings, kind: .number) }
        if name == "bitwiseXor:with:", sql.count == 2 {
            return Operand(sql: "((\(sql[0]) | \(sql[1])) - (\(sql[0]) & \(sql[1])))", bindings: bindings + bindings, kind: .number)
        }
        if name == "raise:toPower:", sql.count == 2 { return Operand(sql: "LL_MATH('pow', \(sql[0]), \(sql[1]))", bindings: bindings, kind: .number) }
        let math = ["sqrt:": "sqrt", "log:": "log", "ln:": "ln", "exp:": "exp", "floor:": "floor", "ceiling:": "ceiling", "trunc:": "trunc"]
        if let function = math[name], sql.count == 1 { return Operand(sql: "LL_MATH('\(function)', \(sql[0]))", bindings: bindings, kind: .number) }
        let unary: [String: (String, ValueKind)] = ["uppercase:": ("LL_UPPER", .string), "lowercase:": ("LL_LOWER", .string),
            "length:": ("length", .number), "abs:": ("abs", .number)]
        if let (function, kind) = unary[name], sql.count == 1 { return Operand(sql: "\(function)(\(sql[0]))", bindings: bindings, kind: kind) }
        if name == "onesComplement:", sql.count == 1 { return Operand(sql: "(~\(sql[0]))", bindings: bindings, kind: .number) }
        throw Self.unsupported("the function \(name) with \(args.count) argument\(args.count == 1 ? "" : "s") on values from the store")
    }

    /// `sum:(tags.price)`, `count:(tags)`, `average:(…)` … over a to-many: an aggregate subquery.
    private mutating func aggregateFunction(_ name: String, _ argument: QueryExpression, _ scope: Scope) throws -> Operand {
        let collection = try operand(argument, scope)
        guard let toMany = collection.toMany else {
            throw Self.unsupported("\(name) of something other than a to-many key path: \(PredicatePrinter.format(argument))")
        }
        let (related, join) = try relatedRows(toMany.relationship, owner: toMany.scope)
        let from = "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition)"
        if name == "count:" {
            guard toMany.rest.isEmpty else { throw Self.unsupported("count: of a key path through the to-many \(toMany.relationship.name)") }
            return Operand(sql: "(SELECT count(*) \(from))", kind: .number)
        }
        guard !toMany.rest.isEmpty else { throw Self.unsupported("\(name) of the objects of \(toMany.relationship.name) (name an attribute)") }
        let inner = try keyPathOperand(toMany.rest, Scope(alias: related.alias, entity: related.entity, variables: scope.variables))
        if inner.toMany != nil { throw Self.unsupported("\(name) over a to-many inside the to-many \(toMany.relationship.name)") }
        // The least and the greatest are those of dates and strings too, as @min and @max.
        let ordersAny = name == "min:" || name == "max:"
        guard inner.kind == nil || inner.kind == .number || ordersAny else {
            throw PersistenceError.invalidRequest("type mismatch: the argument of \(name) is \(inner.kind?.rawValue ?? ""), not a number")
        }
        let function = ["sum:": "total", "min:": "min", "max:": "max", "average:": "avg"][name] ?? "total"
        return Operand(sql: "(SELECT \(function)(\(inner.sql)) \(from))", bindings: inner.bindings, kind: ordersAny ? inner.kind : .number)
    }

    /// Whether an expression is a constant, or built only from constants by pure functions.
    static func isConstant(_ expression: QueryExpression) -> Bool {
        switch expression {
        case .constant: return true
        case .aggregate(let items): return items.allSatisfy(isConstant)
        case .function(let name, let args): return !["now", "random", "random:", "randomn:", "FUNCTION", "FETCH"].contains(name) && args.allSatisfy(isConstant)
        case .index(let base, .position(let position)): return isConstant(base) && isConstant(position)
        case .index(let base, _): return isConstant(base)
        default: return false
        }
    }
}
