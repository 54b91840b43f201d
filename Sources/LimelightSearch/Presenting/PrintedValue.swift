import Foundation
import LimelightData

/// A value as the programs show it: text for people, a JSON value for machines.
///
/// Made from the property's declared type where it is known, so each value is cast to the one
/// type it can have. Testing a value against a list of types and protocols, and printing it
/// through `"\(value)"`, makes the runtime search the program's conformance tables once per type
/// and protocol it has not met yet: printing one search hit that way cost a tenth of `limelight
/// search`.
public enum PrintedValue: Equatable, Sendable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case list([String])

    public init(_ value: Any?, attribute type: AttributeType?) {
        guard let value else {
            self = .null
            return
        }
        if let type, let typed = Self.typed(value, type) {
            self = typed
            return
        }
        self = Self.untyped(value)
    }

    /// The value as its attribute's type says it is; `nil` when it is not of that type.
    private static func typed(_ value: Any, _ type: AttributeType) -> PrintedValue? {
        switch type {
        case .string: return (value as? String).map(PrintedValue.text)
        case .integer64: return (value as? Int64).map(PrintedValue.integer)
        case .integer32: return (value as? Int32).map { .integer(Int64($0)) }
        case .integer16: return (value as? Int16).map { .integer(Int64($0)) }
        case .boolean: return (value as? Bool).map(PrintedValue.bool)
        case .double: return (value as? Double).map(PrintedValue.real)
        case .float: return (value as? Float).map { .real(Double($0)) }
        case .date: return (value as? Date).map { .text(ISO8601Timestamp.string(from: $0)) }
        case .binaryData: return (value as? Data).map { .text("<\($0.count) bytes>") }
        case .uuid: return (value as? UUID).map { .text($0.uuidString) }
        case .uri: return (value as? URL).map { .text($0.absoluteString) }
        case .decimal: return (value as? Decimal).map { .real(NSDecimalNumber(decimal: $0).doubleValue) }
        default: return nil
        }
    }

    /// The attribute types a value of no declared type is tried as, in turn.
    private static let probedTypes: [AttributeType] = [
        .string, .date, .binaryData, .uuid, .uri, .boolean, .integer64, .integer32, .integer16, .double, .float, .decimal,
    ]

    /// A value of no declared type (a dictionary row's, a transformable's): tried as each
    /// attribute type, then as what only such values can be.
    private static func untyped(_ value: Any) -> PrintedValue {
        for type in probedTypes {
            if let typed = typed(value, type) { return typed }
        }
        switch value {
        case let id as ManagedObjectID: return .text(id.uriString)
        case let object as ManagedObject: return .text(object.objectID.uriString)
        case let int as any BinaryInteger: return .integer(Int64(truncatingIfNeeded: int))
        case is NSNull: return .null
        default: return .text("\(value)")
        }
    }

    public var text: String {
        switch self {
        case .null: return "nil"
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .list(let items): return "[" + items.joined(separator: ", ") + "]"
        }
    }

    public var json: Any {
        switch self {
        case .null: return NSNull()
        case .text(let text): return text
        case .integer(let value): return value
        case .real(let value): return value
        case .bool(let value): return value
        case .list(let items): return items
        }
    }
}
