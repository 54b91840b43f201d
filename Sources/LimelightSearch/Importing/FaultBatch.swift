import LimelightData

/// Loads the objects behind many markers or hits, which may live in several stores, with one
/// query per context and chunk rather than one per object: the importer reads whole batches of
/// markers this way, and a search its page of hits.
enum FaultBatch {
    struct Item {
        var context: ManagedObjectContext
        var object: ManagedObject
    }

    /// Each item's object with its values, in order, or the error saying why it cannot be had:
    /// the item's own (its store could not be opened) or its object's (gone from its store). A
    /// failing batch query is not reported as such: every object still a fault afterwards is
    /// loaded on its own, which names its own problem.
    static func load(_ items: [Result<Item, any Error>], chunkSize: Int = 500) -> [Result<ManagedObject, any Error>] {
        let size = max(1, chunkSize)
        var loaded: [Result<ManagedObject, any Error>] = []
        loaded.reserveCapacity(items.count)
        for start in stride(from: 0, to: items.count, by: size) {
            let chunk = items[start..<min(items.count, start + size)]
            var byContext: [ObjectIdentifier: (context: ManagedObjectContext, objects: [ManagedObject])] = [:]
            for case .success(let item) in chunk {
                byContext[ObjectIdentifier(item.context), default: (item.context, [])].objects.append(item.object)
            }
            for group in byContext.values { try? group.context.fireFaults(group.objects) }
            for item in chunk {
                loaded.append(Result {
                    let item = try item.get()
                    return item.object.isFault ? try item.context.existingObject(with: item.object.objectID) : item.object
                })
            }
        }
        return loaded
    }
}
