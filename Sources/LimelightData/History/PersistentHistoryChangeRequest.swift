import Foundation

/// Reads or trims a store's persistent history, as Core Data's `NSPersistentHistoryChangeRequest`:
/// the transactions after a date, a token or a transaction, or the deletion of those before one.
/// Only stores that keep history (`StoreOption.persistentHistoryTracking`) can answer.
public final class PersistentHistoryChangeRequest: @unchecked Sendable {
    public enum ResultType: Sendable {
        case statusOnly
        case count
        case transactionsOnly
        case changesOnly
        case transactionsAndChanges
    }

    /// Which transactions a request is about.
    enum Bound {
        case afterDate(Date)
        case afterToken(PersistentHistoryToken?)
        case beforeDate(Date)
        case beforeToken(PersistentHistoryToken?)

        var deletes: Bool {
            switch self {
            case .beforeDate, .beforeToken: return true
            case .afterDate, .afterToken: return false
            }
        }
    }

    let bound: Bound
    public var resultType: ResultType
    /// The stores to read; every store of the coordinator that keeps history when empty.
    public var affectedStores: [PersistentStore] = []
    /// Keeps the transactions it matches, as Core Data's history request with a fetch request
    /// on transactions does. Its keys: `author`, `contextName`, `bundleID`, `processID`,
    /// `timestamp`, `transactionNumber`, `storeID` (`author != 'importer'` skips a program's own).
    public var transactionPredicate: QueryPredicate?
    /// Keeps the changes it matches, and the transactions left with any. Its keys: `changeType`
    /// (0 insert, 1 update, 2 delete), `entityName`, `changedObjectID`, `changeID`.
    public var changePredicate: QueryPredicate?
    /// A fetch request on transactions or changes (`PersistentHistoryTransaction.fetchRequest`,
    /// `PersistentHistoryChange.fetchRequest`) whose predicate keeps what it matches, as in Core
    /// Data; it narrows `transactionPredicate` or `changePredicate` rather than replacing them.
    public var fetchRequest: FetchRequest<FetchRequestResult>?

    private init(_ bound: Bound) {
        self.bound = bound
        resultType = bound.deletes ? .statusOnly : .transactionsAndChanges
    }

    /// The transactions saved after `date`.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest { .init(.afterDate(date)) }
    /// The transactions after those `token` covers; all of them for `nil`.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest { .init(.afterToken(token)) }
    /// The transactions after `transaction`; all of them for `nil`.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        .init(.afterToken(transaction?.token))
    }

    /// Deletes the transactions saved before `date`.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest { .init(.beforeDate(date)) }
    /// Deletes the transactions before the last one `token` covers (that one stays).
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest { .init(.beforeToken(token)) }
    /// Deletes the transactions before `transaction`.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        .init(.beforeToken(transaction?.token))
    }
}

/// What a history request returns, by its `resultType`.
public enum PersistentHistoryResult: @unchecked Sendable {
    case status(Bool)
    /// Transactions read, or deleted.
    case count(Int)
    case transactions([PersistentHistoryTransaction])
    case changes([PersistentHistoryChange])

    /// What the result type asked for, as Core Data's `NSPersistentHistoryResult.result` holds it:
    /// `[PersistentHistoryTransaction]`, `[PersistentHistoryChange]`, the count (`Int`) or the
    /// status (`Bool`). Code written for Core Data casts it (`result.result as?
    /// [PersistentHistoryTransaction]`), and that cast reads the same here.
    public var result: Any? {
        switch self {
        case .status(let done): done
        case .count(let count): count
        case .transactions(let transactions): transactions
        case .changes(let changes): changes
        }
    }
}

extension ManagedObjectContext {
    /// Runs a history request against the stores that keep history, oldest transaction first.
    /// The answer may be left unread, as Core Data's is: trimming history is run for its effect.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
        return try coordinator.withStores {
            let stores = try coordinator.historyStores(request.affectedStores)
            if request.bound.deletes {
                let deleted = try stores.reduce(0) { $0 + (try $1.deleteHistory(request.bound)) }
                return request.resultType == .count ? .count(deleted) : .status(true)
            }
            let withChanges = request.resultType == .changesOnly || request.resultType == .transactionsAndChanges
            let filter = try request.effectiveFilter()
            var transactions = try stores.flatMap { store in
                try request.filter(store.historyTransactions(request.bound, includingChanges: withChanges || filter.changePredicate != nil),
                                   by: filter, keepingChanges: withChanges)
            }
            if let limit = filter.limit, transactions.count > limit { transactions.removeLast(transactions.count - limit) }
            switch request.resultType {
            case .statusOnly: return .status(true)
            case .count: return .count(transactions.count)
            case .changesOnly: return .changes(transactions.flatMap { $0.changes ?? [] })
            case .transactionsOnly, .transactionsAndChanges: return .transactions(transactions)
            }
        }
    }
}

extension PersistentHistoryChangeRequest {
    /// The transactions the predicates keep, with the changes they keep (none when the result
    /// asks for no changes).
    func filter(_ transactions: [PersistentHistoryTransaction], by filter: FetchRequestFilter,
                keepingChanges: Bool) throws -> [PersistentHistoryTransaction] {
        let transactionPredicate = filter.transactionPredicate, changePredicate = filter.changePredicate
        guard transactionPredicate != nil || changePredicate != nil else { return transactions }
        var kept: [PersistentHistoryTransaction] = []
        for transaction in transactions {
            if let transactionPredicate, try !transactionPredicate.evaluate(with: transaction.predicateValues) { continue }
            var changes = transaction.changes
            if let changePredicate {
                changes = try (changes ?? []).filter { try changePredicate.evaluate(with: $0.predicateValues) }
                if changes?.isEmpty ?? true { continue }
            }
            kept.append(transaction.with(changes: keepingChanges ? changes : nil))
        }
        return kept
    }
}

extension PersistentHistoryTransaction {
    var predicateValues: [String: Any] {
        var values: [String: Any] = ["timestamp": timestamp, "transactionNumber": transactionNumber, "storeID": storeID]
        values["author"] = author
        values["contextName"] = contextName
        values["bundleID"] = bundleID
        values["processID"] = processID
        return values
    }

    func with(changes: [PersistentHistoryChange]?) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(transactionNumber: transactionNumber, timestamp: timestamp, storeID: storeID, author: author,
                                     contextName: contextName, bundleID: bundleID, processID: processID, changes: changes)
    }
}

extension PersistentHistoryChange {
    var predicateValues: [String: Any] {
        ["changeType": changeType.rawValue, "entityName": changedObjectID.entity.name, "changedObjectID": changedObjectID, "changeID": changeID]
    }
}

extension PersistentStoreCoordinator {
    /// A token for the history saved so far in `stores` (all stores that keep history when
    /// `nil`): fetching after it later returns only what was saved after this call.
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) throws -> PersistentHistoryToken {
        try withStores {
            var numbers: [String: Int64] = [:]
            for store in try historyStores(stores ?? []) { numbers[store.identifier] = try store.lastHistoryTransaction() }
            return PersistentHistoryToken(transactionNumbers: numbers)
        }
    }

    /// The SQLite stores among `stores` (all of the coordinator's when empty) that keep history;
    /// asking one that does not is an error naming it.
    func historyStores(_ stores: [PersistentStore]) throws -> [SQLiteStore] {
        let given = stores.isEmpty ? persistentStores : stores
        var result: [SQLiteStore] = []
        for store in given {
            guard let sqlite = store as? SQLiteStore, try sqlite.hasHistory() else {
                if stores.isEmpty { continue }
                throw PersistenceError.invalidRequest("the store \(store.url?.path ?? store.identifier) keeps no persistent history "
                    + "(open it with StoreOption.persistentHistoryTracking)")
            }
            result.append(sqlite)
        }
        if result.isEmpty {
            let named = given.map { $0.url?.path ?? $0.identifier }.joined(separator: ", ")
            throw PersistenceError.invalidRequest((given.count == 1 ? "the store \(named) keeps" : "no store (\(named)) keeps")
                + " no persistent history (open it with StoreOption.persistentHistoryTracking)")
        }
        return result
    }
}
