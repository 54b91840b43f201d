import Foundation
import Testing
@testable import LimelightData

/// Every SQL-translatable predicate returns exactly what in-memory evaluation returns, on a
/// generated data set with accents, mixed case, nils and to-many relationships.
@Suite struct PredicateSQLDifferentialTests {
    static func model() -> ManagedObjectModel {
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
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true),
        ])
        return ManagedObjectModel(entities: [item, owner, tag])
    }

    static let predicates = [
        "score > 50", "score <= 10", "score == 7", "score != 7", "score BETWEEN {10, 20}", "score IN {1, 2, 3, 99}",
        "price < 9.5", "price >= 50.25", "flag == YES", "flag == NO", "name == nil", "name != nil",
        "name == 'Crème brûlée'", "name ==[c] 'crème BRÛLÉE'", "name ==[cd] 'creme brulee'", "name ==[d] 'Creme brulee'",
        "name BEGINSWITH 'Cr'", "name BEGINSWITH[c] 'cr'", "name BEGINSWITH[cd] 'ÉC'", "name ENDSWITH 'e'",
        "name ENDSWITH[cd] 'EE'", "name CONTAINS 'è'", "name CONTAINS[cd] 'E'", "name CONTAINS[c] 'ÉCLAIR'",
        "name LIKE 'C*'", "name LIKE[c] '*a?r*'", "name LIKE '*[*'", "name MATCHES '[A-Z].*'", "name MATCHES[c] 'é.*'",
        "'brûlée' IN name", "name IN {'Tarte', 'Éclair'}", "name IN[c] {'tarte', 'éclair'}",
        "score > 10 AND price < 20", "score > 90 OR flag == YES", "NOT (score > 50)", "NOT name BEGINSWITH 'C'",
        "owner == nil", "owner != nil", "owner.name == 'Ann'", "owner.name BEGINSWITH[cd] 'a'", "owner.name != 'Ann'",
        "ANY tags.name == 'red'", "ANY tags.name ==[c] 'RED'", "NONE tags.name == 'red'", "ALL tags.name != 'blue'",
        "ALL tags.name BEGINSWITH 'r'", "tags.@count == 0", "tags.@count >= 2", "SUBQUERY(tags, $t, $t.name == 'red' OR $t.name == 'green').@count == 2",
        "score + 10 > 60", "score * 2 == 20", "score - price > 0", "score / 4 > 10", "abs(score - 50) < 5",
        "uppercase(name) == 'TARTE'", "lowercase(name) BEGINSWITH 'cr'", "length(name) > 6", "bitwiseAnd:with:(score, 1) == 1",
        "modulus:by:(score, 10) == 3", "created > CAST(1000000, 'NSDate')", "created < CAST(500000, 'NSDate')",
        "TRUEPREDICATE", "FALSEPREDICATE", "TERNARY(flag == YES, score, 0) > 40", "owner.items.@count > 5",
        "score > 10 AND (name CONTAINS[cd] 'e' OR ANY tags.name == 'blue')",
    ]

    @Test func sqlAndMemoryAgree() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("diff.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        var generator = SeededGenerator(seed: 42)
        let names: [String?] = ["Crème brûlée", "crème BRÛLÉE", "Creme brulee", "Éclair", "eclair", "Tarte", "TARTE", "Café au lait",
                                "naïve *[x]", "Über", nil, "", "Crêpe", "a?r*"]
        let owners = try ["Ann", "Åsa", "bob", "Ánn"].map { name -> ManagedObject in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner.setValue(name, forKey: "name")
            return owner
        }
        let tags = try ["red", "green", "blue", "RED"].map { name -> ManagedObject in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            return tag
        }
        for _ in 0..<2000 {
            let item = try context.insertNewObject(forEntityName: "Item")
            item.setValue(names[Int.random(in: 0..<names.count, using: &generator)], forKey: "name")
            if Int.random(in: 0..<10, using: &generator) > 0 { item.setValue(Int32.random(in: 0...100, using: &generator), forKey: "score") }
            item.setValue(Double(Int.random(in: 0...10000, using: &generator)) / 100, forKey: "price")
            item.setValue(Date(timeIntervalSinceReferenceDate: Double.random(in: 0...2_000_000, using: &generator)), forKey: "created")
            item.setValue(Bool.random(using: &generator), forKey: "flag")
            if Int.random(in: 0..<5, using: &generator) > 0 { item.setValue(owners.randomElement(using: &generator), forKey: "owner") }
            let tagSet = Set(tags.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 })
            item.setValue(tagSet, forKey: "tags")
        }
        try context.save()
        context.reset()
        let all = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(all.count == 2000)
        for format in Self.predicates {
            let predicate = try QueryPredicate(format: format)
            let request = FetchRequest(entityName: "Item", predicate: predicate)
            let fromSQL = Set(try context.fetch(request).map(\.objectID))
            let inMemory = Set(try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            let same = fromSQL == inMemory
            #expect(same, "\(format): SQL \(fromSQL.count), memory \(inMemory.count)")
            let counted = try context.count(for: request)
            #expect(counted == inMemory.count, "\(format): count \(counted)")
        }
    }

    @Test func whatSQLCannotSayIsAnErrorNamingThePart() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("x.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        for format in ["sqrt(score) > 2", "FUNCTION(SELF, 'foo') == 1", "tags[FIRST].name == 'x'", "median({1, 2}) == score"] {
            let request = FetchRequest(entityName: "Item", predicate: try QueryPredicate(format: format))
            #expect(throws: PersistenceError.self, "\(format)") { try context.fetch(request) }
        }
        let unknown = FetchRequest(entityName: "Item", predicate: try QueryPredicate(format: "colour == 'red'"))
        #expect { try context.fetch(unknown) } throws: { "\($0)".contains("Item has no property 'colour'") }
    }
}

/// A small deterministic generator so the data set is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
