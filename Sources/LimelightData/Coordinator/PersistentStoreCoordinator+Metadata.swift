import Foundation

/// Store metadata through the coordinator, as Core Data offers it: the dictionary a store keeps
/// beside its objects (its UUID and type, the model's version hashes, and whatever an
/// application records there, such as which seed data it imported).
extension PersistentStoreCoordinator {
    /// The metadata of `store`.
    public func metadata(for store: PersistentStore) -> [String: Any] {
        withStores { store.metadata }
    }

    /// Replaces the metadata of `store` and writes it at once (Core Data writes it with the next
    /// save). The store's UUID and type stay as they are whatever `metadata` says.
    public func setMetadata(_ metadata: [String: Any], for store: PersistentStore) throws {
        try withStores {
            guard persistentStores.contains(where: { $0 === store }) else {
                throw PersistenceError.invalidRequest("the store \(store.url?.path ?? store.identifier) is not one of this coordinator's stores")
            }
            guard !store.isReadOnly else { throw PersistenceError.store(path: store.url?.path ?? store.identifier, reason: "the store is read-only") }
            var merged = metadata
            merged["NSStoreUUID"] = store.identifier
            merged["NSStoreType"] = store.type.rawValue
            let previous = store.metadata
            try store.setMetadata(merged)
            // An atomic store keeps metadata in its file with everything else: written now too.
            if let atomic = store as? AtomicStore {
                do {
                    try atomic.save()
                } catch {
                    try? atomic.setMetadata(previous)
                    throw error
                }
            }
        }
    }

    /// Replaces the metadata of the store file at `url` without adding it, as Core Data's
    /// `setMetadata(_:forPersistentStoreOfType:at:options:)`: for marking a store before it is
    /// opened (or instead of opening it). The store's UUID and type stay as they are.
    /// `options` are accepted for Core Data's signature; writing metadata needs none of them.
    public static func setMetadata(_ metadata: [String: Any], forPersistentStoreOfType type: StoreType, at url: URL,
                                   options: [String: any Sendable] = [:]) throws {
        if type == .sqlite { return try SQLiteStore.writeMetadata(metadata, at: url) }
        guard let storeClass = StoreClassRegistry.shared.storeClass(for: type) else {
            throw PersistenceError.invalidRequest("no store class is registered for store type \(type); its metadata cannot be written")
        }
        try storeClass.setMetadata(metadata, forPersistentStoreAt: url)
    }
}
