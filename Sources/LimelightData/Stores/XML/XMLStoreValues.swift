import Foundation

/// How the XML store writes attribute values as element text, and reads them back, in Core
/// Data's forms: numbers in decimal, booleans as 1 and 0, dates as seconds since 2001 with
/// twenty decimals, bytes in base64.
///
/// Values are read by the model's attribute type, not by the `type` the file names beside them,
/// so a file whose labels differ from these (an older writer's) still reads as the model says.
enum XMLStoreValues {
    /// The `type` label written for an attribute of `type`.
    static func label(_ type: AttributeType) -> String {
        switch type {
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binaryData: "binary"
        case .transformable, .undefined: "transformable"
        case .uuid: "uuid"
        case .uri: "uri"
        case .objectID: "objectid"
        case .composite: "composite"
        }
    }

    /// `value` as the text of the attribute's element.
    static func text(_ value: Any, for attribute: AttributeDescription) throws -> String {
        let where_ = "\(attribute.entity?.name ?? "?").\(attribute.name)"
        func mismatch() -> PersistenceError {
            PersistenceError.invalidRequest("\(where_): the XML store cannot write \(type(of: value)) as \(attribute.attributeType.rawValue)")
        }
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64:
            guard let integer = AttributeValueCoercion.integer(value) else { throw mismatch() }
            return String(integer)
        case .double, .float:
            guard let double = AttributeValueCoercion.double(value) else { throw mismatch() }
            return number(double, float: attribute.attributeType == .float)
        case .decimal:
            guard let decimal = AttributeValueCoercion.coerce(value, to: .decimal) as? Decimal else { throw mismatch() }
            return "\(decimal)"
        case .boolean:
            guard let bool = AttributeValueCoercion.coerce(value, to: .boolean) as? Bool else { throw mismatch() }
            return bool ? "1" : "0"
        case .string:
            guard let string = value as? String else { throw mismatch() }
            try checkCharacters(string, where_)
            return string
        case .date:
            guard let date = value as? Date else { throw mismatch() }
            return String(format: "%.20f", date.timeIntervalSinceReferenceDate)
        case .binaryData:
            guard let data = value as? Data else { throw mismatch() }
            return data.base64EncodedString()
        case .uuid:
            guard let uuid = value as? UUID else { throw mismatch() }
            return uuid.uuidString
        case .uri:
            guard let url = value as? URL else { throw mismatch() }
            return url.absoluteString
        case .objectID:
            guard let id = value as? ManagedObjectID else { throw mismatch() }
            return id.uriRepresentation().absoluteString
        case .transformable, .undefined:
            return try ValueTransformerRegistry.shared.encode(value, for: attribute).base64EncodedString()
        case .composite:
            // A composite is written as its elements (`XMLStoreWriter`), never as one text.
            throw mismatch()
        }
    }

    /// The value of an attribute's element text; throws what is wrong with it.
    static func value(_ text: String, for attribute: AttributeDescription) throws -> Any {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func bad() -> Error { XMLStoreError.badValue(text: trimmed, type: attribute.attributeType.rawValue) }
        switch attribute.attributeType {
        case .integer16:
            guard let value = Int16(trimmed) else { throw bad() }
            return value
        case .integer32:
            guard let value = Int32(trimmed) else { throw bad() }
            return value
        case .integer64:
            guard let value = Int64(trimmed) else { throw bad() }
            return value
        case .double:
            guard let value = Double(trimmed) else { throw bad() }
            return value
        case .float:
            guard let value = Float(trimmed) else { throw bad() }
            return value
        case .decimal:
            guard let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else { throw bad() }
            return value
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "yes", "true": return true
            case "0", "no", "false": return false
            default: throw bad()
            }
        case .string:
            return text
        case .date:
            guard let seconds = Double(trimmed) else { throw bad() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .binaryData:
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else { throw bad() }
            return data
        case .uuid:
            guard let uuid = UUID(uuidString: trimmed) else { throw bad() }
            return uuid
        case .uri, .objectID:
            guard let url = URL(string: trimmed) else { throw bad() }
            return url
        case .transformable, .undefined:
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else { throw bad() }
            guard let transformer = ValueTransformerRegistry.shared.transformer(for: attribute.valueTransformerName) else { return data }
            do {
                return try transformer.decode(data)
            } catch {
                throw XMLStoreError.untransformable(transformer: attribute.valueTransformerName ?? "", reason: "\(error)")
            }
        case .composite:
            throw bad()
        }
    }

    /// A number as Core Data writes one: whole numbers without a fraction.
    private static func number(_ value: Double, float: Bool) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return float ? "\(Float(value))" : "\(value)"
    }

    /// XML 1.0 cannot hold most control characters, not even as references: a string with one
    /// would make a file no reader takes, so the save is refused instead.
    private static func checkCharacters(_ string: String, _ where_: String) throws {
        for scalar in string.unicodeScalars where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r"
            || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw PersistenceError.invalidRequest("\(where_): the XML store cannot hold the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)")
        }
    }
}

/// What is wrong with a value in an XML store file; the store adds the file, line and object.
enum XMLStoreError: Error, CustomStringConvertible {
    case badValue(text: String, type: String)
    case untransformable(transformer: String, reason: String)
    case unknownElement(name: String, composite: String)

    var description: String {
        switch self {
        case .unknownElement(let name, let composite): "the composite \(composite) has no element '\(name)'"
        case .badValue(let text, let type): "'\(text.prefix(60))' is not a value of type \(type)"
        case .untransformable(let transformer, let reason): "the value transformer '\(transformer)' cannot read the value: \(reason)"
        }
    }
}
