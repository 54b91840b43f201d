import Foundation
import Synchronization

/// Declares a typed property of a `ManagedObject` subclass that reads and writes the entity's
/// property through change tracking: `@Managed var name: String?` makes `recipe.name = "Salsa"` a
/// tracked, undoable change.
///
/// The key is the Swift property's name unless given: `@Managed("directions") var text: String?`.
@propertyWrapper
public struct Managed<Value> {
    // The wrapper is all an object holds per declaration, so it holds only the name a declaration
    // may give: no identity of its own (`ManagedDeclarationMarking` finds the declaration).
    let key: String?

    public init(_ key: String? = nil) { self.key = key }

    @available(*, unavailable, message: "@Managed works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unavailable") }
        set { preconditionFailure("unavailable") }
    }

    // Inlinable, so an application's `@Managed var size: Int64` reads and writes without generic
    // metadata look-ups: a value of the common types is taken from (or put into) its stored case
    // directly; the rest is a cast of the stored value to the declared type.
    @inlinable
    public static subscript<Owner: ManagedObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Managed<Value>>
    ) -> Value {
        get {
            let stored = owner.managedValue(wrapped: wrappedKeyPath, storage: storageKeyPath)
            if let value = stored.typed(as: Value.self) { return value }
            let raw = stored.value
            // Cast as the optional it came in: unwrapping it first would copy the value once more.
            if let value = raw as? Value { return value }
            return ManagedValueBridge.cast(raw, as: Value.self)
        }
        set {
            if let stored = StoredValue.typed(newValue) {
                owner.setManagedValue(stored, wrapped: wrappedKeyPath, storage: storageKeyPath)
            } else {
                owner.setManagedValue(StoredValue(ManagedValueBridge.unwrap(newValue)), wrapped: wrappedKeyPath, storage: storageKeyPath)
            }
        }
    }
}

extension ManagedObject {
    /// A `@Managed` property's value as stored (`nil` when its entity has no such property).
    ///
    /// Inlined into the accessor: the common read, an attribute of a loaded object whose
    /// declaration the entity knows already, is a table probe and an array read, with no call.
    @inlinable @inline(__always)
    func managedValue(wrapped: AnyKeyPath, storage: AnyKeyPath) -> StoredValue {
        if !faultFlag, let index = entityLayout.managedIndices.index(of: wrapped), entityLayout.kinds[index] == .attribute {
            return values[index]
        }
        return managedValueSlowly(wrapped: wrapped, storage: storage)
    }

    /// The rest: a fault to fire, a declaration to learn, a relationship, and the declarations
    /// the entity lacks (read by a key path probe, which records them).
    @usableFromInline
    func managedValueSlowly(wrapped: AnyKeyPath, storage: AnyKeyPath) -> StoredValue {
        guard let index = ManagedKeyCache.index(wrapped: wrapped, storage: storage, in: self) else {
            return KeyPathProbe.read(wrapped: wrapped, storage: storage, of: self)
        }
        return storedValue(at: index)
    }

    /// Sets a `@Managed` property with change tracking, as `setValue(_:forKey:)` does.
    @usableFromInline
    func setManagedValue(_ value: consuming StoredValue, wrapped: AnyKeyPath, storage: AnyKeyPath) {
        // An object of no context (the one a batch insert's handler fills) has no change to
        // report: a value already in its attribute's type is stored as it is, which is where the
        // full path below ends too, after several calls and copies of the value. The value is
        // taken, not borrowed, so storing it needs no copy.
        if belongsToNoContext, !faultFlag, let index = entityLayout.managedIndices.index(of: wrapped),
           let type = entityLayout.attributeTypes[index], AttributeValueCoercion.isCanonical(value, for: type) {
            values[index] = value
            return
        }
        guard let index = ManagedKeyCache.index(wrapped: wrapped, storage: storage, in: self) else {
            setValue(value.value, forKey: ManagedKeyCache.name(storage: storage, in: self))
            return
        }
        // A Date attribute declared with a scalar type (`@Managed var posted: TimeInterval`, as
        // Xcode declares one) is set in seconds since the reference date. Only here: by key, a
        // date attribute takes a `Date`, as in Core Data.
        if case .double(let seconds) = value, entityLayout.attributeTypes[index] == .date {
            setStoredValue(.date(Date(timeIntervalSinceReferenceDate: seconds)), at: index, registerUndo: true)
            return
        }
        setStoredValue(value, at: index, registerUndo: true)
    }
}

/// Which property of the object's entity a `@Managed` declaration stands for.
///
/// Every read and write asks, so the answer is looked up by the identity of the declaration's key
/// path (a key path literal is made once and then reused), first in the entity's own table, read
/// without a lock. The first access through an entity finds the property's name (by reflection,
/// once per declaration, kept here) and teaches the entity's table its index.
enum ManagedKeyCache {
    private struct Entry: @unchecked Sendable {
        /// Key paths are immutable once made; they are only compared by identity here. The entry
        /// keeps its key path alive, so the identity is never reused while the entry exists.
        let wrapped: AnyKeyPath
        let name: String
    }

    /// Key paths of generic classes may be made afresh per access; past this many entries new
    /// ones are looked up each time instead of filling the table.
    private static let capacity = 4_096
    private static let names = Mutex<[ObjectIdentifier: Entry]>([:])

    @inline(__always)
    static func index(wrapped: AnyKeyPath, storage: AnyKeyPath, in owner: ManagedObject) -> Int? {
        if let index = owner.entityLayout.managedIndices.index(of: wrapped) { return index }
        return learnIndex(wrapped: wrapped, storage: storage, in: owner)
    }

    /// The slow path: the declaration's name, then its index in this entity, remembered there.
    private static func learnIndex(wrapped: AnyKeyPath, storage: AnyKeyPath, in owner: ManagedObject) -> Int? {
        let name = declarationName(wrapped: wrapped, storage: storage, in: owner)
        guard let index = owner.entityLayout.keys.index(of: name) else { return nil }
        owner.entityLayout.managedIndices.learn(wrapped, index: index)
        return index
    }

    /// The name of the declaration whose wrapped key path is `wrapped`: learned once, then kept.
    static func declarationName(wrapped: AnyKeyPath, storage: AnyKeyPath, in owner: ManagedObject) -> String {
        let identity = ObjectIdentifier(wrapped)
        let known: String? = names.withLock { table in
            guard let entry = table[identity], entry.wrapped === wrapped else { return nil }
            return entry.name
        }
        if let known { return known }
        let name = name(storage: storage, in: owner)
        names.withLock { table in
            if table.count < capacity || table[identity] != nil { table[identity] = Entry(wrapped: wrapped, name: name) }
        }
        return name
    }

    /// The property's name: the one the declaration gives, or the Swift property's own, found
    /// by reflection (the wrapper's storage is the property's name with an underscore).
    static func name(storage: AnyKeyPath, in owner: ManagedObject) -> String {
        guard let wrapper = owner[keyPath: storage] as? ManagedWrapperInfo else { return "\(storage)" }
        if let key = wrapper.explicitKey { return key }
        if let marking = storage as? ManagedDeclarationMarking, let label = marking.storageLabel(in: owner) {
            return label.hasPrefix("_") ? String(label.dropFirst()) : label
        }
        return "\(storage)"
    }
}

/// Converts between the framework's stored values and a wrapper's declared Swift type.
@usableFromInline
enum ManagedValueBridge {
    @usableFromInline
    static func cast<Value>(_ raw: Any?, as type: Value.Type) -> Value {
        if let value = raw as? Value { return value }
        if let optionalType = Value.self as? OptionalMarker.Type {
            if let raw, let converted = convertNumber(raw, to: optionalType.wrappedType),
               let wrapped = optionalType.wrap(converted) as? Value { return wrapped }
            if let none = optionalType.none as? Value { return none }
        }
        if let raw, let converted = convertNumber(raw, to: Value.self) as? Value { return converted }
        if let set = raw as? Set<ManagedObject>, let converted = castObjects(Array(set), to: Value.self) { return converted }
        if let array = raw as? [ManagedObject], let converted = castObjects(array, to: Value.self) { return converted }
        return defaultValue(Value.self)
    }

    @usableFromInline
    static func unwrap(_ value: Any) -> Any? {
        if let optional = value as? OptionalMarker { return optional.unwrapped }
        return value
    }

    private static func convertNumber(_ raw: Any, to type: Any.Type) -> Any? {
        // A date read as a scalar (`@Managed var posted: TimeInterval`): seconds since the
        // reference date, as Core Data's scalar accessors give it.
        if let date = raw as? Date { return type == Double.self ? date.timeIntervalSinceReferenceDate : nil }
        guard let int = AttributeValueCoercion.integer(raw) else {
            if type == Double.self { return AttributeValueCoercion.double(raw) }
            if type == Float.self { return AttributeValueCoercion.double(raw).map { Float($0) } }
            return nil
        }
        switch type {
        case is Int.Type: return Int(int)
        case is Int16.Type: return Int16(exactly: int)
        case is Int32.Type: return Int32(exactly: int)
        case is Int64.Type: return int
        case is Double.Type: return Double(int)
        case is Float.Type: return Float(int)
        case is Bool.Type: return int != 0
        default: return nil
        }
    }

    /// Related objects as the collection a to-many property declares: a set, or an array for an
    /// ordered relationship (`@Managed var pages: [Page]`).
    private static func castObjects<Value>(_ objects: [ManagedObject], to type: Value.Type) -> Value? {
        guard let collectionType = Value.self as? ManagedCollectionMarker.Type else { return nil }
        return collectionType.make(from: objects) as? Value
    }

    private static func defaultValue<Value>(_ type: Value.Type) -> Value {
        if let zero = convertNumber(0, to: Value.self) as? Value { return zero }
        if let empty = "" as? Value { return empty }
        if let empty = Data() as? Value { return empty }
        if let collectionType = Value.self as? ManagedCollectionMarker.Type, let empty = collectionType.make(from: []) as? Value { return empty }
        if let fallback = (Value.self as? ManagedDefaultValue.Type)?.managedDefaultValue as? Value { return fallback }
        // A getter cannot throw: a type with no fallback is a programming error, named here.
        preconditionFailure("@Managed property of type \(Value.self) has no value; declare it optional or conform \(Value.self) to ManagedDefaultValue")
    }
}

protocol OptionalMarker {
    static var wrappedType: Any.Type { get }
    static var none: Any { get }
    static func wrap(_ value: Any) -> Any?
    var unwrapped: Any? { get }
}

extension Optional: OptionalMarker {
    static var wrappedType: Any.Type { Wrapped.self }
    static var none: Any {
        let empty: Wrapped? = nil
        return empty as Any
    }
    static func wrap(_ value: Any) -> Any? { (value as? Wrapped).map { Optional($0) as Any } }
    var unwrapped: Any? { self.map { $0 as Any } }
}

/// The collections a to-many `@Managed` property may be declared as, made from related objects.
protocol ManagedCollectionMarker { static func make(from objects: [ManagedObject]) -> Any }
extension Set: ManagedCollectionMarker {
    static func make(from objects: [ManagedObject]) -> Any { Set(objects.compactMap { $0 as? Element }) }
}
extension Array: ManagedCollectionMarker {
    static func make(from objects: [ManagedObject]) -> Any { objects.compactMap { $0 as? Element } }
}
