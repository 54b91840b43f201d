import Foundation

/// A property's value as objects, store rows and save snapshots hold it.
///
/// The common attribute types are kept unboxed, so reading, comparing, validating and binding them
/// costs a branch on the case; held as `Any`, each of those was a call into the runtime (a value
/// witness to copy, a dynamic cast to read), several per value per save and per fetch. Every other
/// value (`Decimal`, `UUID`, `URL`, transformables) is kept as `.other`. A value of one of the
/// common types is always in its own case, never in `.other`: `init(_:)` and the typed
/// constructors see to that, so comparing cases is comparing types.
///
/// `.other` holds its value in a box: an `Any` in the enum itself would make every copy of every
/// stored value a call through the type's value witnesses, the cost this type exists to avoid.
@usableFromInline
enum StoredValue {
    case null
    case int64(Int64)
    case int32(Int32)
    case int16(Int16)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    /// A to-one relationship's destination.
    case objectID(ManagedObjectID)
    /// A to-many relationship's state.
    case toMany(ToManySlot)
    case other(BoxedValue)

    /// Classifies a value given as `Any`: one look at its dynamic type instead of a cast per
    /// candidate type.
    @usableFromInline
    init(_ value: Any?) {
        guard let value else { self = .null; return }
        self = _openExistential(value, do: classifyStoredValue)
    }

    /// Classifies a value that is there, such as a dictionary's: wrapping it in an optional for
    /// `init(_:)` would copy it through the runtime first.
    init(present value: Any) {
        self = _openExistential(value, do: classifyStoredValue)
    }

    /// The value as `Any`, as the public API hands it out.
    @usableFromInline
    var value: Any? {
        switch self {
        case .null: return nil
        case .int64(let v): return v
        case .int32(let v): return v
        case .int16(let v): return v
        case .double(let v): return v
        case .float(let v): return v
        case .bool(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .objectID(let v): return v
        case .toMany(let v): return v
        case .other(let box): return box.value
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A to-one relationship's destination, if the slot holds one.
    var objectID: ManagedObjectID? {
        if case .objectID(let id) = self { return id }
        return nil
    }

    /// Whether two stored values are the same, for change detection.
    static func same(_ a: StoredValue, _ b: StoredValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.int64(x), .int64(y)): return x == y
        case let (.int32(x), .int32(y)): return x == y
        case let (.int16(x), .int16(y)): return x == y
        // Bit patterns, as `AnyHashable` compared them: a NaN set again is no change.
        case let (.double(x), .double(y)): return x == y || x.bitPattern == y.bitPattern
        case let (.float(x), .float(y)): return x == y || x.bitPattern == y.bitPattern
        case let (.bool(x), .bool(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.date(x), .date(y)): return x == y
        case let (.data(x), .data(y)): return x == y
        case let (.objectID(x), .objectID(y)): return x == y
        case let (.toMany(x), .toMany(y)):
            // An unloaded to-many is only known to be unchanged against another unloaded one.
            switch (x, y) {
            case (.fault, .fault): return true
            case let (.loaded(left), .loaded(right)): return left == right
            default: return false
            }
        case let (.other(x), .other(y)): return x === y || ValueEquality.same(x.value, y.value)
        default: return false
        }
    }
}

/// A stored value of a type without a case of its own (`Decimal`, `UUID`, `URL`, transformables).
/// Values are immutable, so boxes are shared by copies of the slot that holds them.
@usableFromInline
final class BoxedValue {
    let value: Any
    init(_ value: Any) { self.value = value }
}

extension StoredValue {
    /// The value as a `@Managed` property of type `Wrapped` reads it, when the slot holds exactly
    /// that type (or nothing, for an optional); `nil` sends the caller to the general conversion.
    /// Inlined into the property's accessor, where `Wrapped` is known: the checks of `Wrapped`
    /// fold away and what remains is a branch on the case.
    @inlinable
    func typed<Wrapped>(as type: Wrapped.Type) -> Wrapped? {
        switch self {
        case .int64(let v): return Self.exactly(v, as: Wrapped.self)
        case .string(let v): return Self.exactly(v, as: Wrapped.self)
        case .double(let v): return Self.exactly(v, as: Wrapped.self)
        case .bool(let v): return Self.exactly(v, as: Wrapped.self)
        case .int32(let v): return Self.exactly(v, as: Wrapped.self)
        case .int16(let v): return Self.exactly(v, as: Wrapped.self)
        case .date(let v): return Self.exactly(v, as: Wrapped.self)
        case .data(let v): return Self.exactly(v, as: Wrapped.self)
        case .float(let v): return Self.exactly(v, as: Wrapped.self)
        default: return nil
        }
    }

    /// `value` as `Wrapped` when `Wrapped` is its type or the optional of its type.
    @inlinable
    static func exactly<Stored, Wrapped>(_ value: Stored, as type: Wrapped.Type) -> Wrapped? {
        if Wrapped.self == Stored.self { return unsafeBitCast(value, to: Wrapped.self) }
        if Wrapped.self == Stored?.self { return unsafeBitCast(Optional(value), to: Wrapped.self) }
        return nil
    }

    /// A `@Managed` property's new value of type `Wrapped`, stored without going through `Any`
    /// when it is one of the common types (or the optional of one); `nil` otherwise.
    @inlinable
    static func typed<Wrapped>(_ value: Wrapped) -> StoredValue? {
        if let v = Self.plain(value, Int64.self) { return v.map(StoredValue.int64) ?? .null }
        if let v = Self.plain(value, String.self) { return v.map(StoredValue.string) ?? .null }
        if let v = Self.plain(value, Double.self) { return v.map(StoredValue.double) ?? .null }
        if let v = Self.plain(value, Bool.self) { return v.map(StoredValue.bool) ?? .null }
        if let v = Self.plain(value, Int32.self) { return v.map(StoredValue.int32) ?? .null }
        if let v = Self.plain(value, Int16.self) { return v.map(StoredValue.int16) ?? .null }
        if let v = Self.plain(value, Date.self) { return v.map(StoredValue.date) ?? .null }
        if let v = Self.plain(value, Data.self) { return v.map(StoredValue.data) ?? .null }
        if let v = Self.plain(value, Float.self) { return v.map(StoredValue.float) ?? .null }
        return nil
    }

    /// `value` as an optional `Target` when `Wrapped` is `Target` or `Target?`; `nil` otherwise.
    @inlinable
    static func plain<Wrapped, Target>(_ value: Wrapped, _ target: Target.Type) -> Target?? {
        if Wrapped.self == Target.self { return .some(unsafeBitCast(value, to: Target.self)) }
        if Wrapped.self == Target?.self { return .some(unsafeBitCast(value, to: Target?.self)) }
        return nil
    }
}

/// `value`'s stored form, for a value of a type known at run time (`StoredValue.init` opens an
/// `Any` into this). Each case has just compared `Value` with its type, so the bit casts below are
/// from a type to itself: no cast through the runtime.
private func classifyStoredValue<Value>(_ value: Value) -> StoredValue {
    switch ObjectIdentifier(Value.self) {
    case ObjectIdentifier(Int64.self): return .int64(unsafeBitCast(value, to: Int64.self))
    case ObjectIdentifier(String.self): return .string(unsafeBitCast(value, to: String.self))
    case ObjectIdentifier(Double.self): return .double(unsafeBitCast(value, to: Double.self))
    case ObjectIdentifier(Int32.self): return .int32(unsafeBitCast(value, to: Int32.self))
    case ObjectIdentifier(Int16.self): return .int16(unsafeBitCast(value, to: Int16.self))
    case ObjectIdentifier(Bool.self): return .bool(unsafeBitCast(value, to: Bool.self))
    case ObjectIdentifier(Float.self): return .float(unsafeBitCast(value, to: Float.self))
    case ObjectIdentifier(Date.self): return .date(unsafeBitCast(value, to: Date.self))
    case ObjectIdentifier(Data.self): return .data(unsafeBitCast(value, to: Data.self))
    case ObjectIdentifier(ManagedObjectID.self): return .objectID(unsafeBitCast(value, to: ManagedObjectID.self))
    case ObjectIdentifier(ToManySlot.self): return .toMany(unsafeBitCast(value, to: ToManySlot.self))
    case ObjectIdentifier(StoredValue.self): return unsafeBitCast(value, to: StoredValue.self)
    default: return .other(BoxedValue(value))
    }
}
