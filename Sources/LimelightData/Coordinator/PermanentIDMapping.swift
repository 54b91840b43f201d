/// The permanent IDs a store gave new objects, in the order it was given their temporary IDs.
///
/// Saves hand permanent IDs back by position, so the common save of plain rows never hashes an ID:
/// the dictionary by temporary ID is built only when something asks for one (a relationship that
/// points at an object new in the same save, or a context remapping related objects).
struct PermanentIDMapping {
    /// The new objects as the store was handed them (their IDs are read only if asked for).
    let snapshots: [ObjectSnapshot]
    let permanent: [ManagedObjectID]
    private var byTemporary: [ManagedObjectID: ManagedObjectID]?

    /// `permanent[i]` is the ID of the object of `snapshots[i]` (the same ID if it was already
    /// permanent).
    init(snapshots: [ObjectSnapshot], permanent: [ManagedObjectID]) {
        precondition(snapshots.count == permanent.count, "one permanent ID per new object")
        self.snapshots = snapshots
        self.permanent = permanent
    }

    /// The permanent ID for `id`, or `id` itself when it is not one of the temporary IDs.
    mutating func resolve(_ id: ManagedObjectID) -> ManagedObjectID {
        guard id.isTemporaryID else { return id }
        return dictionary()[id] ?? id
    }

    /// Temporary ID → permanent ID, for the IDs that changed.
    mutating func dictionary() -> [ManagedObjectID: ManagedObjectID] {
        if let byTemporary { return byTemporary }
        var built: [ManagedObjectID: ManagedObjectID] = [:]
        built.reserveCapacity(snapshots.count)
        for index in snapshots.indices where snapshots[index].id.isTemporaryID { built[snapshots[index].id] = permanent[index] }
        byTemporary = built
        return built
    }
}
