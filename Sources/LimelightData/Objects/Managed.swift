import Foundation
import Synchronization

/// Declares a typed property of a `ManagedObject` subclass that reads and writes the entity's
/// property through change tracking: `@Managed var name: String?` makes `recipe.name = "Salsa"` a
/// tracked, undoable change.
///
/// The key is the Swift property's name unless given: `@Managed("directions") var text: String?`.
@propertyWrapper
public struct Managed<Value> {
    let key: String?
    let token = ManagedKeyToken.next()

    public init(_ key: String? = nil) { self.key = key }

    @available(*, unavailable, message: "@Managed works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unavailable") }
        set { preconditionFailure("unavailable") }
    }

    public static subscript<Owner: ManagedObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Managed<Value>>
    ) -> Value {
        get {
            let key = owner[keyPath: storageKeyPath].resolvedKey(in: owner, storage: storageKeyPath)
            return ManagedValueBridge.cast(owner.value(forKey: key), as: Value.self)
        }
        set {
            let key = owner[keyPath: storageKeyPath].resolvedKey(in: owner, storage: storageKeyPath)
            owner.setValue(ManagedValueBridge.unwrap(newValue), forKey: key)
        }
    }

    func resolvedKey<Owner: ManagedObject>(in owner: Owner, storage: AnyKeyPath) -> String {
        if let key { return key }
        return ManagedKeyCache.key(for: storage, in: owner, token: token)
    }
}

/// Distinguishes wrapper instances so a property's name can be found once per class by reflection.
struct ManagedKeyToken: Hashable {
    let value: UInt64
    private static let counter = Atomic<UInt64>(0)
    static func next() -> ManagedKeyToken { ManagedKeyToken(value: counter.add(1, ordering: .relaxed).newValue) }
}

protocol ManagedTokenCarrier { var carriedToken: ManagedKeyToken { get } }
extension Managed: ManagedTokenCarrier { var carriedToken: ManagedKeyToken { token } }

/// Per class, which storage key path belongs to which Swift property name.
enum ManagedKeyCache {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [AnyKeyPath: String] = [:]

    static func key(for storage: AnyKeyPath, in owner: AnyObject, token: ManagedKeyToken) -> String {
        if let known = lock.withLock({ cache[storage] }) { return known }
        var mirror: Mirror? = Mirror(reflecting: owner)
        while let current = mirror {
            for child in current.children {
                if let carrier = child.value as? ManagedTokenCarrier, carrier.carriedToken == token,
                   let label = child.label {
                    let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                    lock.withLock { cache[storage] = name }
                    return name
                }
            }
            mirror = current.superclassMirror
        }
        return "\(storage)"
    }
}

/// Converts between the framework's stored values and a wrapper's declared Swift type.
enum ManagedValueBridge {
    static func cast<Value>(_ raw: Any?, as type: Value.Type) -> Value {
        if let value = raw as? Value { return value }
        if let optionalType = Value.self as? OptionalMarker.Type {
            if let raw, let converted = convertNumber(raw, to: optionalType.wrappedType),
               let wrapped = optionalType.wrap(converted) as? Value { return wrapped }
            if let none = optionalType.none as? Value { return none }
        }
        if let raw, let converted = convertNumber(raw, to: Value.self) as? Value { return converted }
        if let set = raw as? Set<ManagedObject>, let converted = castSet(set, to: Value.self) { return converted }
        return defaultValue(Value.self)
    }

    static func unwrap(_ value: Any) -> Any? {
        if let optional = value as? OptionalMarker { return optional.unwrapped }
        return value
    }

    private static func convertNumber(_ raw: Any, to type: Any.Type) -> Any? {
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
        case is Bool.Type: return int != 0
        default: return nil
        }
    }

    private static func castSet<Value>(_ set: Set<ManagedObject>, to type: Value.Type) -> Value? {
        guard let setType = Value.self as? ManagedSetMarker.Type else { return nil }
        return setType.make(from: set) as? Value
    }

    private static func defaultValue<Value>(_ type: Value.Type) -> Value {
        if let zero = convertNumber(0, to: Value.self) as? Value { return zero }
        if let empty = "" as? Value { return empty }
        if let empty = Data() as? Value { return empty }
        if let setType = Value.self as? ManagedSetMarker.Type, let empty = setType.make(from: []) as? Value { return empty }
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

protocol ManagedSetMarker { static func make(from set: Set<ManagedObject>) -> Any }
extension Set: ManagedSetMarker {
    static func make(from set: Set<ManagedObject>) -> Any { Set(set.compactMap { $0 as? Element }) }
}
