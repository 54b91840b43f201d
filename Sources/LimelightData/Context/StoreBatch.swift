/// What one save (or one request for permanent IDs) hands one store: its changes, and the new
/// objects in the order of their snapshots, so the permanent IDs the store gives back by position
/// go to the right objects without a dictionary of IDs.
struct StoreBatch {
    let store: PersistentStore
    var changes = SaveChanges()
    /// The objects of `changes.inserted`, in the same order.
    var insertedObjects: [ManagedObject] = []
    /// The store's answer: the permanent ID of each of `insertedObjects`.
    var permanentIDs: [ManagedObjectID] = []

    init(store: PersistentStore) { self.store = store }
}

/// Finds the batch of the store each object of a save belongs to. Saves touch few stores and
/// entities and meet them in long runs, so the last answers are kept and checked first instead of
/// hashing every object's entity or ID.
struct SaveRouter {
    let coordinator: PersistentStoreCoordinator
    /// New objects given a store with `assign(_:to:)`, by temporary ID.
    let assignments: [ManagedObjectID: PersistentStore]
    private var lastNew: (entity: ObjectIdentifier, batch: Int)?
    private var newByEntity: [ObjectIdentifier: Int] = [:]

    init(coordinator: PersistentStoreCoordinator, assignments: [ManagedObjectID: PersistentStore] = [:]) {
        self.coordinator = coordinator
        self.assignments = assignments
    }

    /// The batch for a new object: the store its ID names if it already has a permanent one, the
    /// store it was assigned to, else the first store that takes its entity.
    mutating func batch(forNew object: ManagedObject, in batches: inout [StoreBatch]) throws -> Int {
        guard object.objectID.isTemporaryID else { return try batch(for: object.objectID, in: &batches) }
        if !assignments.isEmpty, let store = assignments[object.objectID] { return Self.batch(of: store, in: &batches) }
        let entity = ObjectIdentifier(object.entity)
        if let lastNew, lastNew.entity == entity { return lastNew.batch }
        let index: Int
        if let known = newByEntity[entity] {
            index = known
        } else {
            index = Self.batch(of: try coordinator.store(forNew: object.entity), in: &batches)
            newByEntity[entity] = index
        }
        lastNew = (entity, index)
        return index
    }

    /// The batch of the store an existing object's ID names.
    func batch(for id: ManagedObjectID, in batches: inout [StoreBatch]) throws -> Int {
        Self.batch(of: try coordinator.store(for: id), in: &batches)
    }

    private static func batch(of store: PersistentStore, in batches: inout [StoreBatch]) -> Int {
        if let index = batches.firstIndex(where: { $0.store === store }) { return index }
        batches.append(StoreBatch(store: store))
        return batches.count - 1
    }
}
