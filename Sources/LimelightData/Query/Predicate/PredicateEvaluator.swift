import Foundation

/// Evaluates predicates and expressions in memory with Core Data's semantics.
struct PredicateEvaluator {
    var variables: [String: Any?]
    /// Answers `FUNCTION(receiver, "selector:", arguments…)` (and `FETCH(request, context, NO)`,
    /// passed as the selector `FETCH` with no receiver) where the caller gives calls a meaning: a
    /// migration's value expressions call the migration manager and policies. Without it both are
    /// refused, as there are no Objective-C methods to send.
    var methodCall: ((_ receiver: Any?, _ selector: String, _ arguments: [Any?]) throws -> Any?)?

    init(variables: [String: Any?], methodCall: ((_ receiver: Any?, _ selector: String, _ arguments: [Any?]) throws -> Any?)? = nil) {
        self.variables = variables
        self.methodCall = methodCall
    }

    mutating func evaluate(_ predicate: QueryPredicate, _ object: Any?) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .not(let inner): return try !evaluate(inner, object)
        case .and(let parts):
            for part in parts where try !evaluate(part, object) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, object) { return true }
            return false
        case .comparison(let comparison): return try evaluate(comparison, object)
        }
    }

    private mutating func evaluate(_ comparison: ComparisonPredicate, _ object: Any?) throws -> Bool {
        let left = try value(comparison.left, object)
        let right = try value(comparison.right, object)
        switch comparison.modifier {
        case .direct:
            // The values of a to-many's members are no one value (only CONTAINS looks through
            // them): Core Data's fetch refuses such a key path without ANY, ALL or NONE, and so
            // does evaluation here, rather than answer what a fetch cannot.
            if comparison.operatorType != .contains, Self.mayBeCollection(left), Self.readsToManyValues(comparison.left, object) {
                throw PredicateEvaluationError("the to-many key path \(PredicatePrinter.format(comparison.left)) with "
                                               + "\(comparison.operatorType.rawValue) needs ANY, ALL or NONE")
            }
            return try compare(left, right, comparison)
        case .any:
            if left == nil, Self.crossesToMany(comparison.left, object) { return false }
            guard let items = Self.flattened(left) else { return try compare(left, right, comparison) }
            for item in items where try compare(item, right, comparison) { return true }
            return false
        case .all:
            if left == nil, Self.crossesToMany(comparison.left, object) { return true }
            guard let items = Self.flattened(left) else { return try compare(left, right, comparison) }
            for item in items where try !compare(item, right, comparison) { return false }
            return true
        }
    }

    /// `FUNCTION(receiver, 'valueForKey:', key)` and `'valueForKeyPath:'`, the methods of key-value
    /// coding, which exist here; other methods do not, and FETCH belongs to migrations.
    private mutating func keyValueFunction(_ name: String, _ arguments: [QueryExpression], _ object: Any?) throws -> Any? {
        guard name == "FUNCTION" else { throw PredicateEvaluationError("FETCH(…) is evaluated only in a migration's mapping expressions") }
        let selector = arguments.count >= 2 ? try value(arguments[1], object) as? String : nil
        guard let selector, selector == "valueForKey:" || selector == "valueForKeyPath:" else {
            throw PredicateEvaluationError("FUNCTION(…, '\(selector ?? "?")', …) calls an Objective-C method, which does not exist here; "
                                           + "only valueForKey: and valueForKeyPath: are answered")
        }
        guard arguments.count == 3 else { throw PredicateEvaluationError("FUNCTION(receiver, '\(selector)', key) needs one key") }
        let argument = try value(arguments[2], object)
        guard let key = argument as? String else {
            throw PredicateEvaluationError("FUNCTION(receiver, '\(selector)', key) needs a key string, got \(PredicateValues.describe(argument))")
        }
        let receiver = try value(arguments[0], object)
        return selector == "valueForKey:" ? try Self.value(forKey: key, of: receiver) : try Self.keyPath(key, of: receiver)
    }

    /// Whether `expression` is a key path of `object` that goes through a to-many relationship.
    /// Such a path reads nil when a to-one before the to-many is nil (`owner.items.score` of an
    /// object without owner); ANY and ALL then range over no elements, as the SQL join does.
    static func crossesToMany(_ expression: QueryExpression, _ object: Any?) -> Bool {
        guard case .keyPath(let path) = expression, var entity = (object as? ManagedObject)?.entity else { return false }
        for key in path.split(separator: ".") {
            guard let relationship = entity.relationshipsByName[String(key)] else { return false }
            if relationship.isToMany { return true }
            guard let destination = relationship.destinationEntity else { return false }
            entity = destination
        }
        return false
    }

    /// Whether `value` may be what a key path through a to-many reads: a collection, or nil (a
    /// to-one before it is nil). Asked first, as it is cheaper than looking at the key path.
    static func mayBeCollection(_ value: Any?) -> Bool {
        guard let value else { return true }
        return !(value is String) && PredicateValues.elements(value) != nil
    }

    /// Whether `expression` reads the values of a to-many's members of `object`: a key path through
    /// a to-many without a collection operator (`tags.name`), or a key of one (`tags['name']`).
    static func readsToManyValues(_ expression: QueryExpression, _ object: Any?) -> Bool {
        switch expression {
        case .keyPath(let path): return !path.contains("@") && crossesToMany(expression, object)
        case .index(let base, .position(.constant(let key))) where key.value is String: return readsToManyValues(base, object)
        default: return false
        }
    }

    /// The elements ANY/ALL range over: a key path through two or more to-manys gives
    /// collections of collections, which count as one flat collection (as the SQL joins do).
    static func flattened(_ value: Any?) -> [Any?]? {
        guard let items = PredicateValues.elements(value) else { return nil }
        guard items.contains(where: { PredicateValues.elements($0) != nil }) else { return items }
        return items.flatMap { flattened($0) ?? [$0] }
    }

    func compare(_ left: Any?, _ right: Any?, _ comparison: ComparisonPredicate) throws -> Bool {
        let options = comparison.options
        let op = comparison.operatorType
        switch op {
        case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            try Self.checkDateAndString(left, right, comparison)
        default:
            break
        }
        switch op {
        case .equal: return PredicateValues.equal(left, right, options: options)
        case .notEqual: return !PredicateValues.equal(left, right, options: options)
        case .lessThan: return try order(left, right, op, options) == .orderedAscending
        case .lessThanOrEqual: return [.orderedAscending, .orderedSame].contains(try order(left, right, op, options))
        case .greaterThan: return try order(left, right, op, options) == .orderedDescending
        case .greaterThanOrEqual: return [.orderedDescending, .orderedSame].contains(try order(left, right, op, options))
        case .between:
            guard let bounds = PredicateValues.elements(right), bounds.count == 2 else {
                throw PredicateEvaluationError("BETWEEN needs {low, high} as its right operand, got \(PredicateValues.describe(right))")
            }
            for bound in bounds { try Self.checkDateAndString(left, bound, comparison) }
            guard let low = try order(left, bounds[0], op, options), let high = try order(left, bounds[1], op, options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            if let right, !(right is String), let items = PredicateValues.members(right) {
                for item in items { try Self.checkDateAndString(left, item, comparison) }
                return items.contains { PredicateValues.equal(left, $0, options: options) }
            }
            return try strings(left, right, op, options) { StringFolding.contains($1, $0) }
        case .contains:
            if let left, !(left is String), let items = PredicateValues.elements(left) {
                return items.contains { PredicateValues.equal($0, right, options: options) }
            }
            return try strings(left, right, op, options) { StringFolding.contains($0, $1) }
        case .beginsWith: return try strings(left, right, op, options) { StringFolding.hasPrefix($0, $1) }
        case .endsWith: return try strings(left, right, op, options) { StringFolding.hasSuffix($0, $1) }
        case .like: return try strings(left, right, op, options) { StringFolding.like($0, pattern: $1) }
        // Identifiers are compared as written: case does not matter to UTIs, and [cd] does not apply.
        case .conformsTo: return try strings(left, right, op, []) { UniformTypeConformance.conforms($0, to: $1) }
        case .typeEquals: return try strings(left, right, op, []) { UniformTypeConformance.equal($0, $1) }
        case .matches:
            guard let left, let right else { return false }
            guard let text = left as? String else { throw Self.mismatch("left", of: op, left, wanted: "a string") }
            guard let pattern = right as? String else { throw Self.mismatch("right", of: op, right, wanted: "a pattern string") }
            let subject = options.contains(.diacriticInsensitive) ? StringFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) : text
            return try RegularExpressionMatching.matches(subject, pattern: pattern, caseInsensitive: options.contains(.caseInsensitive))
        }
    }

    /// Refuses a date compared with a string (`created == '2020-01-01'`) for equality too, where
    /// values of other different kinds are simply unequal: Core Data's fetch refuses it (it reads
    /// the string as a date and fails), and evaluation agrees with the fetch. A date is given as one
    /// (`%@` with a `Date`, or `CAST(…, 'NSDate')`).
    static func checkDateAndString(_ left: Any?, _ right: Any?, _ comparison: ComparisonPredicate) throws {
        guard let left, let right, left is Date && right is String || left is String && right is Date else { return }
        throw PredicateEvaluationError("type mismatch: \(comparison.operatorType.rawValue) compares the left operand, "
                                       + "\(PredicateValues.describe(left)) (\(PredicatePrinter.format(comparison.left))), with the right operand, "
                                       + "\(PredicateValues.describe(right)) (\(PredicatePrinter.format(comparison.right))): a date compares only with a date")
    }

    /// The order of two values; nil when either is nil; a typed error when they cannot be ordered.
    private func order(_ left: Any?, _ right: Any?, _ op: ComparisonPredicate.Operator, _ options: ComparisonPredicate.Options) throws -> ComparisonResult? {
        guard let left, let right else { return nil }
        if let result = PredicateValues.compare(left, right, options: options) { return result }
        if let l = left as? Double, l.isNaN { return nil }
        if let r = right as? Double, r.isNaN { return nil }
        throw PredicateEvaluationError("\(op.rawValue) cannot order the left operand, \(PredicateValues.describe(left)), against the right operand, \(PredicateValues.describe(right))")
    }

    static func mismatch(_ side: String, of op: ComparisonPredicate.Operator, _ value: Any?, wanted: String) -> PredicateEvaluationError {
        PredicateEvaluationError("the \(side) operand of \(op.rawValue) must be \(wanted), got \(PredicateValues.describe(value))")
    }

    private func strings(_ left: Any?, _ right: Any?, _ op: ComparisonPredicate.Operator, _ options: ComparisonPredicate.Options,
                         _ test: (String, String) -> Bool) throws -> Bool {
        guard let left, let right else { return false }
        guard let text = left as? String else { throw Self.mismatch("left", of: op, left, wanted: op == .contains ? "a string or a collection" : "a string") }
        guard let other = right as? String else { throw Self.mismatch("right", of: op, right, wanted: op == .in ? "a string or a collection" : "a string") }
        return test(StringFolding.fold(text, options), StringFolding.fold(other, options))
    }

    mutating func value(_ expression: QueryExpression, _ object: Any?) throws -> Any? {
        switch expression {
        case .constant(let constant): return constant.value
        case .evaluatedObject: return object
        case .anyKey: return nil
        case .variable(let name):
            guard let value = variables[name] else { throw PredicateEvaluationError("no value for the variable $\(name)") }
            return value
        case .keyPath(let path): return try Self.keyPath(path, of: object)
        case .keyPathOf(let base, let path): return try Self.keyPath(path, of: try value(base, object))
        case .aggregate(let items): return try items.map { try value($0, object) }
        case .function(let name, let arguments):
            if name == "FUNCTION" || name == "FETCH" {
                guard let methodCall else { return try keyValueFunction(name, arguments, object) }
                if name == "FETCH" { return try methodCall(nil, "FETCH", try arguments.map { try value($0, object) }) }
                guard arguments.count >= 2 else { throw PredicateEvaluationError("FUNCTION needs a receiver and a selector name") }
                let receiver = try value(arguments[0], object)
                guard let selector = try value(arguments[1], object) as? String else {
                    throw PredicateEvaluationError("the second argument of FUNCTION must be a selector name string")
                }
                return try methodCall(receiver, selector, try arguments.dropFirst(2).map { try value($0, object) })
            }
            return try PredicateFunctions.evaluate(name, try arguments.map { try value($0, object) })
        case .conditional(let condition, let yes, let no):
            return try evaluate(condition, object) ? value(yes, object) : value(no, object)
        case .index(let base, let index):
            let collection = try value(base, object)
            let items = PredicateValues.elements(collection) ?? []
            // A set (an unordered to-many) has no places: its "first" member would be whichever
            // hashing put first, and SQL could not agree with it.
            if index != .size, collection is Set<ManagedObject> || collection is Set<AnyHashable> {
                if case .position(let position) = index, try value(position, object) is String {} else {
                    throw PredicateEvaluationError("\(PredicatePrinter.format(expression)): \(PredicatePrinter.format(base)) is an unordered set, "
                                                   + "without a first, last or n-th member")
                }
            }
            switch index {
            case .first: return items.first ?? nil
            case .last: return items.last ?? nil
            case .size: return Int64(items.count)
            case .position(let position):
                let index = try value(position, object)
                // A string index reads a key, as `dictionary['key']` does.
                if let key = index as? String { return try Self.value(forKey: key, of: collection) }
                guard let offset = index.flatMap(PredicateValues.integer), offset >= 0, offset < items.count else { return nil }
                return items[Int(offset)]
            }
        case .subquery(let collection, let variable, let predicate):
            let items = PredicateValues.elements(try value(collection, object)) ?? []
            let saved = variables[variable]
            defer { variables[variable] = saved }
            var result: [Any?] = []
            for item in items {
                variables[variable] = item
                if try evaluate(predicate, item) { result.append(item) }
            }
            return result
        }
    }

    /// Follows a key path like KVC: through objects and dictionaries, mapping over collections,
    /// with collection operators (`@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x`,
    /// `@distinctUnionOfObjects.x`, `@unionOfObjects.x`).
    static func keyPath(_ path: String, of root: Any?) throws -> Any? {
        var components = path.split(separator: ".").map(String.init)[...]
        var current = root
        while let component = components.popFirst() {
            if component.hasPrefix("@"), current != nil, PredicateValues.elements(current) == nil,
               let next = components.first, !next.hasPrefix("@") {
                // Apple's guide writes the operator first (`@sum.items.price < 1000`): of one object,
                // that is the operator over the collection its next key gives, as SQL reads it too.
                components = ArraySlice([next, component] + components.dropFirst())
                continue
            }
            if component.hasPrefix("@") {
                let items = PredicateValues.elements(current) ?? (current == nil ? [] : [current])
                let rest = components.joined(separator: ".")
                components = []
                let mapped = rest.isEmpty ? items : try items.map { try keyPath(rest, of: $0) }
                switch component {
                case "@count": return Int64(mapped.count)
                case "@sum": return try PredicateFunctions.evaluate("sum:", [mapped])
                case "@avg": return try PredicateFunctions.evaluate("average:", [mapped])
                case "@min": return mapped.compactMap { $0 }.min { PredicateValues.compare($0, $1, options: []) == .orderedAscending }
                case "@max": return mapped.compactMap { $0 }.max { PredicateValues.compare($0, $1, options: []) == .orderedAscending }
                case "@unionOfObjects": return mapped
                case "@distinctUnionOfObjects": return try PredicateFunctions.evaluate("distinct:", [mapped])
                case "@unionOfArrays", "@unionOfSets": return mapped.flatMap { PredicateValues.elements($0) ?? [$0] }
                case "@distinctUnionOfArrays", "@distinctUnionOfSets":
                    return try PredicateFunctions.evaluate("distinct:", [mapped.flatMap { PredicateValues.elements($0) ?? [$0] }])
                default: throw PredicateEvaluationError("unknown collection operator \(component)")
                }
            }
            if let items = PredicateValues.elements(current) {
                current = try items.map { try keyPath(component, of: $0) } as [Any?]
                continue
            }
            // The rest of a key path into a composite names its elements, as SQL checks too.
            if !components.isEmpty, let managed = current as? ManagedObject,
               let composite = managed.entity.property(named: component) as? CompositeAttributeDescription {
                let rest = components.prefix { !$0.hasPrefix("@") }
                guard rest.isEmpty || composite.element(atPath: rest) != nil else {
                    throw PredicateEvaluationError("the composite attribute \(managed.entity.name).\(component) has no element '\(rest.joined(separator: "."))'")
                }
            }
            current = try value(forKey: component, of: current)
        }
        return current
    }

    /// Whether `entity` in a key path of objects of `entity` is the object's entity (Core Data's
    /// `entity == %@`): when no entity of the tree has a property of that name.
    static func readsEntity(of entity: EntityDescription) -> Bool {
        !entity.rootEntity.selfAndDescendants.contains { $0.property(named: "entity") != nil }
    }

    /// The value of one key. On a managed object a key no entity of its inheritance tree has is an
    /// error naming the entity and the key (the same error SQL translation gives).
    static func value(forKey key: String, of object: Any?) throws -> Any? {
        switch object {
        case let managed as ManagedObject:
            if key == "entity", readsEntity(of: managed.entity) { return managed.entity }
            if managed.entity.property(named: key) == nil,
               !managed.entity.rootEntity.selfAndDescendants.contains(where: { $0.property(named: key) != nil }) {
                throw PredicateEvaluationError("entity \(managed.entity.name) has no property '\(key)'")
            }
            return managed.value(forKey: key)
        case let entity as EntityDescription: return key == "name" ? entity.name : nil
        // A collection answers a key for each member, as `valueForKey:` of an NSSet or NSArray
        // does: `tags['color']` reads what `tags.color` reads, in SQL too.
        case let object? where PredicateValues.elements(object) != nil:
            return try (PredicateValues.elements(object) ?? []).map { try value(forKey: key, of: $0) } as [Any?]
        // A string's length (`title.length > 0`), counted as `length:` and SQLite's length() count.
        case let string as String where key == "length": return Int64(string.unicodeScalars.count)
        case let readable as KeyValueCodingReadable: return readable.value(forKey: key)
        case let dictionary as [String: Any?]: return dictionary[key] ?? nil
        case let dictionary as [String: Any]: return dictionary[key]
        default: return nil
        }
    }
}
