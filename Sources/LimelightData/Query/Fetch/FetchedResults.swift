import Foundation

/// The result of `ManagedObjectContext.fetchBatched(_:)`: the matching objects in order, as a
/// random-access collection that holds only their IDs and loads objects a batch at a time.
///
/// Touching an element loads its whole batch (`fetchBatchSize` objects) with one query (one per
/// 10,000 objects for larger batches), and the request's prefetching for that batch with one
/// query per relationship. Only the current
/// batch is held; the context holds unchanged objects weakly, so walking a large result keeps
/// memory at about one batch. Use it on the context's queue, like the objects it returns.
public final class FetchedResults: RandomAccessCollection {
    public typealias Element = ManagedObject
    public typealias Index = Int

    /// Every matching object's ID, read when the fetch ran.
    public let objectIDs: [ManagedObjectID]
    public let batchSize: Int
    private let context: ManagedObjectContext
    private let prefetching: [String]
    private let entity: EntityDescription
    private var batchNumber = -1
    private var batch: [ManagedObject] = []

    init(objectIDs: [ManagedObjectID], batchSize: Int, context: ManagedObjectContext, prefetching: [String], entity: EntityDescription) {
        self.objectIDs = objectIDs
        self.batchSize = batchSize > 0 ? batchSize : Swift.max(1, objectIDs.count)
        self.context = context
        self.prefetching = prefetching
        self.entity = entity
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { objectIDs.count }

    public subscript(position: Int) -> ManagedObject {
        precondition(position >= 0 && position < objectIDs.count, "FetchedResults index \(position) out of range 0..<\(objectIDs.count)")
        let number = position / batchSize
        if number != batchNumber { load(number) }
        return batch[position - number * batchSize]
    }

    private func load(_ number: Int) {
        let ids = objectIDs[(number * batchSize)..<Swift.min(objectIDs.count, (number + 1) * batchSize)]
        // A failing batch leaves its objects as faults; each then loads alone when touched and
        // reports its own error through the context like any fault.
        batch = (try? context.loadBatch(ids, prefetching: prefetching, entity: entity)) ?? ids.map { context.object(with: $0) }
        batchNumber = number
    }
}

extension ManagedObjectContext {
    /// The objects for `ids`, in order, their values read with one query (one per 10,000) and
    /// the `prefetching` key paths with one per relationship: one batch of a batched fetch.
    func loadBatch(_ ids: ArraySlice<ManagedObjectID>, prefetching: [String], entity: EntityDescription) throws -> [ManagedObject] {
        let objects = ids.map { object(with: $0) }
        try fireFaults(objects)
        if !prefetching.isEmpty {
            try prefetch(prefetching, for: objects, entity: entity, asFaults: false)
        }
        return objects
    }
}
