import Foundation

/// An observation begun with `observe(_:options:changeHandler:)`, as Foundation's
/// `NSKeyValueObservation`: it lasts until `invalidate()` is called or the token goes away.
///
/// Like the object it observes, the token belongs to its context's queue: the handler runs there,
/// synchronously, as the change is made, and the token should be invalidated (or let go of)
/// there too. So it is not `Sendable`, as managed objects are not.
public final class KeyValueObservation {
    private var end: (() -> Void)?

    init(end: @escaping () -> Void) { self.end = end }

    /// Ends the observation: its handler is not called again. Calling it again does nothing.
    public func invalidate() {
        let end = self.end
        self.end = nil
        end?()
    }

    deinit { invalidate() }
}

/// Objects whose key paths can be observed with `observe(_:options:changeHandler:)`: managed
/// objects (Foundation's `_KeyValueCodingAndObserving`, which NSObject adopts, plays this part on
/// Apple's platforms). It lets the handler receive the object as its own class.
public protocol KeyValueObservable: AnyObject {}

extension ManagedObject: KeyValueObservable {}

extension KeyValueObservable where Self: ManagedObject {
    /// Calls `changeHandler` whenever the value `keyPath` leads to changes, as key-value
    /// observing does on Apple's platforms: `recipe.observe(\.name, options: [.old, .new])`.
    ///
    /// `keyPath` is a `@Managed` property, or a chain of them through to-one relationships
    /// (`\Book.author?.name`), which is watched on whichever author the book holds at the time.
    /// A key path that names no property (a computed one) is reported after every change of any
    /// of the object's own values.
    ///
    /// Changes are reported as they are made, on the thread making them (the context's queue):
    /// sets by key or through `@Managed` properties, primitive values set between
    /// `willChangeValue(forKey:)` and `didChangeValue(forKey:)`, either side of a relationship,
    /// undo and redo, `rollback()`, `refresh(_:mergeChanges:)` and merges of other contexts'
    /// saves. A value set to what it was already is no change and is not reported; nor is a
    /// fault's values being loaded. The observation keeps the object alive while it lasts.
    public func observe<Value>(_ keyPath: KeyPath<Self, Value>, options: KeyValueObservingOptions = [],
                               changeHandler: @escaping (Self, KeyValueObservedChange<Value>) -> Void) -> KeyValueObservation {
        // A chain the entity does not have (a declaration whose key is not modeled) is watched as
        // a computed property is.
        let keys = ManagedKeyPathNames.name(of: keyPath).flatMap { try? observedKeys($0) } ?? []
        let observation = KeyPathObservation(
            root: self, keys: keys, options: options,
            read: { object in (object as? Self).map { $0[keyPath: keyPath] as Any } },
            objectsValue: { objects, ordered in ManagedObject.objects(objects, ordered: ordered, as: Value.self) },
            handler: { object, record in
                guard let object = object as? Self else { return }
                changeHandler(object, record.typed(as: Value.self))
            })
        return ManagedObject.begin(observation)
    }
}

extension ManagedObject {
    /// Calls `changeHandler` whenever the value of `keyPath` changes, as
    /// `observe(_:options:changeHandler:)` does for a Swift key path. `keyPath` is a property's
    /// name, or a dotted key path through to-one relationships (`"author.name"`), which may end in
    /// a composite attribute's element (`"location.latitude"`). Values are as
    /// `value(forKeyPath:)` gives them.
    ///
    /// Throws a `ValidationFailure` naming the key path when the entity has no such property, or
    /// the key path goes on past a property that is neither a to-one relationship nor a
    /// composite attribute (through a to-many, Apple's key-value observing would collect a value
    /// per object; that is not done here).
    public func observe(forKeyPath keyPath: String, options: KeyValueObservingOptions = [],
                        changeHandler: @escaping (ManagedObject, KeyValueObservedChange<Any?>) -> Void) throws -> KeyValueObservation {
        let observation = KeyPathObservation(
            root: self, keys: try observedKeys(keyPath), options: options,
            read: { $0.value(forKeyPath: keyPath) },
            objectsValue: { objects, ordered in ordered ? objects as Any : Set(objects) as Any },
            handler: { object, record in changeHandler(object, record.typed(as: Any?.self)) })
        return ManagedObject.begin(observation)
    }

    fileprivate static func begin(_ observation: KeyPathObservation) -> KeyValueObservation {
        observation.start()
        return KeyValueObservation { observation.stop() }
    }

    /// The keys a dotted key path watches, one per object along it: through to-one
    /// relationships, ending at any property (a composite attribute's elements are read from it).
    func observedKeys(_ keyPath: String) throws -> [String] {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var entity = self.entity
        var keys: [String] = []
        for component in components {
            guard let property = entity.property(named: component) else {
                throw ValidationFailure(object: self, key: keyPath, reason: "entity \(entity.name) has no property '\(component)' to observe")
            }
            keys.append(component)
            if keys.count == components.count || property is CompositeAttributeDescription { break }
            guard let relationship = property as? RelationshipDescription, !relationship.isToMany else {
                throw ValidationFailure(object: self, key: keyPath,
                    reason: "the key path goes on after \(entity.name).\(component), which is neither a to-one relationship nor a composite attribute")
            }
            guard let destination = relationship.destinationEntity else {
                throw ValidationFailure(object: self, key: keyPath, reason: "the destination of \(entity.name).\(component) is not in the model")
            }
            entity = destination
        }
        return keys
    }

    /// A to-many's inserted or removed objects as the type its key path gives: a set, or an
    /// array for an ordered relationship, of the declared class; nil for a type that is neither.
    static func objects<Value>(_ objects: [ManagedObject], ordered: Bool, as type: Value.Type) -> Value? {
        let collection: Any = ordered ? objects : Set(objects)
        if let value = collection as? Value { return value }
        let declared = (Value.self as? OptionalMarker.Type)?.wrappedType ?? Value.self
        guard let made = (declared as? ManagedCollectionMarker.Type)?.make(from: objects) else { return nil }
        return made as? Value
    }
}
