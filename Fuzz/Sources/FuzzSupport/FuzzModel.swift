import Foundation
import LimelightData

/// A small model with every attribute kind and every kind of relationship, which the stores and
/// predicates are fuzzed against.
public enum FuzzModel {
    public static func make() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "score", type: .integer32), AttributeDescription(name: "big", type: .integer64),
            AttributeDescription(name: "price", type: .double), AttributeDescription(name: "ratio", type: .float),
            AttributeDescription(name: "amount", type: .decimal), AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "flag", type: .boolean), AttributeDescription(name: "blob", type: .binaryData),
            AttributeDescription(name: "identifier", type: .uuid), AttributeDescription(name: "link", type: .uri),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
        ])
        let owner = EntityDescription(name: "Owner", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "weight", type: .double),
            RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true),
        ])
        return ManagedObjectModel(entities: [item, owner, tag])
    }

    /// Fills `context` with a few objects using every attribute.
    public static func populate(_ context: ManagedObjectContext) throws {
        let owner = try context.insertNewObject(forEntityName: "Owner")
        owner.setValue("Ann", forKey: "name")
        let tags = try ["red", "Rëd", "blue"].enumerated().map { index, name -> ManagedObject in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            tag.setValue(Double(index) * 1.5, forKey: "weight")
            return tag
        }
        for number in 0..<4 {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(["Crème brûlée", "éclair", "<tarte & co>", "x"][number], forKey: "name")
            item.setValue(Int16(number), forKey: "small")
            item.setValue(Int32(number * 10), forKey: "score")
            item.setValue(Int64(number) << 40, forKey: "big")
            item.setValue(Double(number) * 2.5, forKey: "price")
            item.setValue(Float(number) / 3, forKey: "ratio")
            item.setValue(Decimal(string: "12.\(number)5"), forKey: "amount")
            item.setValue(Date(timeIntervalSinceReferenceDate: Double(number) * 86_400), forKey: "created")
            item.setValue(number % 2 == 0, forKey: "flag")
            item.setValue(Data([0, 1, 2, UInt8(number)]), forKey: "blob")
            item.setValue(UUID(), forKey: "identifier")
            item.setValue(URL(string: "https://example.com/\(number)"), forKey: "link")
            if number > 0 { item.setValue(owner, forKey: "owner") }
            item.setValue(Set(tags.prefix(number)), forKey: "tags")
        }
    }
}
