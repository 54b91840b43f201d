import Foundation
import Testing
@testable import LimelightData

/// A date compared with a string (`starts > '2020-01-01'`): Core Data's fetch refuses it whatever
/// the operator, as it reads the string as a date and fails, and apps meet that as an exception.
/// A fetch refuses it here with an error naming the key path and both kinds, and evaluation in
/// memory refuses it too, where it used to answer `==` as never and refuse only orderings.
@Suite struct DateStringComparisonTests {
    static let day = Date(timeIntervalSinceReferenceDate: 600_000_000)

    final class Fixture {
        let folder: TemporaryFolder
        let context: ManagedObjectContext
        let events: [ManagedObject]

        init() throws {
            folder = try TemporaryFolder()
            let model = ManagedObjectModel(entities: [
                EntityDescription(name: "Event", properties: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "starts", type: .date),
                    RelationshipDescription(name: "calendar", destination: "Calendar", inverse: "events"),
                ]),
                EntityDescription(name: "Calendar", properties: [
                    AttributeDescription(name: "name", type: .string),
                    RelationshipDescription(name: "events", destination: "Event", inverse: "calendar", toMany: true),
                ]),
            ])
            context = try TestStack.context(model: model, at: folder.file("events.sqlite"))
            let calendar = try context.insertNewObject(forEntityName: "Calendar")
            calendar.setValue("work", forKey: "name")
            for (title, offset) in [("standup", 0.0), ("review", 86_400), ("someday", nil)] as [(String, Double?)] {
                let event = try context.insertNewObject(forEntityName: "Event")
                event.setValue(title, forKey: "title")
                event.setValue(offset.map { DateStringComparisonTests.day.addingTimeInterval($0) }, forKey: "starts")
                event.setValue(calendar, forKey: "calendar")
            }
            try context.save()
            context.reset()
            events = try context.fetch(FetchRequest<ManagedObject>(entityName: "Event"))
        }

        func refusedByBoth(_ entity: String, _ format: String, _ arguments: [Any?] = [], naming parts: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            for (what, attempt) in [("fetch", { _ = try self.context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)) }),
                                    ("count", { _ = try self.context.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)) }),
                                    ("memory", { _ = try all.filter { try predicate.evaluate(with: $0) } })] as [(String, () throws -> Void)] {
                do {
                    try attempt()
                    Issue.record("\(what) answered \(format)", sourceLocation: sourceLocation)
                } catch {
                    for part in parts { #expect("\(error)".contains(part), "\(what): \(part) not in \(error)", sourceLocation: sourceLocation) }
                }
            }
        }

        func titles(_ format: String, _ arguments: [Any?] = []) throws -> [String] {
            let predicate = try QueryPredicate(format: format, argumentArray: arguments)
            let fromSQL = try context.fetch(FetchRequest<ManagedObject>(entityName: "Event", predicate: predicate))
            let inMemory = try events.filter { try predicate.evaluate(with: $0) }
            let names = { (objects: [ManagedObject]) in objects.compactMap { $0.value(forKey: "title") as? String }.sorted() }
            #expect(names(fromSQL) == names(inMemory), "\(format)")
            return names(inMemory)
        }
    }

    @Test(arguments: ["starts == '2020-01-01'", "starts != '2020-01-01'", "starts > '2020-01-01'", "'2020-01-01' <= starts",
                      "starts IN {'2020-01-01', '2020-01-02'}", "starts BETWEEN {'2020-01-01', '2020-12-31'}",
                      "calendar.events.@max.starts < '2020-01-01'"])
    func aDateAgainstAStringConstantIsRefusedByBoth(_ format: String) throws {
        let fixture = try Fixture()
        try fixture.refusedByBoth("Event", format, naming: ["type mismatch", "a date", "a string", "2020-01-01"])
    }

    @Test func theMessageNamesTheKeyPath() throws {
        let fixture = try Fixture()
        try fixture.refusedByBoth("Event", "starts == %@", ["2020-01-01"], naming: ["starts", "a date compares only with a date"])
        try fixture.refusedByBoth("Calendar", "ANY events.starts > %@", ["2020-01-01"], naming: ["starts", "a date compares only with a date"])
        try fixture.refusedByBoth("Event", "starts == title", naming: ["starts", "title", "a date compares only with a date"])
    }

    @Test func datesGivenAsDatesStillCompare() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles("starts > %@", [Self.day]) == ["review"])
        #expect(try fixture.titles("starts == CAST(600000000, 'NSDate')") == ["standup"])
        #expect(try fixture.titles("starts == nil") == ["someday"])
        // Values of other different kinds stay simply unequal, as isEqual: says.
        #expect(try fixture.titles("title == 5").isEmpty)
    }
}
