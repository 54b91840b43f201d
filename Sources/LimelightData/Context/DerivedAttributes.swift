import Foundation

/// Where a model's derived attributes are and what they depend on, worked out once per model.
struct DerivedAttributePlan {
    struct Derived {
        let index: Int
        let attribute: AttributeDescription
        let expression: QueryExpression
    }

    /// An entity's objects whose derived values read across `relationship` into `destination`:
    /// a change to such an object of `destination` calls for them to be computed again.
    struct Dependency {
        let destination: EntityDescription
        /// The way back from a changed object to the objects whose values read it.
        let inverse: RelationshipDescription
    }

    let model: ObjectIdentifier
    private(set) var byEntity: [ObjectIdentifier: [Derived]] = [:]
    private(set) var dependencies: [Dependency] = []
    var isEmpty: Bool { byEntity.isEmpty }

    init(model: ManagedObjectModel) {
        self.model = ObjectIdentifier(model)
        for entity in model.entities {
            var derived: [Derived] = []
            for (index, property) in entity.properties.enumerated() {
                guard let attribute = property as? AttributeDescription, let expression = attribute.derivationExpression else { continue }
                derived.append(Derived(index: index, attribute: attribute, expression: expression))
                for name in Self.firstKeys(of: expression) {
                    guard let relationship = entity.property(named: name) as? RelationshipDescription,
                          let destination = relationship.destinationEntity, let inverse = relationship.inverseRelationship else { continue }
                    dependencies.append(Dependency(destination: destination, inverse: inverse))
                }
            }
            if !derived.isEmpty { byEntity[ObjectIdentifier(entity)] = derived }
        }
    }

    /// The first component of every key path an expression reads.
    static func firstKeys(of expression: QueryExpression) -> [String] {
        switch expression {
        case .keyPath(let path): return [String(path.prefix { $0 != "." })]
        case .keyPathOf(let base, _): return firstKeys(of: base)
        case .function(_, let arguments), .aggregate(let arguments): return arguments.flatMap(firstKeys)
        case .index(let base, _): return firstKeys(of: base)
        case .conditional(_, let yes, let no): return firstKeys(of: yes) + firstKeys(of: no)
        case .subquery(let collection, _, _): return firstKeys(of: collection)
        default: return []
        }
    }
}

extension ManagedObjectContext {
    /// Computes the derived attributes of what a save writes, as Core Data's store computes them:
    /// every new or changed object's, and those of objects whose values read a changed object
    /// (an order's `items.@sum.price` when an item's price changed). Values that cannot be
    /// computed are reported as validation failures naming the attribute. Returns whether the
    /// model has derived attributes at all (and so whether changes may be pending).
    func computeDerivedAttributes(_ coordinator: PersistentStoreCoordinator) -> Bool {
        let plan: DerivedAttributePlan
        if let cached = derivedPlan, cached.model == ObjectIdentifier(coordinator.managedObjectModel) {
            plan = cached
        } else {
            plan = DerivedAttributePlan(model: coordinator.managedObjectModel)
            derivedPlan = plan
        }
        guard !plan.isEmpty else { return false }
        var targets: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        func add(_ object: ManagedObject) {
            guard !object.isDeleted, plan.byEntity[ObjectIdentifier(object.entity)] != nil,
                  seen.insert(ObjectIdentifier(object)).inserted else { return }
            targets.append(object)
        }
        let changed = Array(insertedSet) + updatedSet.filter { !$0.faultFlag }
        for object in changed { add(object) }
        // A deleted object needs no look: leaving its owners' to-manys changed them, so they are
        // among the updated objects already.
        for object in changed {
            for dependency in plan.dependencies where object.entity.isKind(of: dependency.destination) {
                switch object.value(forKey: dependency.inverse.name) {
                case let owner as ManagedObject: add(owner)
                case let owners as Set<ManagedObject>: owners.forEach(add)
                case let owners as [ManagedObject]: owners.forEach(add)
                default: break
                }
            }
        }
        for object in targets {
            for derived in plan.byEntity[ObjectIdentifier(object.entity)] ?? [] {
                var evaluator = PredicateEvaluator(variables: [:])
                do {
                    let value = try evaluator.value(derived.expression, object)
                    object.setValue(value, at: derived.index, registerUndo: false)
                } catch {
                    recordProblem(ValidationFailure(object: object, key: derived.attribute.name,
                                                    reason: "its derivation \(derived.expression) cannot be computed: \(error)"))
                }
            }
        }
        return true
    }
}
