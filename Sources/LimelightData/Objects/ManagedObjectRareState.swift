/// What an object holds only in some uses, kept apart so that the others do not carry it: every
/// fetched and inserted object is allocated with its fields, and three empty collections and an
/// empty reference cost 24 bytes each time.
final class ManagedObjectRareState {
    /// Fetched properties' last results by property index, kept until the object is refreshed
    /// (Core Data's behaviour); apart from `values`, so saves never see them.
    var fetchedResults: [Int: [ManagedObject]] = [:]
    /// Objects a fetch prefetched through the object's relationships, by relationship name (the
    /// latest fetch replaces what an earlier one left), kept alive with it so that following the
    /// relationship needs no query (the context holds unchanged objects weakly).
    var prefetchedObjects: [String: [ManagedObject]] = [:]
    /// The observations watching the object's values (`observe(_:options:changeHandler:)`).
    var keyValueObservers: ObjectObservers?

    var isEmpty: Bool { fetchedResults.isEmpty && prefetchedObjects.isEmpty && keyValueObservers == nil }
}

/// An object's flags that only some uses set, packed into one byte.
struct OccasionalFlags: OptionSet {
    let rawValue: UInt8

    /// Whether the object's incremental store was told that its context holds it
    /// (`managedObjectContextDidRegisterObjects(with:)`), and so must be told when it lets go.
    static let announcedToStore = OccasionalFlags(rawValue: 1 << 0)
    /// While the framework checks the model's rules on the object and calls its validation hooks.
    static let underValidation = OccasionalFlags(rawValue: 1 << 1)
}

extension ManagedObject {
    /// Fetched properties' last results by property index (`ManagedObjectRareState`).
    var fetchedResults: [Int: [ManagedObject]] {
        get { rareState?.fetchedResults ?? [:] }
        set { updateRareState(isEmpty: newValue.isEmpty) { $0.fetchedResults = newValue } }
    }

    /// Objects prefetched through this one's relationships, by relationship name
    /// (`ManagedObjectRareState`).
    var prefetchedObjects: [String: [ManagedObject]] {
        get { rareState?.prefetchedObjects ?? [:] }
        set { updateRareState(isEmpty: newValue.isEmpty) { $0.prefetchedObjects = newValue } }
    }

    /// The observations watching the object's values; `nil` while there are none, so a change to
    /// an object nobody observes costs a check of it.
    var keyValueObservers: ObjectObservers? {
        get { rareState?.keyValueObservers }
        set { updateRareState(isEmpty: newValue == nil) { $0.keyValueObservers = newValue } }
    }

    /// Whether the object's incremental store was told that its context holds it
    /// (`managedObjectContextDidRegisterObjects(with:)`), and so must be told when it lets go.
    var announcedToStore: Bool {
        get { occasionalFlags.contains(.announcedToStore) }
        set { if newValue { occasionalFlags.insert(.announcedToStore) } else { occasionalFlags.remove(.announcedToStore) } }
    }

    /// While the framework checks the model's rules on the object and calls its validation hooks
    /// (a save, or `validateForInsert()`): `ManagedObject`'s own hooks then leave the rules to it.
    /// Read for every value: the hooks are called for each of them.
    var isUnderValidation: Bool {
        get { occasionalFlags.contains(.underValidation) }
        set { if newValue { occasionalFlags.insert(.underValidation) } else { occasionalFlags.remove(.underValidation) } }
    }

    /// Changes the rare state, making it only for a value that is not empty (emptying a field of
    /// an object that has none costs nothing) and letting it go once all of it is empty again.
    private func updateRareState(isEmpty: Bool, _ change: (ManagedObjectRareState) -> Void) {
        if let state = rareState {
            change(state)
            if isEmpty, state.isEmpty { rareState = nil }
        } else if !isEmpty {
            let state = ManagedObjectRareState()
            change(state)
            rareState = state
        }
    }
}
