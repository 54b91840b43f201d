import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// Predicate shapes as applications write them (ANY/NONE on single values, key paths through two
/// to-manys, dates cast from text, Foundation objects as arguments), run in memory and in SQL on
/// the same data, which must agree.
@Suite struct RealWorldPredicateTests {
    /// Items with an optional owner; people with children; tags and steps.
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "uid", type: .string),
            AttributeDescription(name: "score", type: .integer32), AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "weeks", type: .integer16),
            RelationshipDescription(name: "owner", destination: "Person", inverse: "items"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "items", toMany: true),
            RelationshipDescription(name: "steps", destination: "Step", inverse: "item", toMany: true),
        ])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "age", type: .integer16),
            RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true),
            RelationshipDescription(name: "children", destination: "Person", inverse: "parent", toMany: true),
            RelationshipDescription(name: "parent", destination: "Person", inverse: "children"),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "items", destination: "Item", inverse: "tags", toMany: true),
        ])
        let step = EntityDescription(name: "Step", properties: [
            AttributeDescription(name: "timer", type: .integer32),
            RelationshipDescription(name: "item", destination: "Item", inverse: "steps"),
        ])
        return ManagedObjectModel(entities: [item, person, tag, step])
    }

    static let start = Date(timeIntervalSinceReferenceDate: 730_000_000)

    /// A saved store with a few hundred items, and those items fetched back.
    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let items: [ManagedObject]

        init() throws {
            let folder = try TemporaryFolder()
            let context = try TestStack.context(model: RealWorldPredicateTests.model(), at: folder.file("real.sqlite"))
            var generator = SeededGenerator(seed: 11)
            let people = try ["Ann", "Bob", "Cid", "Dee", "Eve"].enumerated().map { index, name -> ManagedObject in
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(name, forKey: "name")
                person.setValue(Int16(8 + index * 9), forKey: "age")
                return person
            }
            people[1].setValue(people[0], forKey: "parent")
            people[2].setValue(people[0], forKey: "parent")
            people[4].setValue(people[3], forKey: "parent")
            let tags = try ["red", "green", "blue"].map { label -> ManagedObject in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(label, forKey: "label")
                return tag
            }
            let names: [String?] = ["Tarte", "Cake", "Éclair", nil, "Pie"]
            for index in 0..<240 {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue(names[Int.random(in: 0..<names.count, using: &generator)], forKey: "name")
                if index % 8 != 0 { item.setValue("u\(index % 6)", forKey: "uid") }
                if index % 9 != 0 { item.setValue(Int32.random(in: 0...100, using: &generator), forKey: "score") }
                item.setValue(RealWorldPredicateTests.start.addingTimeInterval(Double(Int.random(in: -90...90, using: &generator)) * 86_400), forKey: "created")
                item.setValue(Int16(index % 5), forKey: "weeks")
                if index % 5 != 0 { item.setValue(people[index % people.count], forKey: "owner") }
                item.setValue(Set(tags.filter { _ in Bool.random(using: &generator) }), forKey: "tags")
                for _ in 0..<Int.random(in: 0...2, using: &generator) {
                    let step = try context.insertNewObject(forEntityName: "Step")
                    step.setValue(Int32([5, 30, 90][Int.random(in: 0..<3, using: &generator)]), forKey: "timer")
                    step.setValue(item, forKey: "item")
                }
            }
            try context.save()
            context.reset()
            self.folder = folder
            self.context = context
            items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        }

        /// The items the predicate selects in SQL and in memory, which must be the same.
        func agree(_ format: String, _ arguments: [Any?] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let fromSQL = Set(try context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)).map(\.objectID))
            let inMemory = Set(try items.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            #expect(fromSQL == inMemory, "\(format): SQL \(fromSQL.count), memory \(inMemory.count)", sourceLocation: sourceLocation)
            return inMemory.count
        }
    }

    @Test func anyAllAndNoneOnASingleValueCompareThatValue() throws {
        let fixture = try Fixture()
        let firstTen = Array(fixture.items.prefix(10))
        #expect(try fixture.agree("NONE SELF IN %@", [firstTen]) == fixture.items.count - 10)
        let anyUID = try fixture.agree("ANY uid IN %@", [["u1", "u2"]])
        #expect(anyUID == (try fixture.agree("uid IN %@", [["u1", "u2"]])))
        #expect(anyUID > 0)
        #expect(try fixture.agree("NONE uid IN %@", [["u1", "u2"]]) == fixture.items.count - anyUID)
        let bobsItems = try fixture.agree("owner.name == %@", ["Bob"])
        #expect(bobsItems > 0)
        #expect(try fixture.agree("ANY owner.name == %@", ["Bob"]) == bobsItems)
        #expect(try fixture.agree("NONE owner.name == %@", ["Bob"]) == fixture.items.count - bobsItems)
        #expect(try fixture.agree("ALL score > 20") == (try fixture.agree("score > 20")))
        #expect(try fixture.agree("SOME uid == 'u3' OR ANY %K IN %@", ["uid", ["u4"]]) > 0)
    }

    @Test func anyAllAndNoneThroughTwoToManysRangeOverEveryElementReached() throws {
        let fixture = try Fixture()
        // Ann's children are Bob and Cid; Dee's is Eve.
        let viaChildren = try fixture.agree("ANY owner.children.items.name == %@", ["Tarte"])
        #expect(viaChildren > 0)
        #expect(try fixture.agree("NONE owner.children.items.name == %@", ["Tarte"]) == fixture.items.count - viaChildren)
        #expect(try fixture.agree("ALL owner.children.items.score >= 0") > 0)
        #expect(try fixture.agree("ANY owner.items.tags.label == 'red'") > 0)
        #expect(try fixture.agree("ALL owner.items.tags.label != 'blue'") >= 0)
        #expect(try fixture.agree("ANY owner.children.items.steps.timer == 90") > 0)
        #expect(try fixture.agree("SUBQUERY(owner.children, $c, ANY $c.items.name == 'Pie').@count > 0") > 0)
    }

    @Test func aToManyBehindANilToOneHasNoElements() throws {
        let fixture = try Fixture()
        let withoutOwner = try fixture.agree("owner == nil")
        #expect(withoutOwner == fixture.items.count / 5)
        // ALL over no elements holds; ANY over no elements does not, not even for nil.
        #expect(try fixture.agree("owner == nil AND ALL owner.items.score > 1000") == withoutOwner)
        #expect(try fixture.agree("owner == nil AND ANY owner.items.name == nil") == 0)
        #expect(try fixture.agree("ALL owner.items.score > 10") >= withoutOwner)
    }

    @Test func datesCastFromTheirDescription() throws {
        let fixture = try Fixture()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        let march = try #require(calendar.date(from: DateComponents(year: 2024, month: 2, day: 20, hour: 6)))
        let predicate = try QueryPredicate(format: "created >= CAST('2024-02-20 08:00:00 +0200', 'NSDate')")
        #expect(predicate == (try QueryPredicate(format: "created >= %@", march)))
        let after = try fixture.agree("created >= CAST('2024-02-20 08:00:00 +0200', 'NSDate')")
        #expect(after == (try fixture.agree("created >= %@", [march])))
        #expect(after > 0 && after < fixture.items.count)
        // Date arithmetic as apps write it: a number of weeks after a date.
        #expect(try fixture.agree("CAST(CAST(created, 'NSNumber') + (weeks * 604800), 'NSDate') < %@", [march]) > 0)
        #expect(try fixture.agree("created > CAST(CAST(now(), 'NSNumber') - 86400 * 365 * 40, 'NSDate')") == fixture.items.count)
        let unreadable = try QueryPredicate(format: "created > CAST('next tuesday', 'NSDate')")
        #expect { try unreadable.evaluate(with: fixture.items[0]) } throws: {
            "\($0)".contains("'YYYY-MM-DD HH:MM:SS ±HHMM', got 'next tuesday'")
        }
    }

    @Test func foundationObjectsAsArguments() throws {
        let fixture = try Fixture()
        let withNull = try QueryPredicate(format: "name == %@", NSNull())
        #expect(withNull == (try QueryPredicate(format: "name == nil")))
        #expect(try fixture.agree("name == %@", [NSNull()]) == (try fixture.agree("name == nil")))
        let one = try QueryPredicate(format: "score == %@", NSNumber(value: 1))
        #expect(one.predicateFormat == "score == 1")
        let listed = try QueryPredicate(format: "score IN %@", NSArray(array: [1, 2, 50]))
        #expect(listed.predicateFormat == "score IN {1, 2, 50}")
        #expect(try fixture.agree("score IN %@", [NSArray(array: [1, 2, 50])]) == (try fixture.agree("score IN {1, 2, 50}")))
        #expect(try QueryPredicate(format: "score == %@", NSNumber(value: 2.5)).predicateFormat == "score == 2.5")
        #expect(try QueryPredicate(format: "flag == %@", NSNumber(value: true)).predicateFormat == "flag == YES")
    }

    @Test func aReservedWordAsAKeySaysHowToEscapeIt() throws {
        for word in ["size", "first", "last", "in"] {
            #expect { try QueryPredicate(format: "\(word) > 5") } throws: {
                "\($0)".contains("\(word) is a reserved word, write #\(word) or %K")
            }
            #expect(try QueryPredicate(format: "#\(word) > 5") == (try QueryPredicate(format: "%K > 5", word)))
        }
    }

    /// Shapes collected from applications' fetch requests, on this model.
    @Test func commonShapesAgree() throws {
        let fixture = try Fixture()
        let day = Self.start
        let shapes: [(String, [Any?])] = [
            ("SUBQUERY(tags, $tag, $tag.label BEGINSWITH 'r').@count > 0", []),
            ("SUBQUERY(tags, $t, $t.label == %@ AND $t.label IN %@).@count > 0", ["red", ["red", "blue"]]),
            ("SUBQUERY(steps, $s, $s.timer == %d).@count > 0", [Int16(30)]),
            ("SUBQUERY(owner.items, $i, $i.score == %d AND $i.weeks > 1).@count > 1", [50]),
            ("ANY tags.label IN %@ AND steps.@count > 0", [["red"]]),
            ("ANY tags.label CONTAINS[cd] %@ OR NONE tags.label == %@", ["RÉ", "blue"]),
            ("NONE tags.label == %@ && NONE tags.label == %@", ["red", "green"]),
            ("%K.@count == 0", ["tags"]), ("NONE %K IN %@", ["tags.label", ["red", "blue"]]),
            ("%K BETWEEN {%ld, %ld}", ["score", 10, 50]), ("%K BETWEEN {%@, %@}", ["created", day, day.addingTimeInterval(86_400 * 30)]),
            ("name LIKE[c] %@ AND\n score >= %lf AND score < %lf AND\n steps.@sum.timer >= %d", ["t*", 10.0, 90.0, 30]),
            ("steps.@avg.timer > 20 OR steps.@max.timer == 90", []), ("owner.children.@count >= 2", []),
            ("name <> %@ AND score =< 50", ["Cake"]), ("score => 80 || !(name BEGINSWITH 'C')", []),
            ("self.name == 'Tarte' AND SELF.score > 10", []), ("owner != nil AND owner.age > 20", []),
            ("owner.parent.name == %@", ["Ann"]), ("ALL owner.items.uid != nil", []),
            ("created >= $START AND created < $END", []),
        ]
        for (format, arguments) in shapes {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
                .withSubstitutionVariables(["START": day, "END": day.addingTimeInterval(86_400 * 20)])
            let fromSQL = Set(try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)).map(\.objectID))
            let inMemory = Set(try fixture.items.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            #expect(fromSQL == inMemory, "\(format): SQL \(fromSQL.count), memory \(inMemory.count)")
            #expect(try QueryPredicate(format: predicate.predicateFormat) == predicate, "\(format) prints as \(predicate.predicateFormat)")
        }
    }
}
