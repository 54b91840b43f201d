import Foundation
import Testing
@testable import LimelightData

/// A class answering a transient key from code by overriding `value(forKey:)`, where a Core Data
/// class declares an `@objc var` for key-value coding: a fetched results controller sections by
/// it, key paths and predicates in memory read it.
final class Shot: ManagedObject {
    @Managed var taken: Date?

    /// The day the shot was taken, "2024-05-01", computed as Core Data apps compute their
    /// section identifiers.
    var day: String? {
        guard let taken else { return nil }
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: taken)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    override func value(forKey key: String) -> Any? {
        key == "day" ? day : super.value(forKey: key)
    }
}

@Suite struct ComputedKeyValueTests {
    static func model() -> ManagedObjectModel {
        let day = AttributeDescription(name: "day", type: .string)
        day.isTransient = true
        let shot = EntityDescription(name: "Shot", properties: [AttributeDescription(name: "taken", type: .date), day])
        shot.managedObjectClassName = "Shot"
        return ManagedObjectModel(entities: [shot])
    }

    @Test func sectionsAndPredicatesReadTheOverride() throws {
        ManagedObjectClassRegistry.shared.register(Shot.self)
        let folder = try TemporaryFolder()
        let context = try TestStack.context(model: Self.model(), at: folder.file("shots.sqlite"))
        let start = Date(timeIntervalSince1970: 1_714_521_600)   // 2024-05-01T00:00:00Z
        for hour in [1, 5, 30, 50, 53] {
            let shot = try #require(try context.insertNewObject(forEntityName: "Shot") as? Shot)
            shot.taken = start.addingTimeInterval(Double(hour) * 3_600)
        }
        try context.save()
        context.reset()
        let request = FetchRequest<Shot>(entityName: "Shot", sortDescriptors: [QuerySortDescriptor(key: "taken")])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "day")
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["2024-05-01", "2024-05-02", "2024-05-03"])
        #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 2])

        let moved = controller.object(at: IndexPath(item: 0, section: 0))
        moved.taken = start.addingTimeInterval(26 * 3_600)
        context.processPendingChanges()
        #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 2])

        #expect(moved.value(forKeyPath: "day") as? String == "2024-05-02")
        let onTheSecond = try QueryPredicate(format: "day == %@", "2024-05-02")
        #expect(try (controller.fetchedObjects ?? []).filter { try onTheSecond.evaluate(with: $0) }.count == 2)
    }
}
