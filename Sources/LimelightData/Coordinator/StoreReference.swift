import Synchronization

/// What a store's object IDs hold of it: its identifier, and the store itself without keeping it
/// alive, so `ManagedObjectID.persistentStore` can name the store an ID came from.
///
/// One per store (a new one when the store takes another identifier), shared by all its IDs: an
/// ID holds a single reference, as it held the identifier's text before, and two IDs of one store
/// compare by identity before comparing text.
final class StoreReference: Sendable {
    let identifier: String
    /// Weak, and emptied when the store is removed from its coordinator: an ID outliving its
    /// store's place in the coordinator names no store. Under a lock, since IDs cross threads.
    private let store: Mutex<WeakStore>

    private struct WeakStore {
        weak var store: PersistentStore?
    }

    init(identifier: String) {
        self.identifier = identifier
        store = Mutex(WeakStore())
    }

    /// The store, while it exists and is added.
    var persistentStore: PersistentStore? { store.withLock { $0.store } }

    func attach(_ persistentStore: PersistentStore) { store.withLock { $0.store = persistentStore } }

    func detach() { store.withLock { $0.store = nil } }
}
