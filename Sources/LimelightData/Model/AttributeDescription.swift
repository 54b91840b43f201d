import Foundation

/// Describes a stored or transient value of an entity: its type, default and validation rules.
///
/// Not final only for `CompositeAttributeDescription`, an attribute made of other attributes, as
/// Core Data's composite is a subclass of its attribute description.
public class AttributeDescription: PropertyDescription, @unchecked Sendable {
    public var attributeType: AttributeType
    /// The value a new object starts with, in the attribute's canonical Swift type.
    public var defaultValue: Any?
    /// Name of a transformer registered with `ValueTransformerRegistry` (Transformable only).
    public var valueTransformerName: String?
    public var customClassName: String?
    public var usesScalarValueType: Bool = false
    public var allowsExternalBinaryDataStorage: Bool = false
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Lower bound: a number for numbers, a length for strings and data, seconds since
    /// 2001-01-01 for dates.
    public var minValue: Double?
    /// Upper bound, in the same units as `minValue`.
    public var maxValue: Double?
    /// Pattern a string value must match completely.
    public var regularExpression: String?
    /// For a derived attribute (Core Data's `NSDerivedAttributeDescription`), the expression its
    /// value is computed from at every save of its object: a key path (`name`, `owner.name`), a
    /// function of one (`uppercase:(name)`, `canonical:(name)`), an aggregate across a to-many
    /// (`items.@count`, `items.@sum.price`, which follow changes to the items too), or `now()`.
    public var derivationExpression: QueryExpression?
    /// Whether the attribute's value is computed (`derivationExpression`) rather than set.
    public var isDerived: Bool { derivationExpression != nil }

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Any? = nil) {
        self.attributeType = type
        self.defaultValue = defaultValue
        super.init(name: name)
        self.isOptional = isOptional
    }
}
