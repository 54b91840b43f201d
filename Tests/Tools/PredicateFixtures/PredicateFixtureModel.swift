import LimelightData

/// The model predicates are tried on, by the differential tests and by the fuzzer alike: items
/// with every attribute kind, a to-one owner and a many-to-many of tags.
public enum PredicateFixtureModel {
    public static func make() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "score", type: .integer32),
            AttributeDescription(name: "price", type: .double), AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "flag", type: .boolean),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
        ])
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "weight", type: .double),
            AttributeDescription(name: "rank", type: .integer16),
            RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true),
        ])
        return ManagedObjectModel(entities: [item, owner, tag])
    }
}
