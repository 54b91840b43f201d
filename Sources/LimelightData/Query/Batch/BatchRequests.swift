import Foundation

/// Deletes every object a fetch request matches, or the objects given, in the store itself:
/// no object is loaded, as Core Data's `NSBatchDeleteRequest`.
///
/// Delete rules are kept (Cascade deletes the related objects too, Nullify clears the links to the
/// deleted ones, Deny refuses the whole request when a related object exists), as are join tables,
/// optimistic locking and marker files. Contexts are not told: merge the result's IDs into them
/// (`ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`).
public final class BatchDeleteRequest: @unchecked Sendable {
    public enum ResultType: Sendable {
        case statusOnly
        case count
        case objectIDs
    }

    /// The request whose objects to delete, as it was when this request was made.
    public let fetchRequest: FetchRequest<FetchRequestResult>?
    public let objectIDs: [ManagedObjectID]?
    public var resultType: ResultType = .statusOnly

    public init<Result>(fetchRequest: FetchRequest<Result>) {
        self.fetchRequest = FetchRequest(specification: fetchRequest.specification)
        objectIDs = nil
    }

    public init(objectIDs: [ManagedObjectID]) {
        fetchRequest = nil
        self.objectIDs = objectIDs
    }
}

/// Sets attributes of every object of an entity that a predicate matches, in the store itself, as
/// Core Data's `NSBatchUpdateRequest`. Values are converted to each attribute's type; marker files
/// follow; contexts are not told (merge the result's IDs).
public final class BatchUpdateRequest: @unchecked Sendable {
    public enum ResultType: Sendable {
        case statusOnly
        case updatedObjectsCount
        case updatedObjectIDs
    }

    public let entityName: String
    public var predicate: QueryPredicate?
    /// Attribute name → its new value (`nil` or `NSNull` for no value).
    public var propertiesToUpdate: [String: Any] = [:]
    public var includesSubentities = true
    public var resultType: ResultType = .statusOnly

    public init(entityName: String) {
        self.entityName = entityName
    }
}

/// What a batch request did, in the form its result type asks for.
public struct BatchResult: @unchecked Sendable {
    /// `true` once the request is carried out (every result type).
    public let status: Bool
    /// How many objects were deleted or updated (`.count`, `.updatedObjectsCount`, `.objectIDs`…).
    public let count: Int
    /// The objects deleted or updated, for the ID result types; `nil` otherwise.
    public let objectIDs: [ManagedObjectID]?
    /// Whether the request asked for the count, which `result` then holds.
    let countRequested: Bool

    init(status: Bool, count: Int, objectIDs: [ManagedObjectID]?, countRequested: Bool) {
        self.status = status
        self.count = count
        self.objectIDs = objectIDs
        self.countRequested = countRequested
    }

    /// What the result type asked for, as Core Data's `NSBatchDeleteResult.result` and its
    /// siblings hold it: the `[ManagedObjectID]` for the ID result types, the count (`Int`) for
    /// the count ones, and the status (`Bool`) otherwise, so `result as? [ManagedObjectID]` reads
    /// as it did.
    public var result: Any? {
        if let objectIDs { return objectIDs }
        return countRequested ? count : status
    }
}

extension ManagedObjectContext {
    /// Runs a batch delete on the SQLite stores it concerns.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        guard let coordinator = persistentStoreCoordinator else { throw PersistenceError.noStore("the context has no coordinator") }
        var deleted: [ManagedObjectID] = []
        try coordinator.withStores {
            if let ids = request.objectIDs {
                for store in coordinator.persistentStores {
                    let mine = ids.filter { $0.storeIdentifier == store.identifier }
                    if !mine.isEmpty { deleted += try Self.sqliteStore(store).batchDelete(ids: mine, matching: nil, origin: origin) }
                }
            } else if let fetch = request.fetchRequest?.specification {
                let (entity, _) = try resolve(fetch)
                for store in coordinator.stores(for: fetch) {
                    deleted += try Self.sqliteStore(store).batchDelete(ids: nil, matching: StoreFetch(request: fetch, entity: entity), origin: origin)
                }
            }
        }
        return BatchResult(status: true, count: deleted.count, objectIDs: request.resultType == .objectIDs ? deleted : nil,
                           countRequested: request.resultType == .count)
    }

    /// Runs a batch update on the SQLite stores holding the entity.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        var fetch = FetchSpecification(entityName: request.entityName, predicate: request.predicate)
        fetch.includesSubentities = request.includesSubentities
        let (entity, coordinator) = try resolve(fetch)
        var updated: [ManagedObjectID] = []
        try coordinator.withStores {
            for store in coordinator.stores(for: fetch) {
                updated += try Self.sqliteStore(store).batchUpdate(StoreFetch(request: fetch, entity: entity), values: request.propertiesToUpdate,
                                                                   origin: origin)
            }
        }
        return BatchResult(status: true, count: updated.count, objectIDs: request.resultType == .updatedObjectIDs ? updated : nil,
                           countRequested: request.resultType == .updatedObjectsCount)
    }

    static func sqliteStore(_ store: PersistentStore) throws -> SQLiteStore {
        guard let sqlite = store as? SQLiteStore else {
            throw PersistenceError.invalidRequest("batch requests work on SQLite stores only, as in Core Data (not on \(store.type.rawValue))")
        }
        if sqlite.isReadOnly { throw PersistenceError.store(path: sqlite.path, reason: "the store is read-only") }
        return sqlite
    }
}
