import Foundation
@testable import LimelightData

/// Three versions of a contacts model, for staged migration: version 2 adds first and last names
/// beside the full name (a lightweight change); version 3 drops the full name, adds a display name
/// and makes email addresses unique, which needs the application's code to split names and
/// remove duplicates.
enum ContactVersions {
    static func version1() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "email", type: .string),
        ])])
    }

    static func version2() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
        ])])
    }

    static func version3() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "email", type: .string),
            AttributeDescription(name: "firstName", type: .string),
            AttributeDescription(name: "lastName", type: .string),
            AttributeDescription(name: "displayName", type: .string),
        ])
        person.uniquenessConstraints = [["email"]]
        return ManagedObjectModel(entities: [person])
    }

    /// A store made with `model` holding one person per entry (values by key), closed again.
    static func makeStore(at url: URL, model: ManagedObjectModel, people: [[String: String]]) throws {
        let context = try TestStack.context(model: model, at: url)
        for values in people {
            let person = try context.insertNewObject(forEntityName: "Person")
            for (key, value) in values { person.setValue(value, forKey: key) }
        }
        try context.save()
        let coordinator = context.persistentStoreCoordinator
        for store in coordinator?.persistentStores ?? [] { coordinator?.remove(store) }
    }

    /// Every person's values for `keys`, sorted, missing values as "-".
    static func people(in context: ManagedObjectContext, _ keys: [String]) throws -> [[String]] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map { person in
            keys.map { person.value(forKey: $0) as? String ?? "-" }
        }.sorted { $0.joined(separator: "|") < $1.joined(separator: "|") }
    }
}
