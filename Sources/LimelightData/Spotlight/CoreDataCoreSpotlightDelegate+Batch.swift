import Foundation
import Logging

extension CoreDataCoreSpotlightDelegate {
    /// Describes objects a write outside any context changed (a batch update, insert or delete
    /// that cleared links), for the marker journal of that write: called inside its transaction,
    /// after the rows are written and before they commit, by the thread holding the coordinator's
    /// lock. Without it their markers would lose the description until their next save.
    ///
    /// The objects are read through a context of the delegate's own, run on this very thread
    /// (counted as held, so its `performAndWait` does not wait on its queue): the reads then go
    /// through the lock this thread holds and the store connection that is in the transaction,
    /// and see the rows as the write left them. A row that cannot be read is logged and left out:
    /// its marker is then written without a description, indexed from its properties, and the
    /// write goes through.
    func entries(describing ids: [ManagedObjectID], coordinator: PersistentStoreCoordinator) -> [ManagedObjectID: Data] {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        var entries: [ManagedObjectID: Data] = [:]
        HeldContexts.holding(context) {
            context.performAndWait {
                for group in Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity) }).values {
                    guard let entity = group.first?.entity else { continue }
                    for start in stride(from: 0, to: group.count, by: SpotlightEntry.reindexBatchSize) {
                        let slice = group[start..<min(group.count, start + SpotlightEntry.reindexBatchSize)]
                        do {
                            for object in try context.loadBatch(slice, prefetching: [], entity: entity) {
                                entries[object.objectID] = try SpotlightEntry.encode(describe(object))
                            }
                        } catch {
                            Logger(label: "limelight.spotlight").error("Spotlight: \(slice.count) \(entity.name) object(s) changed by a batch request are indexed from their properties: \(error)")
                        }
                        context.reset()
                    }
                }
            }
        }
        return entries
    }
}
