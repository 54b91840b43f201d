import Foundation

/// What an observation of a managed object's key path reports, as Foundation's
/// `NSKeyValueObservingOptions` on Apple's platforms (Foundation on Linux has no key-value
/// observing, and so no such type).
public struct KeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The change carries the value after it (`newValue`).
    public static let new = KeyValueObservingOptions(rawValue: 1 << 0)
    /// The change carries the value before it (`oldValue`).
    public static let old = KeyValueObservingOptions(rawValue: 1 << 1)
    /// The handler is called once as the observation starts, with the current value as `newValue`
    /// when `.new` is given too.
    public static let initial = KeyValueObservingOptions(rawValue: 1 << 2)
    /// The handler is also called before each change (`isPrior`), with `oldValue` when `.old` is
    /// given: the object still holds the value it had.
    public static let prior = KeyValueObservingOptions(rawValue: 1 << 3)
}

/// The kind of a change, as Foundation's `NSKeyValueChange`.
public enum KeyValueChange: UInt, Sendable {
    /// The value was replaced (an attribute, a to-one, a to-many set as a whole).
    case setting = 1
    /// Objects were added to a to-many relationship: `newValue` holds them (and `indexes` their
    /// positions, for an ordered one).
    case insertion = 2
    /// Objects were taken out of a to-many relationship: `oldValue` holds them (and `indexes`
    /// the positions they had, for an ordered one).
    case removal = 3
    /// Objects of a to-many relationship were replaced by others. Not reported by managed
    /// objects (a to-many that both gained and lost objects is reported as `.setting`); here for
    /// code that switches over Foundation's kinds.
    case replacement = 4
}

/// One change of an observed key path, as Foundation's `NSKeyValueObservedChange`.
///
/// `newValue` and `oldValue` are there when the options asked for them: for an optional property
/// they are optionals of optionals, as in Foundation (`.some(nil)` is a value that became nil).
public struct KeyValueObservedChange<Value> {
    public typealias Kind = KeyValueChange
    public let kind: Kind
    /// The value after the change (the objects added, for `.insertion`); `nil` for a prior
    /// notification, a removal, or without `.new`.
    public let newValue: Value?
    /// The value before the change (the objects taken out, for `.removal`); `nil` for an
    /// insertion, the initial call, or without `.old`.
    public let oldValue: Value?
    /// The positions of the objects inserted or removed, for an ordered to-many relationship.
    public let indexes: IndexSet?
    /// Whether this call comes before the change (`.prior`).
    public let isPrior: Bool
}

extension KeyValueObservedChange: Sendable where Value: Sendable {}

/// A change as an observation sees it before handing it to its handler: values as `Any`, so one
/// implementation serves typed and string key paths.
struct ObservedChangeRecord {
    var kind: KeyValueChange = .setting
    var newValue: Any??
    var oldValue: Any??
    var indexes: IndexSet?
    var isPrior = false

    /// The record as a typed change. A value of another type than the key path's (which only a
    /// to-many's objects given as another collection could be) is left out rather than forced.
    func typed<Value>(as type: Value.Type) -> KeyValueObservedChange<Value> {
        KeyValueObservedChange(kind: kind, newValue: newValue.flatMap { Self.cast($0, as: type) },
                               oldValue: oldValue.flatMap { Self.cast($0, as: type) }, indexes: indexes, isPrior: isPrior)
    }

    private static func cast<Value>(_ value: Any?, as type: Value.Type) -> Value? {
        // An absent value casts to an optional `Value` as its nil, and to any other as a failure.
        value as? Value
    }
}
