import Foundation

extension Notification.Name {
    /// Posted by a coordinator whose store was added with `StoreOption.remoteChangeNotificationPost`
    /// when another coordinator or process committed to it, as Core Data's
    /// `.NSPersistentStoreRemoteChange`; the object is the coordinator. The user info holds the
    /// store's UUID (`storeUUID`), URL (`storeURL`) and, for a store keeping persistent history,
    /// the token of the newest transaction (`historyToken`), from which to fetch what changed.
    public static let persistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// Keys of `persistentStoreRemoteChange`'s user info.
public enum RemoteChangeKey {
    public static let storeUUID = "storeUUID"
    public static let storeURL = "storeURL"
    public static let historyToken = "historyToken"
}

extension PersistentStoreCoordinator {
    /// Starts watching an SQLite store's files for commits made elsewhere.
    func watchForRemoteChanges(_ store: PersistentStore) throws {
        guard let sqlite = store as? SQLiteStore, let url = sqlite.url else {
            throw PersistenceError.invalidRequest("remote change notifications need an SQLite store")
        }
        try withStores { try sqlite.markRemoteChanges() }
        let watcher = try StoreFileWatcher(storeURL: url) { [weak self, weak sqlite] in
            guard let self, let sqlite else { return true }
            return self.postRemoteChange(of: sqlite)
        }
        withStores { remoteChangeWatchers[ObjectIdentifier(store)] = watcher }
    }

    /// Posts the notification when another writer committed; says whether the look is settled
    /// (a change posted, or the store gone), so that `false` asks the watcher to look again: a
    /// read that failed (the file busy) or a commit not yet published in the `-shm`.
    private func postRemoteChange(of store: SQLiteStore) -> Bool {
        enum Look { case gone, unreadable, nothing, change(SQLiteStore.RemoteChange) }
        let look: Look = withStores {
            guard persistentStores.contains(where: { $0 === store }) else { return .gone }
            do {
                return try store.remoteChange().map(Look.change) ?? .nothing
            } catch {
                return .unreadable
            }
        }
        switch look {
        case .gone: return true
        case .unreadable, .nothing: return false
        case .change(let change):
            post(change, of: store)
            return true
        }
    }

    private func post(_ change: SQLiteStore.RemoteChange, of store: SQLiteStore) {
        var info: [String: Any] = [RemoteChangeKey.storeUUID: store.identifier]
        info[RemoteChangeKey.storeURL] = store.url
        info[RemoteChangeKey.historyToken] = change.historyToken
        NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: info)
    }
}

extension SQLiteStore {
    struct RemoteChange {
        var historyToken: PersistentHistoryToken?
    }

    /// Notes where the store stands, for `remoteChange()` to compare with.
    func markRemoteChanges() throws {
        remoteChangeMark = (try dataVersion(), try lastTransaction())
    }

    /// What another coordinator or process committed since the last look, or `nil` for nothing.
    ///
    /// A store keeping persistent history knows exactly: transactions it did not write itself.
    /// Otherwise SQLite's `data_version` tells that another connection committed, which includes
    /// this store's own marker writer: with marker files on and no history, a notification may
    /// follow the coordinator's own saves too.
    func remoteChange() throws -> RemoteChange? {
        let previous = try remoteChangeMark ?? (dataVersion(), lastTransaction())
        let version = try dataVersion()
        guard historyRecorder != nil else {
            remoteChangeMark = (version, previous.transaction)
            return version == previous.dataVersion ? nil : RemoteChange(historyToken: nil)
        }
        var keys: [Int64] = []
        try db().query("SELECT Z_PK FROM \(SQLiteHistoryLayout.transactionTable) WHERE Z_PK > ? ORDER BY Z_PK", [.integer(previous.transaction)]) { row in
            if case .integer(let key) = SQLiteValue(statement: row, column: 0) { keys.append(key) }
        }
        let last = keys.last ?? previous.transaction
        remoteChangeMark = (version, last)
        let foreign = keys.contains { !ownTransactions.contains($0) }
        ownTransactions = ownTransactions.filter { $0 > last }
        return foreign ? RemoteChange(historyToken: PersistentHistoryToken(transactionNumbers: [identifier: last])) : nil
    }

    private func dataVersion() throws -> Int64 { try db().scalarInt("PRAGMA data_version") ?? 0 }

    private func lastTransaction() throws -> Int64 {
        historyRecorder == nil ? 0 : try lastHistoryTransaction()
    }
}
