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

    /// The Foundation class Core Data gives this attribute's values (`NSString`, `NSNumber`,
    /// `NSDate` …), the custom class of a transformable, and `nil` where Core Data names none
    /// (undefined and composite attributes, a transformable without a class).
    public var attributeValueClassName: String? {
        switch attributeType {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return "NSNumber"
        case .decimal: return "NSDecimalNumber"
        case .string: return "NSString"
        case .date: return "NSDate"
        case .binaryData: return "NSData"
        case .uuid: return "NSUUID"
        case .uri: return "NSURL"
        case .objectID: return "NSManagedObjectID"
        case .transformable: return customClassName
        case .undefined, .composite: return nil
        }
    }

    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Any? = nil) {
        self.attributeType = type
        self.defaultValue = defaultValue
        super.init(name: name)
        self.isOptional = isOptional
    }
}
