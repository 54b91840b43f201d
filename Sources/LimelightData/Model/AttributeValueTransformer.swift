import Foundation

/// A transformer for Transformable attributes written as a class, the way Core Data apps write
/// theirs as subclasses of Foundation's `ValueTransformer`: the same override points
/// (`transformedValue(_:)`, `reverseTransformedValue(_:)`, `allowsReverseTransformation()`,
/// `transformedValueClass()`), registered by name with `setValueTransformer(_:forName:)` and used
/// by every attribute whose `valueTransformerName` is that name.
///
/// Named apart from Foundation's class, which Foundation on Linux does not have and which a file
/// importing both this module and Foundation on Apple platforms would find twice.
///
/// As in Core Data, `transformedValue(_:)` makes the bytes the store keeps from the attribute's
/// value and `reverseTransformedValue(_:)` makes the value back from them;
/// `SecureUnarchiveAttributeTransformer` and its subclasses go the other way, as Foundation's
/// unarchiving transformers do.
///
/// Transformers are called from whichever context reads or saves, at the same time: like
/// Foundation's, one must keep no state that a call changes.
open class AttributeValueTransformer {
    /// The name a transformer is registered under (Foundation's `NSValueTransformerName`).
    public struct Name: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
    }

    public init() {}

    /// The class of the values `transformedValue(_:)` returns.
    open class func transformedValueClass() -> AnyClass { NSData.self }

    /// Whether `reverseTransformedValue(_:)` works; a store cannot read values back without it.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed form of `value`: the bytes to store, for a transformer of one's own.
    /// `nil` when `value` cannot be transformed; the save then fails naming the attribute.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value `value` was transformed from. `nil` when it cannot be read back; the attribute
    /// then reads as `nil`, as in Core Data, and the fetch names what was not read.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }

    /// Registers `transformer` under `name` for the attributes whose `valueTransformerName` is
    /// `name`, replacing what was registered there; `nil` removes it (Core Data's own keyed
    /// archive names go back to Core Data's transformer).
    public class func setValueTransformer(_ transformer: AttributeValueTransformer?, forName name: Name) {
        ValueTransformerRegistry.shared.register(transformer, forName: name.rawValue)
    }

    /// The transformer registered under `name` as a class (Foundation's
    /// `ValueTransformer(forName:)`); `nil` for none or one registered as closures.
    public class func transformer(forName name: Name) -> AttributeValueTransformer? {
        ValueTransformerRegistry.shared.classTransformer(named: name.rawValue)
    }

    /// The names of the transformers registered as classes.
    public class func valueTransformerNames() -> [Name] {
        ValueTransformerRegistry.shared.classTransformerNames().map(Name.init(rawValue:))
    }

    /// Whether `transformedValue(_:)` reads stored bytes rather than making them.
    var readsStoredBytesForward: Bool { false }

    /// The bytes the store keeps for `value`; a typed error naming the transformer otherwise.
    func storedBytes(for value: Any, name: String) throws -> Data {
        let transformed = readsStoredBytesForward ? reverseTransformedValue(value) : transformedValue(value)
        switch transformed {
        case let data as Data: return data
        case let data as NSData: return Data(referencing: data)
        case nil:
            throw ValueTransformerRegistry.TransformError(name: name, reason: "\(type(of: self)) gave nothing for a \(type(of: value))")
        case let other?:
            throw ValueTransformerRegistry.TransformError(
                name: name, reason: "\(type(of: self)) made a \(type(of: other)) from a \(type(of: value)), where a store keeps bytes (Data)")
        }
    }

    /// The value stored as `data`; a typed error naming the transformer otherwise.
    func value(fromStored data: Data, name: String) throws -> Any {
        if readsStoredBytesForward {
            if let value = transformedValue(data) { return value }
        } else {
            guard Self.allowsReverseTransformation() else {
                throw ValueTransformerRegistry.TransformError(
                    name: name, reason: "\(type(of: self)) does not allow reverse transformation, so stored values cannot be read back")
            }
            if let value = reverseTransformedValue(data) { return value }
        }
        throw ValueTransformerRegistry.TransformError(name: name, reason: explanation(ofUnreadable: data))
    }

    /// Why `data` gave no value, for the error that says so.
    func explanation(ofUnreadable data: Data) -> String {
        "\(type(of: self)) gave nothing for \(data.count) stored bytes"
    }
}
