import Foundation

/// Converts values set from Swift into an attribute's canonical type, so stored values have one
/// representation per type (Integer 16 is always `Int16`, Date always `Date` …).
enum AttributeValueCoercion {
    /// The canonical value, or `nil` when the value cannot represent the type (the original is then
    /// kept and save reports the type mismatch).
    static func coerce(_ value: Any, to type: AttributeType) -> Any? {
        if isCanonical(value, for: type) { return value }
        switch type {
        case .integer16: return integer(value).flatMap { Int16(exactly: $0) }
        case .integer32: return integer(value).flatMap { Int32(exactly: $0) }
        case .integer64: return integer(value)
        case .double: return double(value)
        case .float: return double(value).map { Float($0) }
        case .decimal:
            if let decimal = value as? Decimal { return decimal }
            if let int = integer(value) { return Decimal(int) }
            return double(value).map { Decimal($0) }
        case .boolean:
            if let bool = value as? Bool { return bool }
            return integer(value).map { $0 != 0 }
        case .string: return value as? String ?? (value as? Substring).map(String.init)
        case .date: return value as? Date
        case .binaryData: return value as? Data ?? (value as? [UInt8]).map { Data($0) }
        case .uuid: return value as? UUID
        case .uri: return value as? URL
        case .objectID: return value as? ManagedObjectID
        case .transformable, .undefined: return value
        // Only the shape: the elements' types are the composite's to check
        // (`CompositeValues.canonical`), which this function, knowing the type alone, cannot.
        case .composite: return value is [String: Any] || value is [AnyHashable: Any] ? value : nil
        }
    }

    /// Whether `value` already has the type's canonical Swift type: a comparison of metatypes,
    /// far cheaper than the casts `coerce` tries, and true for nearly every value a save sees.
    static func isCanonical(_ value: Any, for type: AttributeType) -> Bool {
        let actual = ObjectIdentifier(Swift.type(of: value))
        switch type {
        case .integer16: return actual == ObjectIdentifier(Int16.self)
        case .integer32: return actual == ObjectIdentifier(Int32.self)
        case .integer64: return actual == ObjectIdentifier(Int64.self)
        case .double: return actual == ObjectIdentifier(Double.self)
        case .float: return actual == ObjectIdentifier(Float.self)
        case .decimal: return actual == ObjectIdentifier(Decimal.self)
        case .boolean: return actual == ObjectIdentifier(Bool.self)
        case .string: return actual == ObjectIdentifier(String.self)
        case .date: return actual == ObjectIdentifier(Date.self)
        case .binaryData: return actual == ObjectIdentifier(Data.self)
        case .uuid: return actual == ObjectIdentifier(UUID.self)
        case .uri: return actual == ObjectIdentifier(URL.self)
        case .objectID: return actual == ObjectIdentifier(ManagedObjectID.self)
        case .transformable, .undefined: return true
        // Never known from the type alone: a composite's value goes through its description.
        case .composite: return false
        }
    }

    /// Whether a stored value already has the type's canonical Swift type: a look at its case.
    static func isCanonical(_ value: StoredValue, for type: AttributeType) -> Bool {
        // On the value alone, binding no payload: nothing is copied.
        switch value {
        case .null: return true
        case .int64: return type == .integer64 || type.takesAnyValue
        case .int32: return type == .integer32 || type.takesAnyValue
        case .int16: return type == .integer16 || type.takesAnyValue
        case .double: return type == .double || type.takesAnyValue
        case .float: return type == .float || type.takesAnyValue
        case .bool: return type == .boolean || type.takesAnyValue
        case .string: return type == .string || type.takesAnyValue
        case .date: return type == .date || type.takesAnyValue
        case .data: return type == .binaryData || type.takesAnyValue
        case .objectID: return type == .objectID || type.takesAnyValue
        case .toMany: return type.takesAnyValue
        case .other(let box): return isCanonical(box.value, for: type)
        }
    }

    /// A stored value in the type's canonical form, or `nil` when it cannot represent the type.
    static func coerce(_ value: StoredValue, to type: AttributeType) -> StoredValue? {
        if isCanonical(value, for: type) { return value }
        guard let plain = value.value, let coerced = coerce(plain, to: type) else { return nil }
        return StoredValue(coerced)
    }

    static func integer(_ value: Any) -> Int64? {
        // Int64 first: stored integers are canonical Int64 whatever their width in the model.
        switch value {
        case let v as Int64: return v
        case let v as Int: return Int64(v)
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int8: return Int64(v)
        case let v as UInt: return Int64(exactly: v)
        case let v as UInt64: return Int64(exactly: v)
        case let v as UInt32: return Int64(v)
        case let v as UInt16: return Int64(v)
        case let v as UInt8: return Int64(v)
        case let v as Bool: return v ? 1 : 0
        case let v as Double: return Int64(exactly: v)
        case let v as Float: return Int64(exactly: v)
        case let v as Decimal: return Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        default: return nil
        }
    }

    static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        default: return integer(value).map(Double.init)
        }
    }
}
