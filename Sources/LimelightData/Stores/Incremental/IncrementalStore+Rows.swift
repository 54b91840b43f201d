import Foundation

/// How an incremental store's answers become what contexts read: nodes as store rows, and the
/// forms a subclass may give IDs in.
extension IncrementalStore {
    /// `fetch`'s request as the store receives it, asking for `resultType`.
    func request(_ fetch: StoreFetch, as resultType: FetchRequestResultType) -> FetchRequest<FetchRequestResult> {
        var specification = fetch.request
        specification.resultType = resultType
        return FetchRequest(specification: specification)
    }

    /// The IDs in a fetch's answer: IDs, or objects.
    func ids(in answer: Any, for fetch: StoreFetch) throws -> [ManagedObjectID] {
        switch answer {
        case let ids as [ManagedObjectID]: return ids
        case let objects as [ManagedObject]: return objects.map(\.objectID)
        default:
            throw PersistenceError.invalidRequest("\(type) store: execute(_:with:) answered a fetch of \(fetch.entity.name) with \(Swift.type(of: answer)), not [ManagedObjectID]")
        }
    }

    /// The object's node as the row a context makes an object of. A to-many the node leaves out
    /// stays a fault, read through `newValue(forRelationship:…)` when it is first used.
    func row(_ id: ManagedObjectID) throws -> StoreRow {
        let node = try newValuesForObject(with: id, with: nil)
        return StoreRow(id: id, version: Int64(clamping: node.version), value: node.value(for:), toOne: Self.destination) {
            node.has($0) ? .loaded(RelatedIDs(Self.destinations($1))) : .fault
        }
    }

    static func destination(_ value: Any?) -> ManagedObjectID? {
        switch value {
        case let id as ManagedObjectID: id
        case let object as ManagedObject: object.objectID
        default: nil
        }
    }

    static func destinations(_ value: Any?) -> [ManagedObjectID] {
        switch value {
        case let ids as [ManagedObjectID]: ids
        case let ids as Set<ManagedObjectID>: ids.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        case let objects as [ManagedObject]: objects.map(\.objectID)
        case let objects as Set<ManagedObject>: objects.map(\.objectID).sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        default: []
        }
    }
}
