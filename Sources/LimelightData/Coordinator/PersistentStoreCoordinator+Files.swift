import Foundation

extension PersistentStoreCoordinator {
    /// Deletes the store at `url` and what is kept for it (its write-ahead log, the support
    /// folder beside it, its marker files where `options` put them, its entry in the records
    /// registry), as Core Data's `destroyPersistentStore(at:type:options:)`: the way to start
    /// over, or to sign a user out. The store is removed from this coordinator first if it was
    /// added; other programs must have closed it. A missing store is not an error.
    public func destroyPersistentStore(at url: URL, type: StoreType = .sqlite, options: [String: any Sendable]? = nil) throws {
        let options = options ?? [:]
        guard type == .sqlite else {
            // An atomic store is its one file.
            if let store = persistentStore(for: url) { remove(store) }
            if StoreClassRegistry.shared.storeClass(for: type) != nil, FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.removeItem(at: url)
            }
            return
        }
        if let store = persistentStore(for: url) { remove(store) }
        try SQLiteStoreFiles.destroy(at: url, options: options)
    }

    /// Replaces the store at `destination` with a copy of the store at `source`, as Core Data's
    /// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`:
    /// how a backup is restored, or a store brought in from elsewhere. The copy is exact (the
    /// same UUID, so object URIs and marker paths name the same objects) and is read consistently
    /// even while another program writes the source. What the destination kept before goes; its
    /// marker files, when `destinationOptions` turn markers on, are made anew for the copied
    /// objects (which needs the copy to fit this coordinator's model).
    public func replacePersistentStore(at destination: URL, destinationOptions: [String: any Sendable]? = nil,
                                       withPersistentStoreFrom source: URL, sourceOptions: [String: any Sendable]? = nil,
                                       type: StoreType = .sqlite) throws {
        let destinationOptions = destinationOptions ?? [:]
        guard type == .sqlite else {
            throw PersistenceError.invalidRequest("replacing a store works on SQLite stores (not \(type.rawValue))")
        }
        guard source.standardizedFileURL != destination.standardizedFileURL else { return }
        if let store = persistentStore(for: destination) { remove(store) }
        try SQLiteStoreFiles.destroy(at: destination, options: destinationOptions)
        try SQLiteStoreFiles.replace(at: destination, from: source)
        guard try ExternalRecordsConfiguration(options: destinationOptions, storeURL: destination) != nil else { return }
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: destination, options: destinationOptions)
        defer { coordinator.remove(store) }
        _ = try store.rebuildExternalRecords()
    }
}
