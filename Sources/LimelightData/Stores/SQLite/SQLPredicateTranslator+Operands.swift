import Foundation

extension SQLPredicateTranslator {
    mutating func operand(_ expression: QueryExpression, _ scope: Scope) throws -> Operand {
        if let result = try resultOperand(expression, scope) { return result }
        switch expression {
        case .constant(let constant): return try constantOperand(constant.value)
        case .evaluatedObject: return Operand(sql: "\(scope.alias).Z_PK", isObjectKey: true)
        case .variable(let name):
            guard let bound = scope.variables[name] else { throw Self.unsupported("the variable $\(name) has no value (substitute it first)") }
            return Operand(sql: "\(bound.alias).Z_PK", isObjectKey: true)
        case .keyPath(let path):
            return try keyPathOperand(path.split(separator: ".").map(String.init), scope)
        case .keyPathOf(.variable(let name), let path):
            guard let bound = scope.variables[name] else { throw Self.unsupported("the variable $\(name) has no value") }
            var inner = scope
            inner.alias = bound.alias
            inner.entity = bound.entity
            return try keyPathOperand(path.split(separator: ".").map(String.init), inner)
        case .keyPathOf(.subquery(let collection, let variable, let predicate), let path) where path == "@count":
            guard case .keyPath(let relationshipPath) = collection, !relationshipPath.contains("."),
                  let relationship = scope.entity.relationshipsByName[relationshipPath], relationship.isToMany else {
                throw Self.unsupported("SUBQUERY over something other than a to-many of the entity: \(PredicatePrinter.format(collection))")
            }
            let (related, join) = try relatedRows(relationship, owner: scope)
            var inner = Scope(alias: related.alias, entity: related.entity, variables: scope.variables)
            inner.variables[variable] = (related.alias, related.entity)
            var bindings: [SQLiteValue] = []
            let test = try condition(predicate, inner, &bindings)
            return Operand(sql: "(SELECT count(*) FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition) AND (\(test)))", bindings: bindings)
        case .function(let name, let args):
            return try functionOperand(name, args, scope)
        case .conditional(let predicate, let yes, let no):
            var bindings: [SQLiteValue] = []
            let test = try condition(predicate, scope, &bindings)
            let a = try operand(yes, scope), b = try operand(no, scope)
            return Operand(sql: "(CASE WHEN \(test) THEN \(a.sql) ELSE \(b.sql) END)", bindings: bindings + a.bindings + b.bindings)
        default:
            throw Self.unsupported(PredicatePrinter.format(expression))
        }
    }

    func constantOperand(_ value: Any?) throws -> Operand {
        switch value {
        case nil: return Operand(sql: "NULL", isNull: true)
        case let object as ManagedObject:
            return Operand(sql: "?", bindings: [object.objectID.primaryKey.map { .integer($0) } ?? .integer(-1)], isObjectKey: true)
        case let id as ManagedObjectID:
            return Operand(sql: "?", bindings: [id.primaryKey.map { .integer($0) } ?? .integer(-1)], isObjectKey: true)
        default:
            return Operand(sql: "?", bindings: [try Self.sqlValue(value)])
        }
    }

    static func sqlValue(_ value: Any?) throws -> SQLiteValue {
        switch value {
        case nil: return .null
        case let string as String: return .text(string)
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
        guard let property = scope.entity.property(named: first) ?? scope.entity.selfAndDescendants.lazy.compactMap({ $0.property(named: first) }).first else {
            throw PersistenceError.invalidRequest("entity \(scope.entity.name) has no property '\(first)'")
        }
        let rest = Array(components.dropFirst())
        if let attribute = property as? AttributeDescription {
            guard rest.isEmpty else { throw Self.unsupported("key path through the attribute \(scope.entity.name).\(first)") }
            guard SQLiteSchema.isStoredInRow(attribute) else { throw Self.unsupported("the transient attribute \(scope.entity.name).\(first)") }
            return Operand(sql: "\(scope.alias).\(schema.column(for: attribute))", attribute: attribute)
        }
        guard let relationship = property as? RelationshipDescription else {
            throw Self.unsupported("the fetched property \(scope.entity.name).\(first)")
        }
        if relationship.isToMany {
            if let op = rest.first, op.hasPrefix("@") {
                let (related, join) = try relatedRows(relationship, owner: scope)
                let from = "FROM \(related.table) \(related.alias) \(join.from) WHERE \(join.condition)"
                if op == "@count" { return Operand(sql: "(SELECT count(*) \(from))") }
                let functions = ["@sum": "total", "@avg": "avg", "@min": "min", "@max": "max"]
                guard let function = functions[op], rest.count >= 2 else { throw Self.unsupported("the collection operator \(op)") }
                let inner = try keyPathOperand(Array(rest.dropFirst()), Scope(alias: related.alias, entity: related.entity, variables: scope.variables))
                return Operand(sql: "(SELECT \(function)(\(inner.sql)) \(from))", bindings: inner.bindings)
            }
            return Operand(sql: "", toMany: (relationship, scope, rest))
        }
        let column = "\(scope.alias).\(schema.column(for: relationship))"
        if rest.isEmpty { return Operand(sql: column, isObjectKey: true) }
        guard let destination = relationship.destinationEntity, let table = schema.table(for: destination) else {
            throw Self.unsupported("relationship \(first) has no destination table")
        }
        if rest.first?.hasPrefix("@") == true { throw Self.unsupported("a collection operator after the to-one \(first)") }
        let alias = newAlias()
        let inner = try keyPathOperand(rest, Scope(alias: alias, entity: destination, variables: scope.variables))
        if let toMany = inner.toMany {
            throw Self.unsupported("the to-many \(toMany.relationship.name) behind the to-one \(first) (use a SUBQUERY)")
        }
        var result = Operand(sql: "(SELECT \(inner.sql) FROM \(table.name) \(alias) WHERE \(alias).Z_PK = \(column))", bindings: inner.bindings)
        result.isObjectKey = inner.isObjectKey
        result.attribute = inner.attribute
        return result
    }

    mutating func functionOperand(_ name: String, _ args: [QueryExpression], _ scope: Scope) throws -> Operand {
        if name == "now" { return Operand(sql: "?", bindings: [.real(Date().timeIntervalSinceReferenceDate)]) }
        if name == "CAST", args.count == 2, case .constant(let value) = args[0], case .constant(let type) = args[1], let typeName = type.value as? String {
            return try constantOperand(try PredicateFunctions.cast(value.value, to: typeName))
        }
        let operands = try args.map { try operand($0, scope) }
        let sql = operands.map(\.sql)
        let bindings = operands.flatMap(\.bindings)
        let binary = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "bitwiseAnd:with:": "&", "bitwiseOr:with:": "|",
                      "leftshift:by:": "<<", "rightshift:by:": ">>", "modulus:by:": "%"]
        if let symbol = binary[name], sql.count == 2 { return Operand(sql: "(\(sql[0]) \(symbol) \(sql[1]))", bindings: bindings) }
        if name == "divide:by:", sql.count == 2 { return Operand(sql: "(CAST(\(sql[0]) AS REAL) / \(sql[1]))", bindings: bindings) }
        if name == "bitwiseXor:with:", sql.count == 2 {
            return Operand(sql: "((\(sql[0]) | \(sql[1])) - (\(sql[0]) & \(sql[1])))", bindings: bindings + bindings)
        }
        let unary = ["uppercase:": "upper", "lowercase:": "lower", "length:": "length", "abs:": "abs", "onesComplement:": "~"]
        if let function = unary[name], sql.count == 1 {
            return Operand(sql: function == "~" ? "(~\(sql[0]))" : "\(function)(\(sql[0]))", bindings: bindings)
        }
        throw Self.unsupported("the function \(name)")
    }
}
