import Foundation

/// Customizes how one entity mapping migrates, Core Data's `NSEntityMigrationPolicy`: subclass it
/// and name the subclass in `EntityMapping.entityMigrationPolicy`.
///
/// `MigrationManager` makes one instance per entity mapping and calls it in Core Data's order:
/// for every mapping in turn `begin(_:with:)`, `createDestinationInstances(forSource:in:manager:)`
/// once per source object and `endInstanceCreation(forMapping:manager:)`; then for every mapping
/// `createRelationships(forDestination:in:manager:)` once per destination object it made and
/// `endRelationshipCreation(forMapping:manager:)`; then for every mapping
/// `performCustomValidation(forMapping:manager:)` and `end(_:manager:)`. An error thrown from
/// any of them (or given to `manager.cancelMigrationWithError(_:)`) stops the migration: nothing
/// is written to the destination, and the source store is only ever read.
///
/// ```swift
/// final class AddressPolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(forSource person: ManagedObject, in mapping: EntityMapping,
///                                              manager: MigrationManager) throws {
///         try super.createDestinationInstances(forSource: person, in: mapping, manager: manager)
///         guard let street = person.value(forKey: "address") as? String,
///               let context = manager.destinationContext,
///               let migrated = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [person]).first
///         else { return }
///         let address = try context.insertNewObject(forEntityName: "Address")
///         address.setValue(street, forKey: "street")
///         migrated.setValue(address, forKey: "address")
///     }
/// }
/// ```
open class EntityMigrationPolicy {
    /// The name of the entity mapping this instance runs for, set by the manager.
    public internal(set) var entityMappingName = ""

    public required init() {}

    /// Called before the mapping's first object; set up what the later stages share.
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Makes the destination object(s) for one source object. The default inserts one object of
    /// the destination entity, sets each attribute whose mapping has a value expression to its
    /// value, and associates it with the source object. A nil value leaves a required attribute
    /// at its default value, as a lightweight migration fills it. A composite's value is carried
    /// element by element (renamed elements found by their renaming identifiers, removed ones
    /// left out).
    open func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        let destination = try manager.requireDestinationContext().insertNewObject(forEntityName: entityName)
        for property in manager.cachedAttributeMappings(of: mapping) {
            guard let key = property.name, let expression = property.valueExpression else { continue }
            var value = try manager.evaluate(expression, source: sInstance, policy: self, mapping: mapping, property: property)
            if let composite = destination.entity.property(named: key) as? CompositeAttributeDescription, let dictionary = value as? [String: Any] {
                value = composite.conformed(dictionary)
            }
            if value == nil, let attribute = destination.entity.property(named: key) as? AttributeDescription, !attribute.isOptional, attribute.defaultValue != nil {
                continue
            }
            destination.setValue(value, forKey: key)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after the mapping's last source object.
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Sets the relationships of one destination object the mapping made. The default sets each
    /// relationship whose mapping has a value expression to its value, with `$source` the source
    /// object the destination object was made from.
    open func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        let relationships = manager.cachedRelationshipMappings(of: mapping)
        guard !relationships.isEmpty, dInstance.entity.name == mapping.destinationEntityName,
              let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [dInstance]).first else { return }
        for property in relationships {
            guard let key = property.name, let expression = property.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, policy: self, mapping: mapping, property: property)
            try manager.setRelationship(key, of: dInstance, to: value, mapping: mapping)
        }
    }

    /// Called after the last destination object's relationships.
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Checks what the mapping made before it is saved; throw to stop the migration. The save
    /// that follows also validates every object against the destination model.
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called last for the mapping.
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Answers `FUNCTION($entityPolicy, "selector:", arguments…)` in the mapping's value
    /// expressions, where Core Data would send the Objective-C message `selector:` to the policy.
    /// Override it to compute values: switch on `selector` and return the value for `arguments`
    /// (evaluated already: source objects, strings, numbers, `nil`). The default refuses the call,
    /// naming the selector and the mapping.
    open func function(named selector: String, arguments: [Any?]) throws -> Any? {
        throw MigrationFunctionError(selector: selector, receiver: String(reflecting: type(of: self)), entityMapping: entityMappingName)
    }
}

/// A value expression called a function its receiver does not answer.
public struct MigrationFunctionError: Error, CustomStringConvertible, Equatable {
    /// The selector called, e.g. `"fullName:"`.
    public let selector: String
    /// What it was sent to: the policy's class name, "MigrationManager", a value's type.
    public let receiver: String
    /// The entity mapping whose expression made the call.
    public let entityMapping: String

    public var description: String {
        "entity mapping \(entityMapping): FUNCTION(…, \"\(selector)\") sent to \(receiver), which does not answer it"
            + (receiver == "MigrationManager" ? "" : " (override function(named:arguments:) in the policy to answer it)")
    }
}
