import Foundation

/// The value type of an attribute, with the names Xcode writes into model files.
public enum AttributeType: String, Sendable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binaryData = "Binary"
    case transformable = "Transformable"
    case uuid = "UUID"
    case uri = "URI"
    case objectID = "ObjectID"
    case undefined = "Undefined"
    /// An attribute made of other attributes (`CompositeAttributeDescription`), whose value is a
    /// dictionary of theirs.
    case composite = "Composite"

    /// The number Core Data gives the type (`NSAttributeType`), as compiled models and version
    /// hashes hold it.
    public var code: Int {
        switch self {
        case .undefined: return 0
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binaryData: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        case .objectID: return 2000
        case .composite: return 2100
        }
    }

    /// The type Core Data numbers `code`; `nil` for a number it has no type for here.
    public init?(code: Int) {
        guard let type = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = type
    }

    /// Whether values of this type are numbers (used for min/max validation and promotion).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: return true
        default: return false
        }
    }

    /// Whether any value is accepted as it is (transformable and undefined attributes).
    var takesAnyValue: Bool { self == .transformable || self == .undefined }

    /// The SQLite column type Core Data declares for this attribute type. A composite has no
    /// column of its own (each of its elements has one); it is never asked.
    var sqlColumnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .string, .uri: return "VARCHAR"
        case .date: return "TIMESTAMP"
        case .binaryData, .transformable, .uuid, .objectID, .undefined, .composite: return "BLOB"
        }
    }
}
