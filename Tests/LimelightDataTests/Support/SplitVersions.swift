import Foundation
@testable import LimelightData

/// Two versions of a small address book that lightweight migration cannot bridge: version 2
/// moves a person's address string into an Address entity of its own, keeps prices as amounts
/// instead of cents, and gives notes a computed `shout`. The mapping between them is written in
/// code, as an Xcode mapping model would hold it.
enum SplitVersions {
    static func version1() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Person", properties: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "address", type: .string),
                RelationshipDescription(name: "notes", destination: "Note", inverse: "author", toMany: true),
            ]),
            EntityDescription(name: "Note", properties: [
                AttributeDescription(name: "text", type: .string),
                RelationshipDescription(name: "author", destination: "Person", inverse: "notes"),
            ]),
            EntityDescription(name: "Product", properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "priceInCents", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            ]),
        ])
    }

    static func version2() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Person", properties: [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                RelationshipDescription(name: "home", destination: "Address", inverse: "resident"),
                RelationshipDescription(name: "notes", destination: "Note", inverse: "author", toMany: true),
            ]),
            EntityDescription(name: "Address", properties: [
                AttributeDescription(name: "street", type: .string, isOptional: false),
                RelationshipDescription(name: "resident", destination: "Person", inverse: "home"),
            ]),
            EntityDescription(name: "Note", properties: [
                AttributeDescription(name: "text", type: .string),
                AttributeDescription(name: "shout", type: .string),
                RelationshipDescription(name: "author", destination: "Person", inverse: "notes"),
            ]),
            EntityDescription(name: "Product", properties: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "price", type: .double),
            ]),
        ])
    }

    /// A version 1 store: Ann (with an address, two notes), Bob (no address, one note), and two
    /// products, one of them free.
    static func makeStore(at url: URL) throws {
        let context = try TestStack.context(model: version1(), at: url)
        func person(_ name: String, _ address: String?) throws -> ManagedObject {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(name, forKey: "name")
            person.setValue(address, forKey: "address")
            return person
        }
        let ann = try person("Ann", "1 Main Street"), bob = try person("Bob", nil)
        for (text, author) in [("hello", ann), ("again", ann), ("hi", bob)] {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(text, forKey: "text")
            note.setValue(author, forKey: "author")
        }
        for (name, cents) in [("tea", Int64(250)), ("water", Int64(0))] {
            let product = try context.insertNewObject(forEntityName: "Product")
            product.setValue(name, forKey: "name")
            product.setValue(cents, forKey: "priceInCents")
        }
        try context.save()
    }

    static func expression(_ format: String) throws -> QueryExpression { try QueryExpression(format: format) }

    /// The hand-written mapping: a policy splits Person, value expressions convert prices and
    /// call the notes' policy, relationships are rebuilt through the manager, and only products
    /// that cost something are carried over (the source expression).
    static func mapping(personPolicy: EntityMigrationPolicy.Type = AddressPolicy.self) throws -> MappingModel {
        let people = EntityMapping(
            name: "PersonToPerson", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Person",
            attributeMappings: [PropertyMapping(name: "name", valueExpression: try expression("$source.name"))],
            relationshipMappings: [PropertyMapping(name: "notes", valueExpression: try expression(
                "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'NoteToNote', $source.notes)"))],
            entityMigrationPolicy: personPolicy)
        let notes = EntityMapping(
            name: "NoteToNote", mappingType: .transform, sourceEntityName: "Note", destinationEntityName: "Note",
            attributeMappings: [
                PropertyMapping(name: "text", valueExpression: try expression("FUNCTION($source, 'valueForKey:', 'text')")),
                PropertyMapping(name: "shout", valueExpression: try expression("FUNCTION($entityPolicy, 'shout:', $source.text)")),
            ],
            relationshipMappings: [PropertyMapping(name: "author", valueExpression: try expression(
                "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PersonToPerson', $source.author)"))],
            entityMigrationPolicy: ShoutPolicy.self)
        let products = EntityMapping(
            name: "ProductToProduct", mappingType: .transform, sourceEntityName: "Product", destinationEntityName: "Product",
            attributeMappings: [
                PropertyMapping(name: "name", valueExpression: try expression("$source.name")),
                PropertyMapping(name: "price", valueExpression: try expression("$source.priceInCents / 100.0")),
            ],
            sourceExpression: try expression("FETCH(FUNCTION($manager, 'fetchRequestForSourceEntityNamed:predicateString:', "
                                             + "'Product', 'priceInCents > 0'), $manager.sourceContext, NO)"))
        let addresses = EntityMapping(name: "Address", mappingType: .add, sourceEntityName: nil, destinationEntityName: "Address")
        return MappingModel(entityMappings: [people, notes, products, addresses])
    }
}

/// Makes an Address from a person's address string and links it to the migrated person.
class AddressPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource person: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: person, in: mapping, manager: manager)
        guard let street = person.value(forKey: "address") as? String, let context = manager.destinationContext,
              let migrated = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [person]).first else { return }
        let address = try context.insertNewObject(forEntityName: "Address")
        address.setValue(street, forKey: "street")
        migrated.setValue(address, forKey: "home")
    }
}

/// Fails on the second person, after the first was made.
final class FailingAddressPolicy: AddressPolicy {
    struct Refused: Error, Equatable { let name: String }
    private var seen = 0

    override func createDestinationInstances(forSource person: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        seen += 1
        if seen == 2 { throw Refused(name: person.value(forKey: "name") as? String ?? "") }
        try super.createDestinationInstances(forSource: person, in: mapping, manager: manager)
    }
}

/// Cancels through the manager once the relationships are made.
final class CancellingPolicy: AddressPolicy {
    override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        manager.cancelMigrationWithError(FailingAddressPolicy.Refused(name: "cancelled"))
    }
}

/// Answers `FUNCTION($entityPolicy, "shout:", text)` and records the stages it went through.
final class ShoutPolicy: EntityMigrationPolicy {
    override func function(named selector: String, arguments: [Any?]) throws -> Any? {
        guard selector == "shout:" else { return try super.function(named: selector, arguments: arguments) }
        return (arguments.first as? String).map { $0.uppercased() + "!" }
    }

    override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        // Every note has its author again by now: the relationship stage ran for all mappings.
        let notes = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil)
        guard notes.allSatisfy({ $0.value(forKey: "author") != nil }) else {
            throw FailingAddressPolicy.Refused(name: "a note lost its author")
        }
    }
}
