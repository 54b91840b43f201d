import LimelightData

/// Shared printing of a live object: its attributes and relationships as URIs.
public enum ObjectPrinter {
    public static func values(of object: ManagedObject) -> [String: PrintedValue] {
        var result: [String: PrintedValue] = [:]
        for property in object.entity.properties where !(property is FetchedPropertyDescription) {
            if let relationship = property as? RelationshipDescription {
                result[property.name] = related(object, relationship)
            } else {
                let value = object.value(forKey: property.name)
                result[property.name] = PrintedValue(value, attribute: (property as? AttributeDescription)?.attributeType)
            }
        }
        return result
    }

    /// A relationship's value as URIs, read as IDs: no related object is made or fetched.
    private static func related(_ object: ManagedObject, _ relationship: RelationshipDescription) -> PrintedValue {
        let uris = object.objectIDs(forRelationshipNamed: relationship.name).map { $0.uriRepresentation().absoluteString }
        guard relationship.isToMany else { return uris.first.map(PrintedValue.text) ?? .null }
        return .list(relationship.isOrdered ? uris : uris.sorted())
    }

    public static func text(_ values: [String: PrintedValue], indent: String = "  ") -> String {
        values.keys.sorted().map { key in "\(indent)\(key): \(values[key]?.text ?? "nil")" }.joined(separator: "\n")
    }

    /// The values as a JSON object's members.
    public static func json(_ values: [String: PrintedValue]) -> [String: Any] { values.mapValues(\.json) }
}
