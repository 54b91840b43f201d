import Foundation

/// Translates a predicate into an SQL condition over a store's tables, so fetches filter in SQLite
/// instead of loading objects.
///
/// Key paths through to-ones become scalar subqueries; to-many key paths under ANY/ALL/NONE,
/// `@count`, `@sum` … and SUBQUERY become correlated subqueries. Case- and diacritic-insensitive
/// string operators go through the registered `LL_FOLD`, MATCHES through `REGEXP`. What SQL cannot
/// say throws an error naming the part; nothing silently falls back to loading everything.
struct SQLPredicateTranslator {
    let schema: SQLiteSchema
    let entity: EntityDescription

    struct Translation {
        var sql: String
        var bindings: [SQLiteValue]
    }

    /// Where a name in the predicate points: a table alias and the entity of its rows.
    struct Scope {
        var alias: String
        var entity: EntityDescription
        var variables: [String: (alias: String, entity: EntityDescription)] = [:]
        /// The SQL for the primary key of the rows in scope, when it is not `alias.Z_PK`: a to-many
        /// reached through a to-one (`photographer.photos`) is keyed by the to-one's column.
        var key: String?

        var primaryKey: String { key ?? "\(alias).Z_PK" }
    }

    /// An SQL value expression, with what it refers to when it is a managed object.
    struct Operand {
        var sql: String
        var bindings: [SQLiteValue] = []
        /// Set when the operand is an object reference (a pk column), so objects compare by key.
        var isObjectKey = false
        /// The root entity of the objects an object reference names: keys are unique only within
        /// one root entity's table, so objects from two tables never compare equal.
        var objectRoot: EntityDescription?
        /// Set when the operand is a to-many key path: (relationship, owner scope, rest of path).
        var toMany: (relationship: RelationshipDescription, scope: Scope, rest: [String])?
        var attribute: AttributeDescription?
        /// Set when the operand is the objects a bare SUBQUERY keeps, or a key path of them
        /// (`SUBQUERY(…).name`): for `SELF IN SUBQUERY(…)` and ANY/ALL/NONE over them.
        var rows: KeptRows?
        var isNull = false
        /// What kind of value the operand has, when known, for type checks before SQL runs.
        var kind: ValueKind?
    }

    /// The rows a SUBQUERY keeps (`FROM … WHERE …` with its bindings), their alias and entity, and
    /// the key path read from each of them (empty for the objects themselves).
    struct KeptRows {
        var from: String
        var bindings: [SQLiteValue]
        var alias: String
        var entity: EntityDescription
        var path: [String] = []
    }

    /// Kinds of values that compare with each other; SQLite's type affinity would otherwise turn
    /// `name == 42` into `name == '42'`, which in-memory evaluation never does.
    enum ValueKind: String {
        case string = "a string", number = "a number", date = "a date", data = "binary data", uuid = "a UUID", url = "a URL"
        case object = "an object"
        /// The objects a bare SUBQUERY keeps, which are never nil and equal no single value.
        case collection = "a collection"
        /// A composite attribute as a whole, which SQL can only tell present or absent.
        case composite = "a composite attribute's dictionary"

        init?(attribute: AttributeDescription) {
            switch attribute.attributeType {
            case .string: self = .string
            case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: self = .number
            case .date: self = .date
            case .binaryData: self = .data
            case .uuid: self = .uuid
            case .uri: self = .url
            default: return nil
            }
        }

        init?(constant: Any?) {
            switch constant {
            case nil: return nil
            case is String, is EntityDescription: self = .string
            case is Date: self = .date
            case is Data: self = .data
            case is UUID: self = .uuid
            case is URL: self = .url
            case is ManagedObject, is ManagedObjectID: self = .object
            case let value?:
                guard PredicateValues.isNumber(value) else { return nil }
                self = .number
            }
        }
    }

    private var aliasCounter = 0
    /// The `Z_FOK_` columns the store has, which order an ordered to-many's members; `nil` when all
    /// the schema names are there. Without its column, a to-many's members are in key order, as
    /// the store reads them.
    var orderColumnsPresent: Set<SQLiteSchema.OrderColumn>?
    /// Names a dictionary fetch gives its columns, usable as `name` or `$name` in a HAVING predicate.
    var resultColumns: [String: Operand] = [:]
    /// Whether aggregate functions (`sum:` …) become SQL aggregates (SELECT lists and HAVING).
    var allowsAggregates = false

    init(schema: SQLiteSchema, entity: EntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    mutating func translate(_ predicate: QueryPredicate) throws -> Translation {
        var bindings: [SQLiteValue] = []
        let sql = try whereCondition(predicate, &bindings)
        return Translation(sql: sql, bindings: bindings)
    }

    /// The condition of a whole predicate on the rows of `entity` (alias `t0`). A part SQL cannot
    /// say is an error that also quotes the predicate, as a fetch may carry several.
    mutating func whereCondition(_ predicate: QueryPredicate, _ bindings: inout [SQLiteValue]) throws -> String {
        do {
            return try condition(predicate, Scope(alias: "t0", entity: entity), &bindings)
        } catch PersistenceError.invalidRequest(let message) {
            throw PersistenceError.invalidRequest("\(message), in the predicate \(predicate.predicateFormat)")
        }
    }

    static func unsupported(_ part: String) -> PersistenceError {
        .invalidRequest("cannot be said in SQL: \(part)")
    }

    mutating func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    mutating func condition(_ predicate: QueryPredicate, _ scope: Scope, _ bindings: inout [SQLiteValue]) throws -> String {
        switch predicate {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        // SQL's NULL is "unknown"; predicates are two-valued, so unknown counts as false before NOT.
        case .not(let inner): return "NOT coalesce((" + (try condition(inner, scope, &bindings)) + "), 0)"
        // Empty compounds (built in code) mean what they do in memory: AND of nothing holds, OR fails.
        case .and(let parts) where parts.isEmpty: return "1"
        case .or(let parts) where parts.isEmpty: return "0"
        case .and(let parts): return "(" + (try parts.map { try condition($0, scope, &bindings) }).joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + (try parts.map { try condition($0, scope, &bindings) }).joined(separator: " OR ") + ")"
        case .comparison(let comparison): return try self.comparison(comparison, scope, &bindings)
        }
    }

    /// `right`, when given, is the right operand already translated in an outer scope (the object
    /// an ANY/ALL/NONE belongs to), which is where in-memory evaluation reads it too.
    mutating func comparison(_ c: ComparisonPredicate, _ scope: Scope, _ bindings: inout [SQLiteValue], right: Operand? = nil) throws -> String {
        var c = c
        c.left = try Self.folded(c.left)
        c.right = try Self.folded(c.right)
        // Nothing from the store on either side ({1, 2} UNION %@ CONTAINS 3): the answer is the same
        // for every row, so it is computed once, as memory computes it, and written as 1 or 0.
        if right == nil, Self.isConstant(c.left), Self.isConstant(c.right) {
            var evaluator = PredicateEvaluator(variables: [:])
            return try evaluator.evaluate(.comparison(c), nil) ? "1" : "0"
        }
        // ANY/ALL over a list the predicate gives (`ALL %@ IN tags`) range over its elements, as in
        // memory: one comparison per element, any or all of which must hold.
        if c.modifier != .direct, right == nil, let items = Self.constantList(c.left) {
            let parts = items.map { item -> QueryPredicate in
                var single = c
                single.left = .value(item)
                single.modifier = .direct
                return .comparison(single)
            }
            return try condition(c.modifier == .all ? .and(parts) : .or(parts), scope, &bindings)
        }
        if let narrowed = try rTreeComparison(c, scope, &bindings, right: right) { return narrowed }
        let left = try operand(c.left, scope)
        if let toMany = left.toMany {
            return try collectionComparison(c, .toMany(toMany), scope, &bindings, right: right)
        }
        // ANY/ALL/NONE over what a SUBQUERY keeps range over its rows, as over a to-many's; so
        // does CONTAINS over a key path of them (`SUBQUERY(…).name CONTAINS 'x'`).
        if let kept = left.rows, c.modifier != .direct || (c.operatorType == .contains && !kept.path.isEmpty) {
            return try collectionComparison(c, .kept(kept), scope, &bindings, right: right)
        }
        // ANY/ALL (and NONE, which is NOT ANY) on a single value compare that value: apps write
        // `NONE SELF IN %@` and `ANY owner.name == %@`, and in-memory evaluation reads them so too.
        var single = c
        single.modifier = .direct
        return try scalarComparison(single, left, scope, &bindings, right: right)
    }

    /// A key path into values the predicate gives (`{1, 2, 3}.@count`, `%@.name` with objects as the
    /// argument), or a set expression of them, computed once, as in memory, and compared as that
    /// constant: no row is read for it.
    static func folded(_ expression: QueryExpression) throws -> QueryExpression {
        switch expression {
        case .keyPathOf(let base, _) where isConstant(base): break
        // Set expressions of given lists ({1, 2} UNION %@) are lists too, for IN and CONTAINS.
        case .function(let name, _) where ["UNION", "INTERSECT", "MINUS"].contains(name) && isConstant(expression): break
        default: return expression
        }
        var evaluator = PredicateEvaluator(variables: [:])
        return .value(try evaluator.value(expression, nil))
    }

    /// The values of a list written or given in the predicate (`{1, 2}`, `%@` with an array), which
    /// ANY and ALL range over in memory.
    static func constantList(_ expression: QueryExpression) -> [Any?]? {
        switch expression {
        case .aggregate(let items):
            var values: [Any?] = []
            for item in items {
                guard case .constant(let constant) = item else { return nil }
                values.append(constant.value)
            }
            return values
        case .constant(let constant) where !(constant.value is String):
            return PredicateValues.elements(constant.value)
        default:
            return nil
        }
    }

    /// The rows on the other side of a to-many, correlated with `owner`.
    mutating func relatedRows(_ relationship: RelationshipDescription, owner: Scope) throws
        -> ((alias: String, table: String, entity: EntityDescription), (from: String, condition: String, joinAlias: String?)) {
        guard let destination = relationship.destinationEntity, let table = schema.table(for: destination) else {
            throw Self.unsupported("relationship \(relationship.name) has no destination table")
        }
        let alias = newAlias()
        var filter = ""
        if destination !== destination.rootEntity {
            filter = " AND \(alias).Z_ENT IN (\(schema.numberList(of: destination)))"
        }
        if let join = schema.joinTable(for: relationship) {
            let joinAlias = newAlias()
            return ((alias, table.name, destination),
                    ("JOIN \(join.name) \(joinAlias) ON \(joinAlias).\(join.destinationColumn) = \(alias).Z_PK",
                     "\(joinAlias).\(join.sourceColumn) = \(owner.primaryKey)\(filter)", joinAlias))
        }
        guard let inverse = relationship.inverseRelationship else { throw Self.unsupported("to-many \(relationship.name) without inverse") }
        return ((alias, table.name, destination), ("", "\(alias).\(schema.column(for: inverse)) = \(owner.primaryKey)\(filter)", nil))
    }
}
