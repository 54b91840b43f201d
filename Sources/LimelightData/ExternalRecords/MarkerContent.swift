import Foundation

/// What a marker file holds: a small property list with the object's URI, its entity, its store
/// and the values of the properties flagged `storedInTruthFile`.
public struct MarkerContent: Equatable, @unchecked Sendable {
    public var objectURI: String
    public var entityName: String
    public var storeIdentifier: String
    /// Values of stored-in-file properties, as property-list values (strings, numbers, dates, data).
    public var values: [String: Any]
    /// What the store's Core Spotlight delegate said of the object when it was last saved; `nil`
    /// when it was saved without one, and the indexer reads its indexed properties instead.
    public var spotlight: SpotlightDescription?

    /// A Core Spotlight delegate's word on an object.
    public enum SpotlightDescription: Equatable, Sendable {
        /// Index exactly this.
        case attributes(SearchableItemAttributeSet)
        /// Keep the object out of the index.
        case excluded
    }

    public static let uriKey = "NSObjectURI"
    public static let entityKey = "NSEntityName"
    public static let storeKey = "NSStoreUUID"
    public static let valuesKey = "values"
    public static let spotlightKey = "spotlightAttributes"
    public static let excludedKey = "excludedFromSpotlight"

    /// Same object, entity and store, and values that make the same property list. Values are
    /// compared as written, not through `NSDictionary`: on Linux that finds a Swift `Int` unequal
    /// to an equal one, and decoded markers hold Swift values.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.objectURI == rhs.objectURI, lhs.entityName == rhs.entityName, lhs.storeIdentifier == rhs.storeIdentifier,
              lhs.spotlight == rhs.spotlight else {
            return false
        }
        // The writer sorts keys and types numbers exactly, so equal values give equal bytes.
        guard let left = try? PropertyListWriter.data(lhs.values, format: .binary),
              let right = try? PropertyListWriter.data(rhs.values, format: .binary) else {
            return NSDictionary(dictionary: lhs.values).isEqual(to: rhs.values)
        }
        return left == right
    }

    init(id: ManagedObjectID, values rawValues: [StoredValue]) {
        objectURI = id.uriString
        entityName = id.entity.name
        storeIdentifier = id.storeIdentifier ?? ""
        var values: [String: Any] = [:]
        for (index, property) in id.entity.properties.enumerated() where property.isStoredInExternalRecord && index < rawValues.count {
            if let value = Self.plistValue(rawValues[index].value) { values[property.name] = value }
        }
        self.values = values
    }

    public init(objectURI: String, entityName: String, storeIdentifier: String, values: [String: Any]) {
        self.objectURI = objectURI
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.values = values
    }

    static func plistValue(_ value: Any?) -> Any? {
        switch value {
        case nil: return nil
        case let id as ManagedObjectID: return id.uriString
        case .loaded(let ids)? as ToManySlot?: return ids.map(\.uriString)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).doubleValue
        case let v as Int16: return Int(v)
        case let v as Int32: return Int(v)
        case let v as Int64: return Int(v)
        case let v as Float: return Double(v)
        case let v as String: return v
        case let v as Double: return v
        case let v as Bool: return v
        case let v as Date: return v
        case let v as Data: return v
        default: return nil
        }
    }

    func encoded(format: ExternalRecordsConfiguration.FileFormat) throws -> Data {
        var plist: [String: Any] = [Self.uriKey: objectURI, Self.entityKey: entityName, Self.storeKey: storeIdentifier,
                                    Self.valuesKey: values]
        switch spotlight {
        case .attributes(let set)?: plist[Self.spotlightKey] = set.propertyList
        case .excluded?: plist[Self.excludedKey] = true
        case nil: break
        }
        return try PropertyListWriter.data(plist, format: format == .xml ? .xml : .binary)
    }

    /// Reads a marker file's content; `path` names it in errors.
    public static func decode(_ data: Data, path: String) throws -> MarkerContent {
        let top: Any
        do {
            top = try PropertyListReader.read(data)
        } catch {
            throw ExternalRecordError(path: path, reason: "not a marker file (\(error))")
        }
        guard let plist = top as? [String: Any], let uri = plist[uriKey] as? String, let entity = plist[entityKey] as? String else {
            throw ExternalRecordError(path: path, reason: "not a marker file (no object URI in its property list)")
        }
        var content = MarkerContent(objectURI: uri, entityName: entity, storeIdentifier: plist[storeKey] as? String ?? "",
                                    values: plist[valuesKey] as? [String: Any] ?? [:])
        if plist[excludedKey] as? Bool == true {
            content.spotlight = .excluded
        } else if let attributes = plist[spotlightKey] as? [String: Any] {
            content.spotlight = .attributes(SearchableItemAttributeSet(propertyList: attributes))
        }
        return content
    }
}

/// A marker path or file that cannot be used, and why.
public struct ExternalRecordError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) { self.path = path; self.reason = reason }
    public var description: String { "\(path): \(reason)" }
}
