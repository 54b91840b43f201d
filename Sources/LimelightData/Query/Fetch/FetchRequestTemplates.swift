import Foundation

extension ManagedObjectModel {
    /// The template stored under `name` as a fetch request, its `$VARIABLE`s still unbound; `nil`
    /// when the model has no such template.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest<FetchRequestResult>? {
        guard let template = fetchRequestTemplates[name] else { return nil }
        return try? makeRequest(template, predicate: template.predicateFormat.map { try QueryPredicate(format: $0) })
    }

    /// The template stored under `name` with its variables replaced by `variables` (keys without
    /// the `$`). Throws when there is no such template, its predicate does not parse, or a variable
    /// it uses is not given.
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any?]) throws -> FetchRequest<FetchRequestResult> {
        guard let template = fetchRequestTemplates[name] else {
            throw ModelError("no fetch request template named '\(name)' (templates: \(fetchRequestTemplates.keys.sorted().joined(separator: ", ")))", at: "model")
        }
        var predicate: QueryPredicate?
        if let format = template.predicateFormat {
            let parsed: QueryPredicate
            do {
                parsed = try QueryPredicate(format: format)
            } catch {
                throw ModelError("its predicate does not parse: \(error)", at: "fetch request template '\(name)'")
            }
            let missing = TemplateVariables.names(in: parsed).subtracting(variables.keys)
            guard missing.isEmpty else {
                throw ModelError("no value given for \(missing.sorted().map { "$" + $0 }.joined(separator: ", "))", at: "fetch request template '\(name)'")
            }
            predicate = parsed.withSubstitutionVariables(variables)
        }
        return try makeRequest(template, predicate: predicate)
    }

    private func makeRequest(_ template: FetchRequestTemplate, predicate: QueryPredicate?) throws -> FetchRequest<FetchRequestResult> {
        guard entity(named: template.entityName) != nil else {
            throw ModelError("entity '\(template.entityName)' does not exist", at: "fetch request template '\(template.name)'")
        }
        let request = FetchRequest<FetchRequestResult>(entityName: template.entityName, predicate: predicate)
        request.fetchLimit = template.fetchLimit
        request.fetchBatchSize = template.fetchBatchSize
        request.includesSubentities = template.includesSubentities
        request.includesPropertyValues = template.includesPropertyValues
        request.includesPendingChanges = template.includesPendingChanges
        request.returnsObjectsAsFaults = template.returnsObjectsAsFaults
        request.returnsDistinctResults = template.returnsDistinctResults
        return request
    }
}

/// The free `$VARIABLE`s of a predicate: those a template's user must give (a SUBQUERY's own
/// variable is bound inside it).
enum TemplateVariables {
    static func names(in predicate: QueryPredicate, bound: Set<String> = []) -> Set<String> {
        switch predicate {
        case .truePredicate, .falsePredicate: return []
        case .not(let inner): return names(in: inner, bound: bound)
        case .and(let parts), .or(let parts): return parts.reduce(into: []) { $0.formUnion(names(in: $1, bound: bound)) }
        case .comparison(let comparison): return names(in: comparison.left, bound: bound).union(names(in: comparison.right, bound: bound))
        }
    }

    static func names(in expression: QueryExpression, bound: Set<String>) -> Set<String> {
        switch expression {
        case .variable(let name): return bound.contains(name) ? [] : [name]
        case .keyPathOf(let base, _): return names(in: base, bound: bound)
        case .function(_, let arguments), .aggregate(let arguments):
            return arguments.reduce(into: []) { $0.formUnion(names(in: $1, bound: bound)) }
        case .index(let base, let index):
            if case .position(let position) = index { return names(in: base, bound: bound).union(names(in: position, bound: bound)) }
            return names(in: base, bound: bound)
        case .conditional(let condition, let yes, let no):
            return names(in: condition, bound: bound).union(names(in: yes, bound: bound)).union(names(in: no, bound: bound))
        case .subquery(let collection, let variable, let predicate):
            return names(in: collection, bound: bound).union(names(in: predicate, bound: bound.union([variable])))
        case .constant, .evaluatedObject, .keyPath, .anyKey:
            return []
        }
    }
}
