import Foundation

/// The texts the index takes from an object's indexed properties: each indexed attribute's value
/// as text, each indexed relationship's related objects' indexed attributes joined, under the
/// property's name; and the name a hit shows, from the entity's `displayNameKey` user-info entry
/// or its first indexed string. The indexer's importer and a Core Spotlight delegate's default
/// attribute set both describe an object this way, so a search finds the same either way.
package struct IndexedTexts {
    package var displayName: String?
    package var fields: [String: String] = [:]

    package init(of object: ManagedObject) {
        for property in object.entity.properties where property.isIndexedBySpotlight {
            let value = object.value(forKey: property.name)
            if property is RelationshipDescription {
                let related: [ManagedObject]
                switch value {
                case let set as Set<ManagedObject>: related = Array(set)
                case let array as [ManagedObject]: related = array
                case let one as ManagedObject: related = [one]
                default: related = []
                }
                let joined = related.flatMap { other in
                    other.entity.properties.filter { $0.isIndexedBySpotlight && $0 is AttributeDescription }
                        .compactMap { Self.text(of: other.value(forKey: $0.name)) }
                }.joined(separator: " ")
                if !joined.isEmpty { fields[property.name] = joined }
            } else if let text = Self.text(of: value) {
                fields[property.name] = text
            }
        }
        let displayKey = object.entity.userInfo["displayNameKey"]
        displayName = displayKey.flatMap { Self.text(of: object.value(forKey: $0)) }
            ?? object.entity.properties.first { $0.isIndexedBySpotlight && ($0 as? AttributeDescription)?.attributeType == .string }
                .flatMap { Self.text(of: object.value(forKey: $0.name)) }
    }

    /// A value as the index takes it; `nil` for nothing to index (no value, an empty string, data).
    package static func text(of value: Any?) -> String? {
        switch value {
        case nil: return nil
        case let string as String: return string.isEmpty ? nil : string
        case let date as Date: return ISO8601Timestamp.string(from: date)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case is Data: return nil
        case let value?: return "\(value)"
        }
    }
}
