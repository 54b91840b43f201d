import Foundation
import Testing
@testable import LimelightData

/// Walking 100,000 rows without holding them all: pages by offset and limit, and batches that a
/// `FetchedResults` faults in as it is walked.
@Suite(.serialized) struct BatchedFetchTests {
    static let rowCount = 100_000

    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "position", type: .integer64),
            AttributeDescription(name: "label", type: .string),
        ])])
    }

    /// A store with `rowCount` items, position 0 ..< rowCount, inserted in random order so that the
    /// primary keys do not give the order; and a fresh context over it.
    static func store(in folder: TemporaryFolder) throws -> ManagedObjectContext {
        let url = folder.file("items.sqlite")
        let model = model()
        do {
            let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let writer = ManagedObjectContext(concurrencyType: .privateQueue)
            writer.persistentStoreCoordinator = coordinator
            writer.undoManager = nil
            var generator = SystemRandomNumberGenerator()
            for chunk in stride(from: 0, to: rowCount, by: 10_000) {
                for position in Array(chunk..<chunk + 10_000).shuffled(using: &generator) {
                    let item = try writer.insertNewObject(forEntityName: "Item")
                    item.setValue(Int64(position), forKey: "position")
                    item.setValue("item \(position)", forKey: "label")
                }
                try writer.save()
            }
        }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    static func loadedObjects(_ context: ManagedObjectContext) -> Int {
        context.registeredObjects.filter { !$0.isFault }.count
    }

    @Test func pagesWithOffsetAndLimitWalkEveryRowOnce() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(in: folder)
        let log = try StatementLog(context)
        let page = 1_000
        var next: Int64 = 0
        var offset = 0
        var largestHeld = 0
        while true {
            let request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [QuerySortDescriptor(key: "position")])
            request.fetchOffset = offset
            request.fetchLimit = page
            let objects = try context.fetch(request)
            if objects.isEmpty { break }
            for object in objects {
                #expect(object.value(forKey: "position") as? Int64 == next)
                next += 1
            }
            largestHeld = max(largestHeld, context.registeredObjects.count)
            offset += objects.count
        }
        #expect(next == Int64(Self.rowCount))
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        #expect((store.connection?.cachedStatementCount ?? .max) < 10)
        // Objects of finished pages went away with the pages: never more than a page was held.
        #expect(largestHeld <= page)
        let pageQueries = log.statements.filter { $0.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT") && $0.hasSuffix("LIMIT ? OFFSET ?") }
        #expect(pageQueries.count == Self.rowCount / page + 1)
    }

    @Test func fetchBatchSizeLoadsOneBatchPerQueryAsTheResultIsWalked() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(in: folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [QuerySortDescriptor(key: "position")])
        request.fetchBatchSize = 500
        let results = try context.fetchBatched(request)
        #expect(results.count == Self.rowCount)
        #expect(log.statements.count == 1)
        #expect(log.statements.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM ZITEM") == true)
        #expect(context.registeredObjects.isEmpty)

        var next: Int64 = 0
        var largestLoaded = 0
        for (index, item) in results.enumerated() {
            #expect(item.value(forKey: "position") as? Int64 == next)
            next += 1
            if index % request.fetchBatchSize == request.fetchBatchSize - 1 {
                largestLoaded = max(largestLoaded, Self.loadedObjects(context))
            }
        }
        #expect(next == Int64(Self.rowCount))
        #expect(largestLoaded <= request.fetchBatchSize)
        // Batch statements inline their keys and are not kept: the statement cache stays small.
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        #expect((store.connection?.cachedStatementCount ?? .max) < 10)
        let batchQueries = log.statements.dropFirst()
        #expect(batchQueries.count == Self.rowCount / request.fetchBatchSize)
        #expect(batchQueries.allSatisfy { $0.contains("WHERE t0.Z_PK IN (") })
    }

    @Test func batchesAreReadOnlyWhereTheWalkGoes() throws {
        let folder = try TemporaryFolder()
        let context = try Self.store(in: folder)
        let log = try StatementLog(context)
        let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try QueryPredicate(format: "position >= %d", 90_000),
                                   sortDescriptors: [QuerySortDescriptor(key: "position", ascending: false)])
        request.fetchBatchSize = 100
        let results = try context.fetchBatched(request)
        #expect(results.count == 10_000)
        #expect(results[0].value(forKey: "position") as? Int64 == Int64(Self.rowCount - 1))
        #expect(results[9_999].value(forKey: "label") as? String == "item 90000")
        #expect(results[150].value(forKey: "position") as? Int64 == Int64(Self.rowCount - 151))
        #expect(log.statements.count == 4)
        #expect(Self.loadedObjects(context) <= request.fetchBatchSize)
    }
}
