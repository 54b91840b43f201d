import Foundation

/// Core Data's conveniences around a coordinator's stores: adding one from a description, where a
/// store is, the coordinator's own queue, and the notifications of stores coming and going.
extension PersistentStoreCoordinator {
    /// Posted when stores were added or removed, with the coordinator as object and user info
    /// `added` and `removed` (`[PersistentStore]`), as Core Data's
    /// `NSPersistentStoreCoordinatorStoresDidChange`.
    public static let storesDidChangeNotification = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted before a store is removed, with the store as object
    /// (`NSPersistentStoreCoordinatorWillRemoveStore`).
    public static let willRemoveStoreNotification = Notification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
    /// User info keys of `storesDidChangeNotification` (Core Data's `NSAddedPersistentStoresKey`
    /// and `NSRemovedPersistentStoresKey`).
    public static let addedPersistentStoresKey = "added"
    public static let removedPersistentStoresKey = "removed"

    func postStoresDidChange(added: [PersistentStore], removed: [PersistentStore]) {
        NotificationCenter.default.post(name: Self.storesDidChangeNotification, object: self, userInfo: [
            Self.addedPersistentStoresKey: added, Self.removedPersistentStoresKey: removed,
        ])
    }

    /// Adds the store `description` describes, as Core Data's `addPersistentStore(with:completionHandler:)`:
    /// at once, or on a background queue when `shouldAddStoreAsynchronously` says so; `handler`
    /// hears of it, with the error that stopped it if any (on that queue when asynchronous).
    public func addPersistentStore(with description: PersistentStoreDescription,
                                   completionHandler handler: @escaping (PersistentStoreDescription, (any Error)?) -> Void) {
        let add = StoreAddition(coordinator: self, description: description, handler: handler)
        if description.shouldAddStoreAsynchronously {
            DispatchQueue.global(qos: .userInitiated).async { add.run() }
        } else {
            add.run()
        }
    }

    /// Adds the store `description` describes now, creating the folder its file goes in.
    func addStore(describedBy description: PersistentStoreDescription) throws {
        if let folder = description.url?.deletingLastPathComponent(), description.type != .inMemory, !description.isReadOnly {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try addPersistentStore(type: description.type, configuration: description.configuration, at: description.url,
                               options: description.options)
    }

    /// The URL of `store` (Core Data's `url(for:)`); `nil` for a store with none (in memory).
    public func url(for store: PersistentStore) -> URL? {
        withStores { store.url }
    }

    /// Points an atomic store (an `AtomicStore`, the XML store among them) at `url`: its next save
    /// writes the file there, as Core Data's `setURL(_:for:)` does for atomic stores. Returns
    /// `false`, changing nothing, for a store not added here and for other kinds: an SQLite
    /// store's connection, write-ahead log, support folder and markers belong to its file (move
    /// one with `migratePersistentStore(_:to:options:type:)`). Call it while no context saves to
    /// the store.
    @discardableResult
    public func setURL(_ url: URL, for store: PersistentStore) -> Bool {
        withStores {
            guard persistentStores.contains(where: { $0 === store }), store is AtomicStore, url.isFileURL else { return false }
            store.url = url
            return true
        }
    }

    /// What the marker file at `url` says (entity, store UUID and path, model path, object URI),
    /// as Core Data's `elementsDerived(fromExternalRecordAt:)`, typed rather than in a dictionary:
    /// `ExternalRecordPath.decode(_:)` for a marker inside a registered records folder.
    public static func elementsDerived(fromExternalRecordAt url: URL) throws -> ExternalRecordElements {
        try ExternalRecordPath.decode(url.path)
    }

    /// Runs `block` on the coordinator's queue, holding its stores, without waiting: Core Data's
    /// `perform(_:)`, for work on the stores themselves (their metadata, adding and removing them).
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { self.withStores(block) }
    }

    /// Runs `block` holding the coordinator's stores and returns its result (Core Data's
    /// `performAndWait(_:)`); no context's save or fetch runs on these stores meanwhile.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try withStores(block)
    }
}

/// One `addPersistentStore(with:completionHandler:)`: what it adds and whom it tells, handed to a
/// background queue as it is. The handler runs there, as Core Data runs it; what it touches is
/// the caller's to keep safe, as it is with Core Data.
private struct StoreAddition: @unchecked Sendable {
    let coordinator: PersistentStoreCoordinator
    let description: PersistentStoreDescription
    let handler: (PersistentStoreDescription, (any Error)?) -> Void

    func run() {
        do {
            try coordinator.addStore(describedBy: description)
            handler(description, nil)
        } catch {
            handler(description, error)
        }
    }
}
