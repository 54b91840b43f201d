import Foundation

/// A to-many relationship slot: not yet loaded, or the related IDs in order.
@usableFromInline
enum ToManySlot {
    case fault
    case loaded(RelatedIDs)
}

extension ManagedObject {
    // MARK: Key-value access with change tracking

    /// Follows a dotted key path through to-one relationships; through a to-many it maps over
    /// the related objects; into a composite attribute it reads the element
    /// (`magnitude.richter`, `quake.magnitude.richter`).
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: [Any] = [self]
        var isCollection = false
        for component in keyPath.split(separator: ".") {
            var next: [Any] = []
            for item in current {
                guard let object = item as? ManagedObject else {
                    // An element of a composite's value (a dictionary, or a nested one).
                    if let element = CompositeValues.dictionary(item)?[String(component)] {
                        next.append(element)
                    } else if !isCollection {
                        return nil
                    }
                    continue
                }
                switch object.value(forKey: String(component)) {
                case let set as Set<ManagedObject>: next.append(contentsOf: Array(set)); isCollection = true
                case let array as [ManagedObject]: next.append(contentsOf: array); isCollection = true
                case let value?: next.append(value)
                case nil: if !isCollection { return nil }
                }
            }
            current = next
        }
        return isCollection ? current : current.first
    }

    /// Sets the property a dotted key path ends at: through to-one relationships (nothing
    /// happens when one of them is empty, as in Core Data), and into a composite attribute, where
    /// setting `magnitude.richter` sets the attribute `magnitude` to its dictionary with that
    /// element changed: one tracked, undoable change of the attribute.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        let components = keyPath.split(separator: ".").map(String.init)
        guard components.count > 1, let first = components.first else {
            setValue(value, forKey: keyPath)
            return
        }
        guard let index = entityLayout.keys.index(of: first) else {
            managedObjectContext?.recordProblem(ValidationFailure(object: self, key: keyPath,
                reason: "entity \(entity.name) has no property '\(first)'"))
            return
        }
        switch entity.properties[index] {
        case let relationship as RelationshipDescription where !relationship.isToMany:
            (self.value(at: index) as? ManagedObject)?.setValue(value, forKeyPath: components.dropFirst().joined(separator: "."))
        case is CompositeAttributeDescription:
            let current = CompositeValues.dictionary(self.value(at: index)) ?? [:]
            let updated = CompositeValues.setting(value, at: components.dropFirst(), in: current)
            setValue(updated, at: index, registerUndo: true)
        default:
            managedObjectContext?.recordProblem(ValidationFailure(object: self, key: keyPath,
                reason: "the key path continues after \(entity.name).\(first), which is neither a to-one relationship nor a composite attribute"))
        }
    }

    /// Sets a property with change tracking, inverse maintenance and undo registration.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let index = entityLayout.keys.index(of: key) else {
            managedObjectContext?.recordProblem(ValidationFailure(object: self, key: key,
                reason: "entity \(entity.name) has no property '\(key)'"))
            return
        }
        setValue(value, at: index, registerUndo: true)
    }

    /// Checks that `key` names a property of this object's entity.
    public func validatedKey(_ key: String) throws -> PropertyDescription {
        guard let property = entity.property(named: key) else {
            throw ValidationFailure(object: self, key: key, reason: "entity \(entity.name) has no property '\(key)'")
        }
        return property
    }

    // MARK: Primitive access (no change tracking)

    /// The stored value without change tracking; relationships as in `value(forKey:)`.
    public func primitiveValue(forKey key: String) -> Any? {
        guard let index = entity.index(of: key) else { return nil }
        if faultFlag { managedObjectContext?.fireFault(self) }
        return relationshipPublicValue(values[index], property: entity.properties[index])
    }

    /// Stores a value without change tracking, undo or inverse maintenance, for use inside custom
    /// accessors: between `willChangeValue(forKey:)` and `didChangeValue(forKey:)` the change is
    /// tracked as any other. A relationship takes an object (to-one) or a set or array of objects
    /// (to-many), as `setValue(_:forKey:)` does.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let index = entity.index(of: key) else { return }
        if faultFlag { managedObjectContext?.fireFault(self) }
        switch entity.properties[index] {
        case let composite as CompositeAttributeDescription:
            values[index] = CompositeValues.stored(StoredValue(value), for: composite)
        case let attribute as AttributeDescription:
            let stored = StoredValue(value)
            values[index] = AttributeValueCoercion.coerce(stored, to: attribute.attributeType) ?? stored
        case let relationship as RelationshipDescription:
            guard let slot = Self.relationshipSlot(value, toMany: relationship.isToMany) else {
                managedObjectContext?.recordProblem(ValidationFailure(object: self, key: key,
                                                                      reason: Self.relationshipMismatch(value, relationship)))
                return
            }
            values[index] = slot
        default:
            values[index] = StoredValue(value)
        }
    }

    /// Why `value` cannot be `relationship`'s (`relationshipSlot` gave nil).
    static func relationshipMismatch(_ value: Any?, _ relationship: RelationshipDescription) -> String {
        "expected \(relationship.isToMany ? "a set of objects" : "an object"), got \(value.map { "\(type(of: $0))" } ?? "nil")"
    }

    /// A relationship's slot for a value given as objects: `nil` when the value is not of the
    /// relationship's kind.
    static func relationshipSlot(_ value: Any?, toMany: Bool) -> StoredValue? {
        guard toMany else {
            guard let value else { return .null }
            return (value as? ManagedObject).map { .objectID($0.objectID) }
        }
        let objects: [ManagedObject]
        switch value {
        case nil: objects = []
        case let set as Set<ManagedObject>: objects = Array(set)
        case let array as [ManagedObject]: objects = array
        case let ordered as NSOrderedSet where ordered.array.allSatisfy({ $0 is ManagedObject }):
            objects = ordered.array.compactMap { $0 as? ManagedObject }
        case let set as NSSet where set.allObjects.allSatisfy({ $0 is ManagedObject }):
            objects = set.allObjects.compactMap { $0 as? ManagedObject }
        default: return nil
        }
        var seen: Set<ManagedObjectID> = []
        return .toMany(.loaded(RelatedIDs(objects.map(\.objectID).filter { seen.insert($0).inserted })))
    }

    // MARK: Internals

    func value(at index: Int) -> Any? {
        if faultFlag { managedObjectContext?.fireFault(self) }
        // Attributes, by far the most read, hand out their stored value as it is.
        if entityLayout.kinds[index] == .attribute { return values[index].value }
        let property = entity.properties[index]
        if let fetched = property as? FetchedPropertyDescription {
            // Core Data keeps a fetched property's result until the object is refreshed, which
            // drops every value and so this one too.
            if let cached = fetchedResults[index] { return cached }
            guard let objects = managedObjectContext?.evaluateFetchedProperty(fetched, of: self) else { return nil }
            fetchedResults[index] = objects
            return objects
        }
        return relationshipPublicValue(values[index], property: property)
    }

    /// An attribute's value as stored, for typed reads; anything else as `value(at:)` gives it.
    @usableFromInline
    func storedValue(at index: Int) -> StoredValue {
        if faultFlag { managedObjectContext?.fireFault(self) }
        if entityLayout.kinds[index] == .attribute { return values[index] }
        return StoredValue(value(at: index))
    }

    func relationshipPublicValue(_ raw: StoredValue, property: PropertyDescription) -> Any? {
        guard let relationship = property as? RelationshipDescription else { return raw.value }
        guard let context = managedObjectContext else {
            guard relationship.isToMany else { return nil }
            return relationship.isOrdered ? [ManagedObject]() as Any : Set<ManagedObject>() as Any
        }
        if relationship.isToMany {
            let ids = context.relatedIDs(of: self, relationship: relationship, slot: raw)
            let objects = context.objects(with: ids)
            // Faults read through here fire together; made only when some still need it, since a
            // to-many is read again on every access.
            var siblings: FaultSiblings?
            for (position, object) in objects.enumerated() where objects.count > 1 && FaultSiblings.canAdopt(object) {
                if siblings == nil {
                    guard context.batchesFaults(throughToManyOf: objectID) else { break }
                    siblings = FaultSiblings(ids: ids.ids, source: .init(owner: objectID, relationship: relationship))
                }
                siblings?.adopt(object, at: position)
            }
            return relationship.isOrdered ? objects as Any : Set(objects) as Any
        }
        return raw.objectID.map { context.object(with: $0) }
    }

    func setValue(_ newValue: Any?, at index: Int, registerUndo: Bool) {
        if faultFlag { managedObjectContext?.fireFault(self) }
        if let type = entityLayout.attributeTypes[index] {
            setAttribute(type, StoredValue(newValue), at: index, registerUndo: registerUndo)
            return
        }
        let property = entity.properties[index]
        if let relationship = property as? RelationshipDescription {
            if relationship.isToMany {
                let objects: [ManagedObject]
                switch newValue {
                case let set as Set<ManagedObject>: objects = Array(set)
                case let array as [ManagedObject]: objects = array
                case nil: objects = []
                // Code written for Core Data sets NSSet and NSOrderedSet values (generated
                // accessors do); their order is kept for ordered relationships.
                case let ordered as NSOrderedSet where ordered.array.allSatisfy({ $0 is ManagedObject }):
                    objects = ordered.array.compactMap { $0 as? ManagedObject }
                case let set as NSSet where set.allObjects.allSatisfy({ $0 is ManagedObject }):
                    objects = set.allObjects.compactMap { $0 as? ManagedObject }
                case let array as NSArray where array.allSatisfy({ $0 is ManagedObject }):
                    objects = array.compactMap { $0 as? ManagedObject }
                default:
                    managedObjectContext?.recordProblem(ValidationFailure(object: self, key: property.name,
                        reason: "expected a set of objects, got \(type(of: newValue!))"))
                    return
                }
                replaceToMany(relationship, at: index, with: objects.map(\.objectID), registerUndo: registerUndo)
            } else {
                guard newValue == nil || newValue is ManagedObject else {
                    managedObjectContext?.recordProblem(ValidationFailure(object: self, key: property.name,
                        reason: "expected an object, got \(type(of: newValue!))"))
                    return
                }
                setToOne(relationship, at: index, to: (newValue as? ManagedObject)?.objectID, registerUndo: registerUndo)
            }
            return
        }
        let old = values[index]
        let new = StoredValue(newValue)
        if StoredValue.same(old, new) { return }
        values[index] = new
        managedObjectContext?.objectDidChange(self, index: index, oldValue: old, registerUndo: registerUndo)
    }

    /// Sets a slot from a value already in stored form (a typed `@Managed` write, an undo), with
    /// the same tracking as `setValue`.
    @usableFromInline
    func setStoredValue(_ newValue: StoredValue, at index: Int, registerUndo: Bool) {
        guard let type = entityLayout.attributeTypes[index] else {
            setValue(newValue.value, at: index, registerUndo: registerUndo)
            return
        }
        if faultFlag { managedObjectContext?.fireFault(self) }
        setAttribute(type, newValue, at: index, registerUndo: registerUndo)
    }

    /// The common case of `setValue`: an attribute, coerced to its type, tracked when it changed.
    private func setAttribute(_ type: AttributeType, _ newValue: StoredValue, at index: Int, registerUndo: Bool) {
        // A value already in the attribute's type (nearly every one) is stored as it came; one
        // that cannot be converted is kept as it is, and the save reports the mismatch.
        if type == .composite, let composite = entity.properties[index] as? CompositeAttributeDescription {
            storeAttribute(CompositeValues.stored(newValue, for: composite), at: index, registerUndo: registerUndo)
        } else if AttributeValueCoercion.isCanonical(newValue, for: type) {
            storeAttribute(newValue, at: index, registerUndo: registerUndo)
        } else {
            storeAttribute(AttributeValueCoercion.coerce(newValue, to: type) ?? newValue, at: index, registerUndo: registerUndo)
        }
    }

    /// Stores an attribute's value, tracked when it changed.
    private func storeAttribute(_ stored: StoredValue, at index: Int, registerUndo: Bool) {
        // A new object's change that no undo manager records needs neither the old value nor a
        // comparison: nothing is told about it until its insertion has been announced (after
        // that, observers hear of its changes as updates), unless someone observes its values.
        guard let context = managedObjectContext,
              !insertedFlag || insertionAnnounced || (registerUndo && context.undoManager != nil) || keyValueObservers != nil else {
            values[index] = stored
            return
        }
        let old = values[index]
        if StoredValue.same(old, stored) { return }
        values[index] = stored
        context.objectDidChange(self, index: index, oldValue: old, registerUndo: registerUndo)
    }
}

/// Faults that fire together: the objects of one to-many relationship as it was read, or the
/// result of a fetch with a `fetchBatchSize`.
final class FaultSiblings {
    /// How many faults fire together by default; the store reads them in one `IN` query.
    static let defaultBatchSize = 500
    /// The largest to-many whose faults all fire together through its own query; a larger one
    /// fires `batchSize` at a time, so walking a part of it does not load all of it.
    static let wholeRelationshipLimit = 100_000

    /// The to-many a group was read through.
    struct Source {
        let owner: ManagedObjectID
        let relationship: RelationshipDescription
    }

    let ids: [ManagedObjectID]
    let batchSize: Int
    /// Where the siblings came from, while the relationship's own query has not been run: the
    /// first of them to fire then loads them all with it (one walk of the foreign key's index,
    /// the query a programmer would write by hand) instead of key by key in batches.
    var source: Source?

    /// Positions whose object was taken into a batch already, one bit each.
    private var fired: [UInt64]

    init(ids: [ManagedObjectID], batchSize: Int = FaultSiblings.defaultBatchSize, source: Source? = nil) {
        self.ids = ids
        self.batchSize = max(1, batchSize)
        self.source = ids.count <= Self.wholeRelationshipLimit ? source : nil
        self.fired = Array(repeating: 0, count: (ids.count + 63) / 64)
    }

    func hasFired(_ position: Int) -> Bool { fired[position >> 6] & (1 << UInt64(position & 63)) != 0 }
    func markFired(_ position: Int) { fired[position >> 6] |= 1 << UInt64(position & 63) }

    /// Whether `object` is a fault that needs a query to fire and belongs to no group yet.
    static func canAdopt(_ object: ManagedObject) -> Bool {
        object.faultFlag && object.cachedRowValues == nil && object.faultSiblings == nil
    }

    /// Makes `object`, which stands at `position` in `ids`, one of the group. The object keeps its
    /// position, so firing it finds its place without a table of all positions.
    func adopt(_ object: ManagedObject, at position: Int) {
        guard Self.canAdopt(object), let position = Int32(exactly: position) else { return }
        object.faultSiblings = self
        object.faultSiblingPosition = position
    }
}
