import Foundation
import Testing
@testable import LimelightData

/// Constructs applications' predicates use that go beyond comparisons of attributes: quoted keys,
/// a string's length, lists under ANY/ALL/NONE, the least and greatest of dates and strings, and
/// key-value coding through FUNCTION. Fetches must select what evaluation in memory selects.
@Suite struct AppPredicateConstructsTests {
    /// Notes with an owner and tags.
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note", properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "identifier", type: .uuid),
            RelationshipDescription(name: "owner", destination: "Person", inverse: "notes"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true),
        ])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "owner", toMany: true),
        ])
        let tag = EntityDescription(name: "Tag", properties: [
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "created", type: .date),
            AttributeDescription(name: "rank", type: .integer16),
            RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
        ])
        return ManagedObjectModel(entities: [note, person, tag])
    }

    static let day = Date(timeIntervalSinceReferenceDate: 740_000_000)

    /// A saved store: five notes, two owners, three tags ranked 1, 2 and 3, made on days 0, 1 and 2.
    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let notes: [ManagedObject]
        let tags: [String: ManagedObject]

        init() throws {
            folder = try TemporaryFolder()
            context = try TestStack.context(model: AppPredicateConstructsTests.model(), at: folder.file("notes.sqlite"))
            var people: [String: ManagedObject] = [:]
            for name in ["Ann", "Bob"] {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(name, forKey: "name")
                people[name] = person
            }
            var tags: [String: ManagedObject] = [:]
            for (offset, label) in ["red", "green", "blue"].enumerated() {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue(label, forKey: "label")
                tag.setValue(Int16(offset + 1), forKey: "rank")
                tag.setValue(AppPredicateConstructsTests.day.addingTimeInterval(Double(offset) * 86_400), forKey: "created")
                tags[label] = tag
            }
            let contents: [(String?, String?, [String])] = [
                ("Pie", "Ann", ["red", "green"]),
                ("Éclair", "Ann", ["red"]),
                ("", "Bob", ["green", "blue"]),
                (nil, "Bob", []),
                ("Tarte", nil, ["red", "green", "blue"]),
            ]
            for (index, (title, owner, labels)) in contents.enumerated() {
                let note = try context.insertNewObject(forEntityName: "Note")
                note.setValue(title, forKey: "title")
                note.setValue(AppPredicateConstructsTests.day.addingTimeInterval(Double(index) * 3_600), forKey: "created")
                note.setValue(UUID(uuidString: "\(index)0000000-0000-0000-0000-00000000000\(index)"), forKey: "identifier")
                note.setValue(owner.flatMap { people[$0] }, forKey: "owner")
                note.setValue(Set(labels.compactMap { tags[$0] }), forKey: "tags")
            }
            try context.save()
            context.reset()
            notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            self.tags = Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map {
                ($0.value(forKey: "label") as? String ?? "", $0)
            })
        }

        /// The titles of the notes the predicate selects (nil as "-"), the same from SQL and in memory.
        func titles(_ format: String, _ arguments: [Any?] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let fromSQL = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: predicate))
            let inMemory = try notes.filter { try predicate.evaluate(with: $0) }
            func titles(_ notes: [ManagedObject]) -> [String] { notes.map { $0.value(forKey: "title") as? String ?? "-" }.sorted() }
            #expect(titles(fromSQL) == titles(inMemory), "\(format)", sourceLocation: sourceLocation)
            return titles(inMemory)
        }
    }

    @Test func aQuotedKeyAfterADotIsThatKey() throws {
        let fixture = try Fixture()
        let quoted = try QueryPredicate(format: "owner.'name' == 'Ann'")
        #expect(quoted == (try QueryPredicate(format: "owner.name == 'Ann'")))
        #expect(try fixture.titles("owner.'name' == 'Ann'") == ["Pie", "Éclair"])
        #expect(try fixture.titles("ANY self.tags.'label' BEGINSWITH %@", ["b"]) == ["", "Tarte"])
        // Keys that are no names print quoted, and read back.
        let odd = try QueryPredicate(format: "details.'first name' == 'Ann' AND details.'size' > 2")
        #expect(try QueryPredicate(format: odd.predicateFormat) == odd)
        #expect(try odd.evaluate(with: ["details": ["first name": "Ann", "size": 3]]))
        #expect { try QueryPredicate(format: "owner.'' == 1") } throws: { "\($0)".contains("a key name at offset 6") }
    }

    @Test func aStringsLengthIsItsNumberOfCharacters() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles("title == nil OR title.length == 0") == ["", "-"])
        #expect(try fixture.titles("title.length > 3") == ["Tarte", "Éclair"])
        #expect(try fixture.titles("%K.length == %d", ["title", 6]) == ["Éclair"])
        #expect(try QueryPredicate(format: "name.length == 4").evaluate(with: ["name": "Zoë!"]))
    }

    @Test func aListUnderAnyAllOrNoneRangesOverItsElements() throws {
        let fixture = try Fixture()
        let redAndGreen = ["red", "green"].compactMap { fixture.tags[$0] }
        #expect(try fixture.titles("ALL %@ IN tags", [redAndGreen]) == ["Pie", "Tarte"])
        #expect(try fixture.titles("ANY %@ IN tags", [redAndGreen]) == ["", "Pie", "Tarte", "Éclair"])
        #expect(try fixture.titles("NONE %@ IN tags", [redAndGreen]) == ["-"])
        #expect(try fixture.titles("ALL %@ IN tags.label", [["green", "blue"]]) == ["", "Tarte"])
        // Over no elements, ALL holds and ANY does not.
        #expect(try fixture.titles("ALL %@ IN tags", [[ManagedObject]()]).count == 5)
        #expect(try fixture.titles("ANY %@ IN tags", [[ManagedObject]()]).isEmpty)
        #expect(try fixture.titles("ALL {'Pie', 'Tarte'} != title") == ["", "-", "Éclair"])
    }

    @Test func uuidsOrderByTheirBytes() throws {
        let fixture = try Fixture()
        let third = try #require(UUID(uuidString: "20000000-0000-0000-0000-000000000002"))
        #expect(try fixture.titles("identifier < %@", [third]) == ["Pie", "Éclair"])
        #expect(try fixture.titles("identifier >= %@", [third]) == ["", "-", "Tarte"])
        #expect(try fixture.titles("identifier BETWEEN %@", [[third, UUID(uuidString: "30000000-0000-0000-0000-000000000003")]]) == ["", "-"])
    }

    @Test func substringsAndFoundationURLsAreTheirValues() throws {
        let fixture = try Fixture()
        let line = "Pie, Tarte"
        let first = try #require(line.split(separator: ",").first)
        #expect(try fixture.titles("title == %@", [first]) == ["Pie"])
        #expect(try fixture.titles("title IN %@", [line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }]) == ["Pie", "Tarte"])
        let link = try #require(NSURL(string: "https://example.com/pie"))
        #expect(try QueryPredicate(format: "link == %@", link).evaluate(with: ["link": URL(string: "https://example.com/pie")]))
    }

    @Test func inLooksThroughADictionarysValues() throws {
        let fixture = try Fixture()
        let byNickname = ["sweet": "Pie", "french": "Tarte"]
        #expect(try fixture.titles("title IN %@", [byNickname]) == ["Pie", "Tarte"])
        #expect(try fixture.titles("NOT (title IN %@)", [byNickname]) == ["", "-", "Éclair"])
        #expect(try fixture.titles("ANY tags.label IN %@", [["warm": "red"]]) == ["Pie", "Tarte", "Éclair"])
    }

    @Test func theLeastAndGreatestOfDatesAndStrings() throws {
        let fixture = try Fixture()
        let secondDay = Self.day.addingTimeInterval(86_400)
        #expect(try fixture.titles("max:(tags.created) > %@", [secondDay]) == ["", "Tarte"])
        #expect(try fixture.titles("min:(tags.created) == %@", [Self.day]) == ["Pie", "Tarte", "Éclair"])
        #expect(try fixture.titles("min:(tags.label) == 'blue'") == ["", "Tarte"])
        #expect(try fixture.titles("max:(tags.label) == tags.@max.label AND max:(tags.label) == 'red'") == ["Pie", "Tarte", "Éclair"])
        let latest = try QueryExpression(format: "max:(%@)", [Self.day, secondDay, Self.day.addingTimeInterval(-1)])
        #expect(try latest.expressionValue(with: nil) as? Date == secondDay)
        #expect(try QueryExpression(format: "min:({'pear', 'apple', 'fig'})").expressionValue(with: nil) as? String == "apple")
        #expect(try QueryExpression(format: "max:({1, 7, 3})").expressionValue(with: nil) as? Double == 7)
        #expect { try QueryExpression(format: "max:({'pear', 2})").expressionValue(with: nil) } throws: {
            "\($0)".contains("max: cannot order")
        }
    }

    @Test func aggregatesOfWhatASubqueryKeeps() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles("SUBQUERY(tags, $t, $t.rank > 1).@sum.rank >= 5") == ["", "Tarte"])
        #expect(try fixture.titles("SUBQUERY(tags, $t, $t.rank < 3).@max.created == %@", [Self.day.addingTimeInterval(86_400)]) == ["", "Pie", "Tarte"])
        #expect(try fixture.titles("SUBQUERY(tags, $t, $t.rank > 5).@avg.rank == nil").count == 5)
        #expect(try fixture.titles("SUBQUERY(tags, $t, $t.label != 'red').@min.label == 'blue'") == ["", "Tarte"])
        let median = try QueryPredicate(format: "SUBQUERY(tags, $t, $t.rank > 1).@median.rank > 1")
        #expect { try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: median)) } throws: {
            "\($0)".contains("@median.rank after a SUBQUERY")
        }
    }

    @Test func betweenFoldsCaseAndDiacriticsAsTheOtherComparisonsDo() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles("title BETWEEN {'a', 'q'}").isEmpty)
        #expect(try fixture.titles("title BETWEEN[c] {'a', 'q'}") == ["Pie"])
        #expect(try fixture.titles("title BETWEEN[cd] {'A', 'Q'}") == ["Pie", "Éclair"])
    }

    @Test func functionAnswersKeyValueCoding() throws {
        let fixture = try Fixture()
        let byKey = try QueryPredicate(format: "FUNCTION(SELF, 'valueForKey:', 'title') == 'Pie'")
        #expect(try fixture.notes.filter { try byKey.evaluate(with: $0) }.count == 1)
        let byPath = try QueryPredicate(format: "FUNCTION(SELF, 'valueForKeyPath:', 'owner.name') == %@", "Bob")
        #expect(try fixture.notes.filter { try byPath.evaluate(with: $0) }.count == 2)
        let icons = ["trailhead": "hiker", "campsite": "tent"]
        let icon = try QueryExpression(format: "FUNCTION(%@, 'valueForKeyPath:', kind)", icons)
        #expect(try icon.expressionValue(with: ["kind": "campsite"]) as? String == "tent")
        let missing = try QueryPredicate(format: "FUNCTION(SELF, 'valueForKey:', %@) == 1", NSNull())
        #expect { try missing.evaluate(with: ["kind": 1]) } throws: { "\($0)".contains("needs a key string, got nil") }
        // Other methods do not exist here; SQL says it cannot call any.
        #expect { try QueryPredicate(format: "FUNCTION(title, 'uppercaseString') == 'PIE'").evaluate(with: fixture.notes[0]) } throws: {
            "\($0)".contains("'uppercaseString'")
        }
        #expect { try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: byKey)) } throws: {
            "\($0)".contains("FUNCTION")
        }
    }

    @Test func commonMistakesSayHowToWriteThem() throws {
        let fixture = try Fixture()
        #expect { try QueryPredicate(format: "created BETWEEN %@ AND %@", Self.day, Self.day) } throws: {
            "\($0)".contains("write BETWEEN {low, high}") && "\($0)".contains("offset 16")
        }
        #expect(try fixture.titles("created BETWEEN {%@, %@}", [Self.day, Self.day.addingTimeInterval(3_600)]) == ["Pie", "Éclair"])
        // A Boolean attribute alone is no predicate, in Apple's parser too.
        #expect { try QueryPredicate(format: "%K AND title != nil", "isDone") } throws: {
            "\($0)".contains("a Boolean key is compared too, as in isDone == YES at offset 3")
        }
        // Written first, as Apple's guide writes @sum.items.price, an operator applies to the to-many after it.
        #expect(try fixture.titles("@max.tags.created > %@", [Self.day]) == (try fixture.titles("tags.@max.created > %@", [Self.day])))
        let leading = try QueryPredicate(format: "@max.title > %@", "A")
        #expect { try fixture.context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: leading)) } throws: {
            "\($0)".contains("follows a to-many relationship") && "\($0)".contains("in the predicate @max.title > \"A\"")
        }
    }
}
