import Foundation

/// Where the value of one destination property comes from, Core Data's `NSPropertyMapping`.
///
/// `valueExpression` is what an object-level migration evaluates for each object, with
/// `$source` the source object, `$manager` the migration manager, `$entityPolicy` the mapping's
/// policy, `$entityMapping` and `$propertyMapping`: `$source.name`, `$source.priceInCents / 100.0`,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "NoteToNote",
/// $source.notes)`. `nil` leaves the property at its default. `kind`, `sourceName` and `detail` are
/// the inferred detail a lightweight migration reads and `limelight migrate` prints.
public struct PropertyMapping: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Same name, same type: the value is copied.
        case copy
        /// Renamed through the destination's renaming identifier; the value is copied.
        case rename
        /// New: every object gets the default value (or none).
        case add
        /// Gone: the value is dropped.
        case remove
        /// Same property, another attribute type the value converts to without loss (wider
        /// integers, integers to floating point).
        case retype
        /// Was optional, is required now: missing values get the default value; without one, every
        /// object must have a value already, which the migration checks.
        case required
        /// A relationship that was to-one and is to-many now (or changes how it is stored).
        case cardinality
        /// Made in code: the value expression decides.
        case custom
    }

    public var kind: Kind
    /// The property the values come from; `nil` for an added property.
    public var sourceName: String?
    /// The property the values go to; `nil` for a removed property.
    public var destinationName: String?
    /// Human-readable detail: types, defaults, destinations.
    public var detail: String
    /// The value of the destination property, evaluated per object (see above).
    public var valueExpression: QueryExpression?
    public var userInfo: [String: any Sendable]?
    /// Whether the destination property is a relationship: set by inference, and by
    /// `EntityMapping.relationshipMappings` for mappings put there.
    public internal(set) var isRelationship: Bool = false

    /// A mapping as inference makes it.
    public init(kind: Kind, sourceName: String?, destinationName: String?, detail: String = "") {
        self.kind = kind
        self.sourceName = sourceName
        self.destinationName = destinationName
        self.detail = detail
    }

    /// A mapping made in code, Core Data's `NSPropertyMapping`: the destination property's name
    /// and the expression of its value.
    public init(name: String, valueExpression: QueryExpression?, userInfo: [String: any Sendable]? = nil) {
        kind = .custom
        destinationName = name
        detail = valueExpression.map { "= \($0)" } ?? ""
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    /// The destination property's name, Core Data's `name`.
    public var name: String? {
        get { destinationName }
        set { destinationName = newValue }
    }

    public static func == (lhs: PropertyMapping, rhs: PropertyMapping) -> Bool {
        lhs.kind == rhs.kind && lhs.sourceName == rhs.sourceName && lhs.destinationName == rhs.destinationName
            && lhs.detail == rhs.detail && lhs.valueExpression == rhs.valueExpression
            && lhs.isRelationship == rhs.isRelationship && sameUserInfo(lhs.userInfo, rhs.userInfo)
    }

    /// User info is compared by its keys and the values' descriptions: values are any type.
    static func sameUserInfo(_ lhs: [String: any Sendable]?, _ rhs: [String: any Sendable]?) -> Bool {
        func text(_ info: [String: any Sendable]?) -> [String]? {
            info.map { $0.map { "\($0.key)=\(String(describing: $0.value))" }.sorted() }
        }
        return text(lhs) == text(rhs)
    }

    var summary: String {
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch kind {
        case .copy: return "= \(destinationName ?? "?")"
        case .rename: return "~ \(sourceName ?? "?") -> \(destinationName ?? "?") renamed\(suffix)"
        case .add: return "+ \(destinationName ?? "?") added\(suffix)"
        case .remove: return "- \(sourceName ?? "?") removed\(suffix)"
        case .retype: return "~ \(destinationName ?? "?") retyped\(suffix)"
        case .required: return "~ \(destinationName ?? "?") now required\(suffix)"
        case .cardinality: return "~ \(destinationName ?? "?") changes cardinality\(suffix)"
        case .custom: return "~ \(destinationName ?? "?") \(valueExpression.map { "= \($0)" } ?? "left at its default")"
        }
    }
}

extension PropertyMapping: KeyValueCodingReadable {
    /// Core Data's keys, for `$propertyMapping.name` in value expressions.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "userInfo": return userInfo
        case "valueExpression": return valueExpression
        default: return nil
        }
    }
}
