import Foundation

/// One column of a dictionary fetch, resolved against the fetched entity.
enum DictionaryColumn {
    /// A stored attribute, directly or behind to-one relationships (`owner.lastName`), or an
    /// element of a composite attribute (`magnitude.richter`, the element's description): the
    /// components of `key` after `path` name the attribute and its elements.
    case attribute(key: String, path: [RelationshipDescription], attribute: AttributeDescription)
    /// A to-one relationship, directly or behind others: the destination object's ID.
    case toOne(key: String, path: [RelationshipDescription], relationship: RelationshipDescription)
    case expression(ExpressionDescription)

    /// The dictionary key the column's value is stored under.
    var key: String {
        switch self {
        case .attribute(let key, _, _), .toOne(let key, _, _): return key
        case .expression(let description): return description.name
        }
    }

    var isAggregate: Bool {
        if case .expression(let description) = self { return description.isAggregate }
        return false
    }
}

/// What a dictionary fetch asks for, checked against the model before any store runs it:
/// `propertiesToFetch` and `propertiesToGroupBy` resolved to columns, with Core Data's rules for
/// grouping (every fetched column is grouped or an aggregate).
struct DictionaryPlan {
    let entity: EntityDescription
    let columns: [DictionaryColumn]
    let groupBy: [DictionaryColumn]

    init(request: FetchSpecification, entity: EntityDescription) throws {
        self.entity = entity
        if request.propertiesToFetch.isEmpty {
            // Core Data's default: every stored attribute and to-one of the entity.
            columns = entity.properties.compactMap { property in
                if let attribute = property as? AttributeDescription, !attribute.isTransient {
                    return .attribute(key: attribute.name, path: [], attribute: attribute)
                }
                if let relationship = property as? RelationshipDescription, !relationship.isToMany, !relationship.isTransient {
                    return .toOne(key: relationship.name, path: [], relationship: relationship)
                }
                return nil
            }
        } else {
            columns = try request.propertiesToFetch.map { try Self.resolve($0, in: entity, list: "propertiesToFetch") }
        }
        groupBy = try request.propertiesToGroupBy.map { try Self.resolve($0, in: entity, list: "propertiesToGroupBy") }
        var seen: Set<String> = []
        for column in columns where !seen.insert(column.key).inserted {
            throw PersistenceError.invalidRequest("propertiesToFetch names '\(column.key)' twice (entity \(entity.name))")
        }
        if let aggregate = groupBy.first(where: \.isAggregate) {
            throw PersistenceError.invalidRequest("propertiesToGroupBy cannot contain the aggregate '\(aggregate.key)' (entity \(entity.name))")
        }
        let grouped = Set(groupBy.map(\.key))
        for group in groupBy where !seen.contains(group.key) {
            throw PersistenceError.invalidRequest(
                "'\(group.key)' of entity \(entity.name) is in propertiesToGroupBy but not in propertiesToFetch")
        }
        if !groupBy.isEmpty || columns.contains(where: \.isAggregate) {
            for column in columns where !column.isAggregate && !grouped.contains(column.key) {
                throw PersistenceError.invalidRequest(
                    "'\(column.key)' of entity \(entity.name) is fetched but is neither in propertiesToGroupBy nor an aggregate")
            }
        }
        if request.havingPredicate != nil && groupBy.isEmpty {
            throw PersistenceError.invalidRequest("havingPredicate needs propertiesToGroupBy (entity \(entity.name))")
        }
    }

    /// Whether rows are reduced to groups (GROUP BY, or one row of aggregates over everything).
    var isGrouped: Bool { !groupBy.isEmpty || columns.contains(where: \.isAggregate) }

    /// The column `key` names, if it is one of the fetched ones.
    func column(named key: String) -> DictionaryColumn? { columns.first { $0.key == key } }

    static func resolve(_ entry: Any, in entity: EntityDescription, list: String) throws -> DictionaryColumn {
        switch entry {
        case let expression as ExpressionDescription:
            guard !expression.name.isEmpty else {
                throw PersistenceError.invalidRequest("an ExpressionDescription in \(list) of entity \(entity.name) has no name "
                    + "(its results are keyed by it): \(expression.expression)")
            }
            guard expression.hasExpression else {
                throw PersistenceError.invalidRequest("the ExpressionDescription '\(expression.name)' in \(list) of entity \(entity.name) "
                    + "has no expression")
            }
            return .expression(expression)
        case let property as PropertyDescription:
            return try resolve(keyPath: property.name, in: entity, list: list)
        case let keyPath as String:
            return try resolve(keyPath: keyPath, in: entity, list: list)
        default:
            throw PersistenceError.invalidRequest(
                "\(list) of entity \(entity.name): \(type(of: entry)) is not a key path, property or ExpressionDescription")
        }
    }

    /// `a`, `a.b.c`: every step but the last a to-one, the last a stored attribute or a to-one.
    static func resolve(keyPath: String, in entity: EntityDescription, list: String) throws -> DictionaryColumn {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        var path: [RelationshipDescription] = []
        for (position, name) in components.enumerated() {
            guard let property = current.property(named: name)
                    ?? current.selfAndDescendants.lazy.compactMap({ $0.property(named: name) }).first else {
                throw PersistenceError.invalidRequest("\(list): entity \(current.name) has no property '\(name)' (key path '\(keyPath)')")
            }
            let isLast = position == components.count - 1
            if let composite = property as? CompositeAttributeDescription, !isLast {
                // An element of a composite (`magnitude.richter`), or a nested composite.
                let rest = components[(position + 1)...]
                guard let element = composite.element(atPath: rest) else {
                    throw PersistenceError.invalidRequest(
                        "\(list): the composite attribute \(current.name).\(name) has no element '\(rest.joined(separator: "."))' (key path '\(keyPath)')")
                }
                guard !composite.isTransient else {
                    throw PersistenceError.invalidRequest("\(list): \(current.name).\(name) is transient and not stored (key path '\(keyPath)')")
                }
                return .attribute(key: keyPath, path: path, attribute: element)
            }
            if let attribute = property as? AttributeDescription {
                guard isLast else {
                    throw PersistenceError.invalidRequest("\(list): '\(keyPath)' continues after the attribute \(current.name).\(name)")
                }
                guard !attribute.isTransient else {
                    throw PersistenceError.invalidRequest("\(list): \(current.name).\(name) is transient and not stored (key path '\(keyPath)')")
                }
                return .attribute(key: keyPath, path: path, attribute: attribute)
            }
            guard let relationship = property as? RelationshipDescription, !relationship.isTransient else {
                throw PersistenceError.invalidRequest("\(list): \(current.name).\(name) is not stored (key path '\(keyPath)')")
            }
            guard !relationship.isToMany else {
                throw PersistenceError.invalidRequest(
                    "\(list): \(current.name).\(name) is a to-many relationship; dictionaries hold to-ones only (key path '\(keyPath)')")
            }
            if isLast { return .toOne(key: keyPath, path: path, relationship: relationship) }
            guard let destination = relationship.destinationEntity else {
                throw PersistenceError.invalidRequest("\(list): \(current.name).\(name) has no destination entity")
            }
            path.append(relationship)
            current = destination
        }
        throw PersistenceError.invalidRequest("\(list): an empty key path (entity \(entity.name))")
    }
}

/// The type a dictionary column's values come back as.
enum DictionaryValueType {
    case attribute(AttributeType)
    case objectID
    /// Whatever the store holds: integers as `Int64`, reals as `Double`, text as `String`.
    case natural

    static func of(_ description: ExpressionDescription, entity: EntityDescription) -> DictionaryValueType {
        switch description.expressionResultType {
        case .objectID: return .objectID
        case .undefined: return inferred(description.expression, entity: entity)
        case let type: return .attribute(type)
        }
    }

    private static func inferred(_ expression: QueryExpression, entity: EntityDescription) -> DictionaryValueType {
        switch expression {
        case .evaluatedObject: return .objectID
        case .keyPath(let path):
            switch try? DictionaryPlan.resolve(keyPath: path, in: entity, list: "expression") {
            case .attribute(_, _, let attribute)?: return .attribute(attribute.attributeType)
            case .toOne?: return .objectID
            default: return .natural
            }
        case .function(let name, let arguments):
            switch name {
            case "count:": return .attribute(.integer64)
            case "average:", "median:", "stddev:": return .attribute(.double)
            case "sum:":
                if case .attribute(let type) = arguments.first.map({ inferred($0, entity: entity) }) ?? .natural {
                    switch type {
                    case .integer16, .integer32, .integer64, .boolean: return .attribute(.integer64)
                    case .decimal: return .attribute(.decimal)
                    default: return .attribute(.double)
                    }
                }
                return .natural
            case "mode:":
                return .attribute(.double)
            case "min:", "max:":
                return arguments.first.map { inferred($0, entity: entity) } ?? .natural
            default:
                return .natural
            }
        default:
            return .natural
        }
    }
}
