import Foundation

/// Fetch requests on history, as Core Data's `NSPersistentHistoryTransaction.fetchRequest` and
/// `NSPersistentHistoryChange.fetchRequest` give them: the usual way apps (and Apple's samples)
/// filter the history they read, by setting one as a history request's `fetchRequest`.
///
/// ```swift
/// let transactions = PersistentHistoryTransaction.fetchRequest!
/// transactions.predicate = try QueryPredicate(format: "author != %@", "app")
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// request.fetchRequest = transactions
/// ```
extension PersistentHistoryTransaction {
    /// The name a fetch request on transactions carries.
    public static let entityName = "Transaction"

    /// A request whose predicate keeps transactions (keys `author`, `contextName`, `bundleID`,
    /// `processID`, `timestamp`, `transactionNumber`, `storeID`) and whose `fetchLimit` keeps the
    /// first so many. Optional, as Core Data declares it; it is never `nil`.
    public static var fetchRequest: FetchRequest<FetchRequestResult>? {
        FetchRequest<FetchRequestResult>(entityName: entityName)
    }
}

extension PersistentHistoryChange {
    /// The name a fetch request on changes carries.
    public static let entityName = "Change"

    /// A request whose predicate keeps changes (keys `changeType`, `entityName`,
    /// `changedObjectID`, `changeID`), and the transactions left with any. Optional, as Core
    /// Data declares it; it is never `nil`.
    public static var fetchRequest: FetchRequest<FetchRequestResult>? {
        FetchRequest<FetchRequestResult>(entityName: entityName)
    }
}

extension PersistentHistoryChangeRequest {
    /// What a history request's `fetchRequest` adds to its own predicates: the predicate for
    /// transactions or for changes, by the request's entity, and a limit on the transactions.
    struct FetchRequestFilter {
        var transactionPredicate: QueryPredicate?
        var changePredicate: QueryPredicate?
        var limit: Int?
    }

    /// The filter the `fetchRequest` stands for, with this request's own predicates ANDed in; a
    /// fetch request on anything but transactions or changes is an error naming its entity.
    func effectiveFilter() throws -> FetchRequestFilter {
        var filter = FetchRequestFilter(transactionPredicate: transactionPredicate, changePredicate: changePredicate)
        guard let fetchRequest else { return filter }
        let predicate = fetchRequest.predicate
        switch fetchRequest.entityName {
        case PersistentHistoryTransaction.entityName?:
            filter.transactionPredicate = Self.both(filter.transactionPredicate, predicate)
            filter.limit = fetchRequest.fetchLimit > 0 ? fetchRequest.fetchLimit : nil
        case PersistentHistoryChange.entityName?:
            filter.changePredicate = Self.both(filter.changePredicate, predicate)
        default:
            throw PersistenceError.invalidRequest("a history request's fetchRequest must be on \(PersistentHistoryTransaction.entityName) "
                + "or \(PersistentHistoryChange.entityName) (PersistentHistoryTransaction.fetchRequest or PersistentHistoryChange.fetchRequest), "
                + "not \(fetchRequest.entityName ?? "no entity")")
        }
        return filter
    }

    private static func both(_ first: QueryPredicate?, _ second: QueryPredicate?) -> QueryPredicate? {
        switch (first, second) {
        case let (first?, second?): return QueryPredicate(andPredicateWithSubpredicates: [first, second])
        case let (first?, nil): return first
        case let (nil, second): return second
        }
    }
}
