import Foundation

/// Where a reader of persistent history got to, per store: the last transaction number seen in
/// each. Keep it (it is `Codable`) and ask for the history after it next time.
public struct PersistentHistoryToken: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Store UUID → the number of the last transaction the token covers.
    public let transactionNumbers: [String: Int64]

    public init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
    }

    public var description: String {
        "PersistentHistoryToken(" + transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
}

/// What a change did to its object.
public enum PersistentHistoryChangeType: Int, Sendable {
    case insert = 0
    case update = 1
    case delete = 2
}

/// One object's part in a transaction.
public struct PersistentHistoryChange: @unchecked Sendable {
    /// The change's number in its store, rising with every change recorded.
    public let changeID: Int64
    public let changedObjectID: ManagedObjectID
    public let changeType: PersistentHistoryChangeType
    /// For an update, the properties the save wrote; `nil` for inserts and deletes, and when the
    /// record names properties the model no longer has.
    public let updatedProperties: [PropertyDescription]?
    /// For a delete, the values of the attributes the model keeps after deletion
    /// (`preservesValueInHistoryOnDeletion`), by name.
    public let tombstone: [String: Any]?
    /// The number of the transaction the change belongs to.
    public let transactionNumber: Int64
}

/// One save, as persistent history recorded it.
public struct PersistentHistoryTransaction: @unchecked Sendable {
    /// The transaction's number in its store, rising with every save.
    public let transactionNumber: Int64
    public let timestamp: Date
    /// The UUID of the store the save wrote to.
    public let storeID: String
    /// The saving context's `transactionAuthor`.
    public let author: String?
    /// The saving context's `name`.
    public let contextName: String?
    /// The program that saved (Core Data's bundle identifier, a program name here).
    public let bundleID: String?
    public let processID: String?
    /// The changes, unless the request asked for transactions only.
    public let changes: [PersistentHistoryChange]?

    /// A token covering this transaction: the history after it starts with the next one.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
    }

    /// The transaction as a `didSaveObjectIDsNotification`, for `mergeChanges(fromContextDidSave:)`:
    /// how a context catches up with saves made by another process.
    public func objectIDNotification() -> Notification {
        var inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.append(change.changedObjectID)
            case .update: updated.append(change.changedObjectID)
            case .delete: deleted.append(change.changedObjectID)
            }
        }
        return Notification(name: ManagedObjectContext.didSaveObjectIDsNotification, object: nil,
                            userInfo: ManagedObjectContext.objectIDsUserInfo(inserted: inserted, updated: updated, deleted: deleted))
    }
}
