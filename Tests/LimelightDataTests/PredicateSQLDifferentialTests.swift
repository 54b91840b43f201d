import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// Every SQL-translatable predicate returns exactly what in-memory evaluation returns, on a
/// generated data set with accents, mixed case, nils and to-many relationships.
@Suite struct PredicateSQLDifferentialTests {
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
        // Unicode: decomposed and precomposed spellings, case mapping beyond ASCII, whole-string regular expressions.
        "name == 'Cre\\u0300me brûlée'", "name ==[c] 'CRÈME BRÛLÉE'", "name BEGINSWITH 'Cre'", "name LIKE 'Cre?me*'",
        "name LIKE[cd] 'creme*'", "length(name) > 11", "length(name) == 0", "uppercase(name) == 'ÉCLAIR'",
        "lowercase(name) ==[d] 'eclair'", "uppercase(name) BEGINSWITH 'CRÈ'", "uppercase(name) == 'STRASSE'",
        "name MATCHES[cd] 'creme.*'", "name MATCHES '.*[*].*'", "name MATCHES '(?i)tarte|éclair'", "name MATCHES[c] 'straße'",
        "name CONTAINS[cd] 'ECLA'", "name == ''", "name != ''", "name < 'C'", "name >=[c] 'e'", "name <[cd] 'd'", "name > 'Ü'",
        "name ENDSWITH 'e\\u0301e'", "name LIKE '*\\\\**'", "name LIKE '?'",
        // Arithmetic, functions computed in SQL, nil and division by zero.
        "score %% 7 == 3", "modulus:by:(score, 0) == nil", "score / 0 == nil", "sqrt(score) > 5", "sqrt(price - 50) > 2",
        "sqrt(price - 50) == nil", "ln(price) < 2", "log(score) >= 1", "exp(score / 50) > 3", "floor(price) == 42",
        "ceiling(price) == 43", "trunc(price / 10) == 4", "price ** 2 > 2500", "2 ** (score / 20) > 8", "abs(price - score) < 3",
        "-score < -50", "score * score > 2500", "score + price BETWEEN {50, 60}", "bitwiseOr:with:(score, 1) == 7",
        "bitwiseXor:with:(score, 5) == 3", "leftshift:by:(score, 2) > 200", "rightshift:by:(score, 3) == 4",
        "onesComplement:(score) < -50", "noindex:(score) == 7", "score + 1 IN {2, 3, nil}", "score IN {1, 2, nil}",
        "name IN {'Tarte', nil}", "NOT (score IN {1, 2})", "NOT name IN {'Tarte'}", "flag != YES", "score == 7.0",
        "price BETWEEN {9.5, 50.25}", "score BETWEEN {price, 60}", "name IN {owner.name, 'x'}", "{1, 2, 3}[SIZE] == 3 AND score > 3", "max({1, 5}) == 5 AND score < 5", "median({1, 2}) < score",
        "TERNARY(score > 50, price, 0 - price) > 0", "TERNARY(name == nil, 'none', name) == 'none'", "SELF == SELF",
        "created > CAST(1000000, 'NSDate') AND created < now()", "CAST(created, 'NSNumber') > 1500000",
        "created BETWEEN {CAST(0, 'NSDate'), CAST(100000, 'NSDate')}",
        // To-many relationships: aggregates, ANY/ALL/NONE with every operator, CONTAINS/IN, SUBQUERY, [SIZE].
        "sum:(tags.weight) > 5", "count:(tags) == 2", "average:(tags.weight) > 2", "min:(tags.rank) == 1", "max:(tags.weight) < 3",
        "tags.@sum.weight > 5", "tags.@avg.rank >= 2", "tags.@min.weight < 1", "tags.@max.rank == 4", "tags[SIZE] == 2",
        "ANY tags.weight > 4", "ALL tags.weight < 5", "NONE tags.rank == 1", "ANY tags.name LIKE 'r*'", "ANY tags.name MATCHES[c] 'r.d'",
        "ANY tags.name BEGINSWITH[cd] 'GR'", "ANY tags.weight BETWEEN {1, 2}", "ALL tags.rank IN {1, 2}", "ANY tags.weight == nil",
        "tags.name CONTAINS 'red'", "tags.name CONTAINS[c] 'RED'", "'blue' IN tags.name", "score IN {1, tags.@count, 3}",
        "SUBQUERY(tags, $t, $t.weight > 2 AND $t.name BEGINSWITH 'r').@count > 0", "SUBQUERY(tags, $t, $t.weight == nil)[SIZE] > 0",
        "SUBQUERY(tags, $t, NOT $t.name ==[c] 'red').@count == tags.@count", "SUBQUERY(tags, $t, $t.rank > 2 AND $t.weight != nil).@count >= 1",
        "ANY tags.name ==[c] owner.name", "owner.name ==[c] 'åsa'", "owner.name LIKE[cd] 'a*'", "owner.name MATCHES '[Åa].*'",
        "tags.@count == 0 OR ALL tags.weight >= 1", "ANY owner.items.score > 99", "owner.items.@count == 0",
        "owner.items.@max.score == 100", "SELF['score'] > 50", "name LIKE[c] owner.name", "owner.name LIKE TERNARY(flag == YES, '*', 'A*')", "NOT (ANY tags.name == 'red' AND ANY tags.name == 'blue')",
    ]

    @Test func sqlAndMemoryAgree() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PredicateFixtureModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("diff.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        var generator = SeededGenerator(seed: 42)
        let names: [String?] = ["Crème brûlée", "crème BRÛLÉE", "Creme brulee", "Éclair", "eclair", "Tarte", "TARTE", "Café au lait",
                                "naïve *[x]", "Über", nil, "", "Crêpe", "a?r*", "Cre\u{300}me brûlée", "CAFE\u{301}E", "Straße", "x",
                                "\\*star", "ÅSA"]
        let owners = try ["Ann", "Åsa", "bob", "Ánn"].map { name -> ManagedObject in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            owner.setValue(name, forKey: "name")
            return owner
        }
        let tags = try ["red", "green", "blue", "RED", "Grün", "réd"].enumerated().map { index, name -> ManagedObject in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
            // Quarters add up exactly, so sums and averages agree to the last bit in both places.
            if index != 2 { tag.setValue(Double(index * 3 % 7) * 0.75 + 0.25, forKey: "weight") }
            tag.setValue(Int16(index % 4 + 1), forKey: "rank")
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
        let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        #expect(all.count == 2000)
        for format in Self.predicates {
            let predicate = try QueryPredicate(format: format)
            let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)
            let fromSQL = Set(try context.fetch(request).map(\.objectID))
            let inMemory = Set(try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            let same = fromSQL == inMemory
            #expect(same, "\(format): SQL \(fromSQL.count), memory \(inMemory.count)")
            let counted = try context.count(for: request)
            #expect(counted == inMemory.count, "\(format): count \(counted)")
        }
        // Object arguments: compared by primary key in SQL, by identity in memory.
        let someTag = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag", predicate: try QueryPredicate(format: "name == 'red'"))).first)
        let someOwner = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner", predicate: try QueryPredicate(format: "name == 'bob'"))).first)
        let firstItems = Array(all.prefix(50))
        let withObjects: [(String, [Any?])] = [
            ("tags CONTAINS %@", [someTag]), ("ANY tags == %@", [someTag]), ("%@ IN tags", [someTag]), ("NONE tags == %@", [someTag]),
            ("owner == %@", [someOwner]), ("owner != %@", [someOwner]), ("owner IN %@", [[someOwner]]), ("SELF IN %@", [firstItems]),
            ("NOT SELF IN %@ AND owner == %@", [firstItems, someOwner]), ("SUBQUERY(tags, $t, $t == %@).@count == 1", [someTag]),
        ]
        for (format, arguments) in withObjects {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let fromSQL = Set(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)).map(\.objectID))
            let inMemory = Set(try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            #expect(fromSQL == inMemory, "\(format): SQL \(fromSQL.count), memory \(inMemory.count)")
        }
    }

    @Test func whatSQLCannotSayIsAnErrorNamingThePart() throws {
        let folder = try TemporaryFolder()
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: PredicateFixtureModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("x.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let unsayable = [
            ("random() > 0.5", "random"), ("FUNCTION(SELF, 'foo') == 1", "FUNCTION"), ("tags[FIRST].name == 'x'", "tags[FIRST]"),
            ("median:(tags.weight) == 1", "median:"), ("tags.name == 'red'", "needs ANY, ALL or NONE"), ("owner.items[FIRST].score == 1", "owner.items[FIRST]"),
            ("tags.@distinctUnionOfObjects.name CONTAINS 'x'", "@distinctUnionOfObjects"),
            ("score BETWEEN price", "BETWEEN needs {low, high}"), ("tags.@count.name == 1", "@count"),
        ]
        for (format, part) in unsayable {
            let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: format))
            #expect(throws: PersistenceError.self, "\(format)") { try context.fetch(request) }
            #expect(throws: PersistenceError.self, "\(format)") { try context.count(for: request) }
            #expect { try context.fetch(request) } throws: { "\($0)".contains(part) }
        }
        let mismatched = [
            ("name < 42", "left operand, a string (the attribute name), with the right operand, a number"),
            ("score BEGINSWITH 'a'", "the left operand of BEGINSWITH is a number (the attribute score)"),
            ("name CONTAINS 3", "the right operand of CONTAINS is a number"), ("created > 5", "a date"),
            ("name + 1 > 2", "the left operand of + is a string"), ("sqrt(name) > 1", "argument 1 of sqrt:"),
            ("owner.name < 3", "a string (the attribute name)"), ("sum:(tags.name) > 1", "the argument of sum:"),
        ]
        for (format, message) in mismatched {
            let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: format))
            #expect { try context.fetch(request) } throws: { "\($0)".contains(message) }
        }
        let unknown = FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: "colour == 'red'"))
        #expect { try context.fetch(unknown) } throws: { "\($0)".contains("Item has no property 'colour'") }
    }
}
