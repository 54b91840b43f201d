import Foundation
import Testing
@testable import LimelightData

/// Cancels the progress registered for its context when it is fetched: what stops an
/// asynchronous fetch in the middle of its first batch.
final class CancellingNote: ManagedObject {
    private static let toCancel = NSLock()
    nonisolated(unsafe) private static var progresses: [ObjectIdentifier: Progress] = [:]

    static func cancel(_ progress: Progress?, whenFetchedIn context: ManagedObjectContext) {
        toCancel.withLock { progresses[ObjectIdentifier(context)] = progress }
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        guard let context = managedObjectContext else { return }
        Self.toCancel.withLock { Self.progresses[ObjectIdentifier(context)] }?.cancel()
    }
}

/// Asynchronous fetches on SQLite stores: the result comes back at once and is filled in on the
/// context's queue; cancelling stops the fetch between batches; errors reach `operationError`.
@Suite struct AsynchronousFetchTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "CancellingNote", properties: [AttributeDescription(name: "title", type: .string)])
        note.managedObjectClassName = "CancellingNote"
        return ManagedObjectModel(entities: [note])
    }

    /// A store of `count` notes titled "note 0000"…, and a new private-queue context on it that
    /// has loaded none of them.
    func context(notes count: Int, in folder: TemporaryFolder) throws -> ManagedObjectContext {
        ManagedObjectClassRegistry.shared.register(CancellingNote.self)
        let url = folder.file("notes.sqlite")
        let model = Self.model()
        let writer = try TestStack.context(model: model, at: url)
        for index in 0..<count {
            try writer.insertNewObject(forEntityName: "CancellingNote").setValue(String(format: "note %04d", index), forKey: "title")
        }
        try writer.save()
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = writer.persistentStoreCoordinator
        return context
    }

    /// Runs `request` on `context` with the context's queue held until the result is returned,
    /// so what `execute` returns is seen before the fetch starts; `prepare` runs then.
    func run(_ fetch: FetchRequest<ManagedObject>, on context: ManagedObjectContext, estimate: Int = 0, within parent: Progress? = nil,
             prepare: (AsynchronousFetchResult<ManagedObject>) -> Void = { _ in }) async throws -> (returned: AsynchronousFetchResult<ManagedObject>, delivered: AsynchronousFetchResult<ManagedObject>) {
        let gate = DispatchSemaphore(value: 0)
        context.queue.async { gate.wait() }
        var returned: AsynchronousFetchResult<ManagedObject>?
        let delivered = await withCheckedContinuation { (continuation: CheckedContinuation<AsynchronousFetchResult<ManagedObject>, Never>) in
            let request = AsynchronousFetchRequest(fetchRequest: fetch) { result in continuation.resume(returning: result) }
            request.estimatedResultCount = estimate
            parent?.becomeCurrent(withPendingUnitCount: 1)
            defer { parent?.resignCurrent() }
            do {
                let result = try context.execute(request)
                returned = result
                prepare(result)
            } catch {
                Issue.record("execute threw \(error)")
            }
            gate.signal()
        }
        return (try #require(returned), delivered)
    }

    @Test func theObjectsArriveInTheContextInOrder() async throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 250, in: folder)
        let fetch = FetchRequest<ManagedObject>(entityName: "CancellingNote", predicate: try QueryPredicate(format: "title >= %@", "note 0050"),
                                 sortDescriptors: [QuerySortDescriptor(key: "title", ascending: false)])
        fetch.fetchBatchSize = 60
        var before: (result: [ManagedObject]?, error: (any Error)?, total: Int64) = (nil, nil, 0)
        let (returned, delivered) = try await run(fetch, on: context, estimate: 180) { result in
            before = (result.finalResult, result.operationError, result.progress.totalUnitCount)
        }
        // Returned at once, empty, with the estimate as its total until the fetch counts.
        #expect(before.result == nil && before.error == nil && before.total == 180)
        #expect(returned === delivered)
        #expect(delivered.operationError == nil)
        #expect(delivered.managedObjectContext === context)
        let objects = try #require(delivered.finalResult)
        #expect(objects.count == 200)
        #expect(delivered.progress.totalUnitCount == 200 && delivered.progress.completedUnitCount == 200)
        context.performAndWait {
            #expect(objects.allSatisfy { $0.managedObjectContext === context && !$0.isFault && $0 is CancellingNote })
            #expect(objects.first?.value(forKey: "title") as? String == "note 0249")
            #expect(objects.last?.value(forKey: "title") as? String == "note 0050")
            #expect(objects.first === context.registeredObject(for: objects[0].objectID))
        }
    }

    @Test func cancellingBeforeItStartsGivesACancelledError() async throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 20, in: folder)
        let (_, delivered) = try await run(FetchRequest<ManagedObject>(entityName: "CancellingNote"), on: context) { $0.cancel() }
        #expect(delivered.finalResult == nil)
        #expect((delivered.operationError as? CocoaError)?.code == .userCancelled)
        #expect(delivered.progress.completedUnitCount == 0)
    }

    @Test func cancellingStopsTheFetchBetweenBatches() async throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 100, in: folder)
        let fetch = FetchRequest<ManagedObject>(entityName: "CancellingNote")
        fetch.fetchBatchSize = 30
        // The first object fetched cancels: the first batch completes, the second never starts.
        let (_, delivered) = try await run(fetch, on: context) { CancellingNote.cancel($0.progress, whenFetchedIn: context) }
        CancellingNote.cancel(nil, whenFetchedIn: context)
        #expect(delivered.finalResult == nil)
        #expect((delivered.operationError as? CocoaError)?.code == .userCancelled)
        #expect(delivered.progress.totalUnitCount == 100 && delivered.progress.completedUnitCount == 30)
    }

    @Test func cancellingTheCallersProgressCancelsTheFetch() async throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 5, in: folder)
        let parent = Progress(totalUnitCount: 1)
        let (returned, delivered) = try await run(FetchRequest<ManagedObject>(entityName: "CancellingNote"), on: context, within: parent) { _ in parent.cancel() }
        #expect(returned.progress.isCancelled)
        #expect((delivered.operationError as? CocoaError)?.code == .userCancelled)
    }

    @Test func aBadPredicateReachesOperationError() async throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 3, in: folder)
        let fetch = FetchRequest<ManagedObject>(entityName: "CancellingNote", predicate: try QueryPredicate(format: "noSuchKey == 1"))
        let (_, delivered) = try await run(fetch, on: context)
        #expect(delivered.finalResult == nil)
        let error = try #require(delivered.operationError)
        #expect("\(error)".contains("noSuchKey"))
    }

    @Test func onlyObjectResultsCanBeFetchedAsynchronously() throws {
        let folder = try TemporaryFolder()
        let context = try self.context(notes: 1, in: folder)
        let fetch = FetchRequest<ManagedObject>(entityName: "CancellingNote")
        fetch.resultType = .count
        #expect(throws: PersistenceError.self) { try context.execute(AsynchronousFetchRequest(fetchRequest: fetch)) }
    }
}
