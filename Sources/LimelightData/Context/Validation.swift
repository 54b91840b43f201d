import Foundation

/// The model's rules checked at save: required values, ranges, lengths, patterns, relationship
/// counts and types.
enum Validation {
    static func failures(of object: ManagedObject) -> [ValidationFailure] {
        let layout = object.entityLayout
        // The common entity has nothing but types to check and no hook to call: one pass over the
        // values decides, and only an object that fails it takes the walk below (which says why).
        if layout.checksTypesOnly, type(of: object) == ManagedObject.self,
           passTypes(object.values, layout.attributeTypes) { return [] }
        var failures: [ValidationFailure] = []
        let kinds = layout.kinds
        // `ManagedObject`'s own hook accepts everything: only subclasses need it called.
        let hasHook = type(of: object) != ManagedObject.self
        // The rules are checked here: the hooks' `super` calls leave them alone meanwhile.
        if hasHook { object.isUnderValidation = true }
        defer { if hasHook { object.isUnderValidation = false } }
        for (index, property) in object.entity.properties.enumerated() {
            let kind = kinds[index]
            if kind == .fetched { continue }
            let raw = object.values[index]
            if kind == .attribute, layout.typeOnlyRules[index], let type = layout.attributeTypes[index],
               AttributeValueCoercion.isCanonical(raw, for: type) {
                // Nothing but the type to check, and the type is right.
            } else if kind == .attribute, let attribute = property as? AttributeDescription {
                if let failure = check(attribute, value: raw.value, object: object).first { failures.append(failure) }
            } else if let relationship = property as? RelationshipDescription, let context = object.managedObjectContext {
                let count = context.relatedIDs(of: object, relationship: relationship, slot: raw).count
                if Self.lacksRequiredObject(relationship, count: count) {
                    failures.append(ValidationFailure(object: object, key: property.name, reason: "a value is required"))
                } else if relationship.isToMany, count > 0 || !relationship.isOptional {
                    if relationship.minCount > 0 && count < relationship.minCount {
                        failures.append(ValidationFailure(object: object, key: property.name,
                            reason: "has \(count) objects, fewer than the minimum \(relationship.minCount)"))
                    }
                    if relationship.maxCount > 0 && count > relationship.maxCount {
                        failures.append(ValidationFailure(object: object, key: property.name,
                            reason: "has \(count) objects, more than the maximum \(relationship.maxCount)"))
                    }
                }
                if !relationship.validationPredicates.isEmpty, count > 0,
                   let value = object.relationshipPublicValue(raw, property: relationship),
                   let failure = predicateFailures(relationship, value: value, object: object).first {
                    failures.append(failure)
                }
            }
            guard hasHook else { continue }
            do {
                // Attributes hand over their stored value directly; relationships their objects.
                let value = kind == .attribute ? raw.value : object.relationshipPublicValue(raw, property: property)
                try object.validateValue(value, forKey: property.name)
            } catch {
                failures += ValidationFailure.failures(from: error, object: object, key: property.name)
            }
        }
        return failures
    }

    /// Whether every value is absent or already of its attribute's type (`nil`: not an attribute).
    private static func passTypes(_ values: [StoredValue], _ types: [AttributeType?]) -> Bool {
        // Through the buffer, each value is looked at where it is: an array's subscript copies.
        values.withUnsafeBufferPointer { values in
            for index in values.indices where !values[index].isNull {
                guard let type = types[index], AttributeValueCoercion.isCanonical(values[index], for: type) else { return false }
            }
            return true
        }
    }

    static func check(_ attribute: AttributeDescription, value: Any?, object: ManagedObject) -> [ValidationFailure] {
        func fail(_ reason: String) -> [ValidationFailure] {
            [ValidationFailure(object: object, key: attribute.name, reason: reason)]
        }
        guard let value else {
            return attribute.isOptional || attribute.isTransient ? [] : fail("a value is required")
        }
        if let composite = attribute as? CompositeAttributeDescription {
            return CompositeValues.failures(of: value, composite: composite, keyPath: attribute.name, object: object)
        }
        // `coerce` answers at once for a value already in the attribute's type.
        if attribute.attributeType != .transformable, attribute.attributeType != .undefined,
           AttributeValueCoercion.coerce(value, to: attribute.attributeType) == nil {
            return fail("expected \(attribute.attributeType.rawValue), got \(type(of: value)) \(value)")
        }
        var measure: Double?
        var unit = ""
        // Only bounded attributes need their measure; working it out costs dynamic casts (and a
        // string's character count) on every attribute of every saved object.
        let isBounded = attribute.minValue != nil || attribute.maxValue != nil
        switch isBounded ? attribute.attributeType : .undefined {
        case let type where type.isNumeric: measure = AttributeValueCoercion.double(value)
        case .string: measure = Double((value as? String)?.count ?? 0); unit = " characters"
        case .binaryData: measure = Double((value as? Data)?.count ?? 0); unit = " bytes"
        case .date: measure = (value as? Date)?.timeIntervalSinceReferenceDate
        default: break
        }
        if let measure {
            if let min = attribute.minValue, measure < min {
                return fail("\(describe(value)) is less than the minimum \(format(min, attribute))\(unit)")
            }
            if let max = attribute.maxValue, measure > max {
                return fail("\(describe(value)) is greater than the maximum \(format(max, attribute))\(unit)")
            }
        }
        if let pattern = attribute.regularExpression, let string = value as? String {
            guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else {
                return fail("the model's regular expression '\(pattern)' is invalid")
            }
            if regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) == nil {
                return fail("'\(string)' does not match the pattern '\(pattern)'")
            }
        }
        return predicateFailures(attribute, value: value, object: object)
    }

    /// The first of the property's validation predicates that `value` (present) fails, reported
    /// with its warning; a predicate that cannot be evaluated on the value fails too, naming why.
    static func predicateFailures(_ property: PropertyDescription, value: Any, object: ManagedObject) -> [ValidationFailure] {
        for (index, predicate) in property.validationPredicates.enumerated() {
            let holds: Bool
            do {
                holds = try predicate.evaluate(with: value)
            } catch {
                return [ValidationFailure(object: object, key: property.name,
                    reason: "its validation predicate \(predicate.predicateFormat) cannot be evaluated: \(error)")]
            }
            if !holds { return [ValidationFailure(object: object, key: property.name, reason: property.validationWarnings[index])] }
        }
        return []
    }

    private static func describe(_ value: Any) -> String {
        if let string = value as? String { return "'\(string)'" }
        if let data = value as? Data { return "\(data.count) bytes" }
        return "\(value)"
    }

    private static func format(_ bound: Double, _ attribute: AttributeDescription) -> String {
        if attribute.attributeType == .date { return "\(Date(timeIntervalSinceReferenceDate: bound))" }
        return bound == bound.rounded() ? String(Int64(bound)) : String(bound)
    }

    /// Whether a required relationship has nothing where it needs something: a required to-one
    /// without an object. A required to-many may be empty, as in Core Data, where only its
    /// minimum count asks for objects; models rely on that (a required to-many of statuses that
    /// reblog a status, of a game's save states, of a record's remote files: all empty at first).
    static func lacksRequiredObject(_ relationship: RelationshipDescription, count: Int) -> Bool {
        !relationship.isOptional && !relationship.isToMany && count == 0
    }

    /// The model's rules for one value of `object`'s property `key`, as `validateValue(_:forKey:)`
    /// checks them: the attribute's type, whether it is required, its bounds and its pattern, or a
    /// relationship's kind, whether it is required and its count.
    static func failures(forValue value: Any?, key: String, of object: ManagedObject) -> [ValidationFailure] {
        guard let property = object.entity.property(named: key) else {
            return [ValidationFailure(object: object, key: key, reason: "entity \(object.entity.name) has no property '\(key)'")]
        }
        if let attribute = property as? AttributeDescription { return check(attribute, value: value, object: object) }
        guard let relationship = property as? RelationshipDescription else { return [] }
        guard let slot = ManagedObject.relationshipSlot(value, toMany: relationship.isToMany) else {
            return [ValidationFailure(object: object, key: key, reason: ManagedObject.relationshipMismatch(value, relationship))]
        }
        let count: Int
        switch slot {
        case .objectID: count = 1
        case .toMany(.loaded(let ids)): count = ids.count
        default: count = 0
        }
        if lacksRequiredObject(relationship, count: count) { return [ValidationFailure(object: object, key: key, reason: "a value is required")] }
        if relationship.isToMany, count > 0 || !relationship.isOptional {
            if relationship.minCount > 0 && count < relationship.minCount {
                return [ValidationFailure(object: object, key: key, reason: "has \(count) objects, fewer than the minimum \(relationship.minCount)")]
            }
            if relationship.maxCount > 0 && count > relationship.maxCount {
                return [ValidationFailure(object: object, key: key, reason: "has \(count) objects, more than the maximum \(relationship.maxCount)")]
            }
        }
        guard count > 0, let value else { return [] }
        return predicateFailures(relationship, value: value, object: object)
    }

    /// Deny rules: an object may not be deleted while a Deny relationship still has objects.
    static func deleteFailures(of object: ManagedObject) -> [ValidationFailure] {
        guard let context = object.managedObjectContext else { return [] }
        var failures: [ValidationFailure] = []
        for (index, property) in object.entity.properties.enumerated() {
            guard let relationship = property as? RelationshipDescription, relationship.deleteRule == .deny else { continue }
            let remaining = context.relatedIDs(of: object, relationship: relationship, slot: object.values[index])
                .filter { !context.object(with: $0).deletedFlag }
            if !remaining.isEmpty {
                failures.append(ValidationFailure(object: object, key: relationship.name,
                    reason: "cannot delete: the Deny rule forbids it while \(remaining.count) related object(s) remain"))
            }
        }
        return failures
    }
}
