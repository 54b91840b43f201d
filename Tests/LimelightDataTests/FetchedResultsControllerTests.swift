import Foundation
import Testing
@testable import LimelightData

/// A fetched results controller over a real store: its sections, and the changes it reports as
/// its context changes, saves and merges.
@Suite struct FetchedResultsControllerTests {
    /// Every delegate call, as text.
    final class Recorder: FetchedResultsControllerDelegate {
        var calls: [String] = []
        func controllerWillChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>) { calls.append("will") }
        func controllerDidChangeContent<ResultType>(_ controller: FetchedResultsController<ResultType>) { calls.append("did") }
        // Spelled as delegates written for Core Data spell it (`sectionInfo: NSFetchedResultsSectionInfo`).
        func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange sectionInfo: FetchedResultsSectionInfo,
                        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
            calls.append("section \(Self.word(type)) \(sectionInfo.name) \(sectionIndex)")
        }
        func controller<ResultType>(_ controller: FetchedResultsController<ResultType>, didChange anObject: Any, at indexPath: IndexPath?,
                        for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
            let name = (anObject as? ManagedObject)?.value(forKey: "firstName") as? String ?? "?"
            let paths = [indexPath, newIndexPath].map { $0.map { "\($0.section).\($0.item)" } ?? "-" }.joined(separator: "→")
            calls.append("\(Self.word(type)) \(name) \(paths)")
        }
        static func word(_ type: FetchedResultsChangeType) -> String {
            switch type {
            case .insert: return "insert"
            case .delete: return "delete"
            case .move: return "move"
            case .update: return "update"
            }
        }
    }

    /// Lovelace: Ada, Byron; Hopper: Grace. Sorted by last name, then first name.
    static func people(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        var people: [String: ManagedObject] = [:]
        for (first, last) in [("Ada", "Lovelace"), ("Byron", "Lovelace"), ("Grace", "Hopper")] {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(first, forKey: "firstName")
            person.setValue(last, forKey: "lastName")
            people[first] = person
        }
        try context.save()
        return people
    }

    static func controller(_ context: ManagedObjectContext, predicate: String? = nil) throws -> FetchedResultsController<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Person", predicate: try predicate.map { try QueryPredicate(format: $0) },
                                   sortDescriptors: [QuerySortDescriptor(key: "lastName"), QuerySortDescriptor(key: "firstName")])
        return FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "lastName")
    }

    static func layout(_ controller: FetchedResultsController<ManagedObject>) -> [String] {
        (controller.sections ?? []).map { section in
            section.name + ": " + section.objects.compactMap { $0.value(forKey: "firstName") as? String }.joined(separator: ", ")
        }
    }

    @Test func sectionsFollowTheSectionKeyPath() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("people.sqlite"))
        try context.performAndWait {
            let people = try Self.people(context)
            let controller = try Self.controller(context)
            #expect(controller.fetchedObjects == nil)
            try controller.performFetch()
            #expect(Self.layout(controller) == ["Hopper: Grace", "Lovelace: Ada, Byron"])
            #expect(controller.sectionIndexTitles == ["H", "L"])
            #expect(controller.section(forSectionIndexTitle: "L", at: 0) == 1)
            let byron = try #require(people["Byron"])
            #expect(controller.indexPath(forObject: byron) == IndexPath(item: 1, section: 1))
            #expect(controller.object(at: IndexPath(item: 1, section: 1)) === byron)
            #expect(controller.objectIfPresent(at: IndexPath(item: 2, section: 1)) == nil)
        }
    }

    @Test func changesAreReportedAsCoreDataReportsThem() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("people.sqlite"))
        try context.performAndWait {
            let people = try Self.people(context)
            let controller = try Self.controller(context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()

            // A new object in an existing section.
            let alan = try context.insertNewObject(forEntityName: "Person")
            alan.setValue("Alan", forKey: "firstName")
            alan.setValue("Hopper", forKey: "lastName")
            context.processPendingChanges()
            #expect(recorder.calls == ["will", "insert Alan -→0.0", "did"])
            #expect(Self.layout(controller) == ["Hopper: Alan, Grace", "Lovelace: Ada, Byron"])

            // A change to the sort key moves it; a change elsewhere updates it in place.
            recorder.calls = []
            try #require(people["Ada"]).setValue("Zelda", forKey: "firstName")
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(people["Byron"], forKey: "photographer")
            context.processPendingChanges()
            #expect(recorder.calls == ["will", "move Zelda 1.0→1.1", "update Byron 1.1→1.0", "did"])

            // Into a section of its own: the section comes; leaving one empties and removes it.
            recorder.calls = []
            try #require(people["Grace"]).setValue("Murray", forKey: "lastName")
            alan.setValue("Turing", forKey: "lastName")
            context.processPendingChanges()
            #expect(Self.layout(controller) == ["Lovelace: Byron, Zelda", "Murray: Grace", "Turing: Alan"])
            #expect(recorder.calls == ["will", "section delete Hopper 0", "section insert Murray 1", "section insert Turing 2",
                                       "move Grace 0.1→1.0", "move Alan 0.0→2.0", "did"])

            // Deleted, and saved: a save reports nothing more for objects already reported.
            recorder.calls = []
            context.delete(try #require(people["Byron"]))
            try context.save()
            #expect(recorder.calls == ["will", "delete Byron 0.0→-", "did"])
            #expect(Self.layout(controller) == ["Lovelace: Zelda", "Murray: Grace", "Turing: Alan"])
        }
    }

    @Test func theFewestMovesPutTheRestInOrder() {
        #expect(FetchedResultsDiff.outOfOrder([0, 1, 2, 3]).isEmpty)
        #expect(FetchedResultsDiff.outOfOrder([3, 0, 1, 2]) == [0])
        #expect(FetchedResultsDiff.outOfOrder([1, 2, 3, 0]) == [3])
        #expect(FetchedResultsDiff.outOfOrder([0, 3, 2, 1]).count == 2)
        #expect(FetchedResultsDiff.outOfOrder([4, 3, 2, 1, 0]).count == 4)
    }

    @Test func thePredicateDecidesWhoJoinsAndWhoLeaves() throws {
        let folder = try TemporaryFolder()
        let context = try PhotoModel.stack(at: folder.file("people.sqlite"))
        try context.performAndWait {
            let people = try Self.people(context)
            let controller = try Self.controller(context, predicate: "lastName == 'Lovelace'")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.layout(controller) == ["Lovelace: Ada, Byron"])
            try #require(people["Grace"]).setValue("Lovelace", forKey: "lastName")
            try #require(people["Ada"]).setValue("Byron", forKey: "lastName")
            context.processPendingChanges()
            #expect(Self.layout(controller) == ["Lovelace: Byron, Grace"])
            #expect(recorder.calls == ["will", "delete Ada 0.0→-", "insert Grace -→0.1", "did"])
        }
    }

    @Test func anotherContextsSaveArrivesThroughTheMerge() throws {
        let folder = try TemporaryFolder()
        let viewer = try PhotoModel.stack(at: folder.file("people.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = viewer.persistentStoreCoordinator
        viewer.automaticallyMergesChangesFromParent = true
        let recorder = Recorder()
        let controller = try viewer.performAndWait { () throws -> FetchedResultsController in
            _ = try Self.people(viewer)
            let controller = try Self.controller(viewer)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try writer.performAndWait {
            let hedy = try writer.insertNewObject(forEntityName: "Person")
            hedy.setValue("Hedy", forKey: "firstName")
            hedy.setValue("Lamarr", forKey: "lastName")
            try writer.save()
        }
        viewer.performAndWait {
            #expect(Self.layout(controller) == ["Hopper: Grace", "Lamarr: Hedy", "Lovelace: Ada, Byron"])
            #expect(recorder.calls == ["will", "section insert Lamarr 1", "insert Hedy -→1.0", "did"])
        }
    }
}
