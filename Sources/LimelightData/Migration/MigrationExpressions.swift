import Foundation

extension QueryExpression {
    /// The expression's value for `object` (`SELF`) with `context` giving the `$variables`,
    /// Core Data's `NSExpression.expressionValue(with:context:)`.
    ///
    /// `FUNCTION(receiver, "selector:", arguments…)` is answered as a mapping model's expressions
    /// need it: by a `MigrationManager` (its selectors, see `function(named:arguments:)`), by an
    /// `EntityMigrationPolicy` (its `function(named:arguments:)`), by any object for
    /// `valueForKey:`/`valueForKeyPath:`; sent to nil it answers nil, as a message to nil does.
    /// `FETCH(request, context, countOnly)` runs a fetch request in a context.
    public func expressionValue(with object: Any?, context: [String: Any?] = [:]) throws -> Any? {
        let mapping = (context["entityMapping"] ?? nil) as? EntityMapping
        var evaluator = PredicateEvaluator(variables: context) { receiver, selector, arguments in
            try MigrationFunctionCalls.call(receiver, selector, arguments, mappingName: mapping?.name ?? "")
        }
        return try evaluator.value(self, object)
    }
}

/// Who answers `FUNCTION(…)` and `FETCH(…)` in a migration's expressions.
enum MigrationFunctionCalls {
    static func call(_ receiver: Any?, _ selector: String, _ arguments: [Any?], mappingName: String) throws -> Any? {
        if selector == "FETCH" { return try fetch(arguments) }
        guard let receiver else { return nil }
        switch receiver {
        case let manager as MigrationManager: return try manager.function(named: selector, arguments: arguments)
        case let policy as EntityMigrationPolicy: return try policy.function(named: selector, arguments: arguments)
        default:
            if selector == "valueForKey:" || selector == "valueForKeyPath:" {
                guard arguments.count == 1, let key = arguments[0] as? String else {
                    throw MappingValueError("\(mappingName): \(selector) needs one key string")
                }
                return try PredicateEvaluator.keyPath(key, of: receiver)
            }
            throw MigrationFunctionError(selector: selector, receiver: String(reflecting: type(of: receiver)), entityMapping: mappingName)
        }
    }

    /// `FETCH(request, context, countOnly)`: the objects (or their count) the request finds.
    static func fetch(_ arguments: [Any?]) throws -> Any? {
        guard arguments.count >= 2, let request = arguments[0] as? FetchRequest<ManagedObject>,
              let context = arguments[1] as? ManagedObjectContext else {
            throw MappingValueError("FETCH needs a fetch request and a context, e.g. FETCH(FUNCTION($manager, "
                + "\"fetchRequestForSourceEntityNamed:predicateString:\", \"Note\", \"TRUEPREDICATE\"), $manager.sourceContext, NO)")
        }
        if arguments.count > 2, arguments[2] as? Bool == true { return Int64(try context.count(for: request)) }
        return try context.fetch(request)
    }
}

extension MigrationManager {
    /// Answers `FUNCTION($manager, "selector:", …)` in value and source expressions, with Core
    /// Data's selectors: `destinationInstancesForEntityMappingNamed:sourceInstances:`,
    /// `sourceInstancesForEntityMappingNamed:destinationInstances:`,
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` (what inferred mappings
    /// use: the objects any mapping made from the sources, of the relationship's destination
    /// entity), `fetchRequestForSourceEntityNamed:predicateString:` (and `…includesSubentities:`),
    /// `valueForKey:` and `valueForKeyPath:`. A nil source (an empty to-one) gives no objects
    /// here, where the Swift method given `nil` answers all of them.
    public func function(named selector: String, arguments: [Any?]) throws -> Any? {
        let mappingName = currentEntityMapping?.name ?? ""
        func string(_ index: Int) throws -> String {
            guard index < arguments.count, let text = arguments[index] as? String else {
                throw MappingValueError("\(mappingName): argument \(index + 1) of \(selector) must be a string")
            }
            return text
        }
        func objects(_ index: Int) throws -> [ManagedObject] {
            guard index < arguments.count, let value = arguments[index] else { return [] }
            if let object = value as? ManagedObject { return [object] }
            guard let items = PredicateValues.elements(value) else {
                throw MappingValueError("\(mappingName): argument \(index + 1) of \(selector) must be objects, got \(PredicateValues.describe(value))")
            }
            return items.compactMap { $0 as? ManagedObject }
        }
        func mapping(_ index: Int) throws -> String {
            let name = try string(index)
            guard mappingModel.entityMappings.contains(where: { $0.name == name }) else {
                throw MappingValueError("\(mappingName): \(selector) names entity mapping \(name), which the mapping model does not have "
                    + "(it has \(mappingModel.entityMappings.map(\.name).joined(separator: ", ")))")
            }
            return name
        }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            return destinationInstances(forEntityMappingName: try mapping(0), sourceInstances: try objects(1))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            return sourceInstances(forEntityMappingName: try mapping(0), destinationInstances: try objects(1))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            var result = try objects(1).flatMap { associations.destinations(fromAnyMapping: $0.objectID) }
            if let key = currentPropertyMapping?.name, let entity = currentEntityMapping.flatMap(destinationEntity(for:)),
               let target = entity.relationshipsByName[key]?.destinationEntity {
                result = result.filter { $0.entity.isKind(of: target) }
            }
            return result
        case "fetchRequestForSourceEntityNamed:predicateString:", "fetchRequestForSourceEntityNamed:predicateString:includesSubentities:":
            let request = FetchRequest<ManagedObject>(entityName: try string(0), predicate: try QueryPredicate(format: try string(1)))
            request.includesSubentities = arguments.count > 2 && arguments[2] as? Bool == true
            return request
        case "valueForKey:", "valueForKeyPath:":
            return try PredicateEvaluator.keyPath(try string(0), of: self)
        default:
            throw MigrationFunctionError(selector: selector, receiver: "MigrationManager", entityMapping: mappingName)
        }
    }

    /// A value or source expression's value, with the variables Core Data gives it.
    func evaluate(_ expression: QueryExpression, source: ManagedObject?, policy: EntityMigrationPolicy?,
                  mapping: EntityMapping, property: PropertyMapping?) throws -> Any? {
        currentPropertyMapping = property
        defer { currentPropertyMapping = nil }
        var variables: [String: Any?] = ["manager": self, "entityMapping": mapping]
        if let source { variables["source"] = source }
        if let policy { variables["entityPolicy"] = policy }
        if let property { variables["propertyMapping"] = property }
        var evaluator = PredicateEvaluator(variables: variables) { receiver, selector, arguments in
            try MigrationFunctionCalls.call(receiver, selector, arguments, mappingName: mapping.name)
        }
        do {
            return try evaluator.value(expression, source)
        } catch let error as PredicateEvaluationError {
            let place = property.flatMap(\.name).map { "\(mapping.name).\($0)" } ?? mapping.name
            throw MappingValueError("\(place): \(expression): \(error)")
        }
    }
}
