import Foundation

/// How an incremental store's answers become what contexts read: fetched objects as faults of the
/// asking context, nodes as store rows, and the forms a subclass may give IDs in.
extension IncrementalStore {
    /// `fetch`'s request as the store receives it, asking for `resultType`, its `entity` set (as
    /// Core Data's always is, however the request was made).
    func request(_ fetch: StoreFetch, as resultType: FetchRequestResultType) -> FetchRequest<FetchRequestResult> {
        var specification = fetch.request
        specification.entity = fetch.entity
        specification.entityName = fetch.entity.name
        specification.resultType = resultType
        return FetchRequest(specification: specification)
    }

    /// The IDs in a fetch's answer: IDs, or objects.
    func ids(in answer: Any, for fetch: StoreFetch) throws -> [ManagedObjectID] {
        switch answer {
        case let ids as [ManagedObjectID]: return ids
        case let objects as [ManagedObject]: return objects.map(\.objectID)
        default: throw unexpected(answer, for: fetch)
        }
    }

    /// A fetch's answer as objects of `context`: those the subclass made there with
    /// `object(with:)` as they are, the others (IDs, objects of another context) made there now.
    func objects(in answer: Any, for fetch: StoreFetch, into context: ManagedObjectContext) throws -> [ManagedObject] {
        switch answer {
        case let objects as [ManagedObject]:
            return objects.map { $0.managedObjectContext === context ? $0 : context.object(with: $0.objectID) }
        case let ids as [ManagedObjectID]:
            return ids.map { context.object(with: $0) }
        default:
            throw unexpected(answer, for: fetch)
        }
    }

    private func unexpected(_ answer: Any, for fetch: StoreFetch) -> PersistenceError {
        PersistenceError.invalidRequest("\(type) store: execute(_:with:) answered a fetch of \(fetch.entity.name) with "
            + "\(Swift.type(of: answer)), not [ManagedObject] or [ManagedObjectID]")
    }

    /// The object's node as the row a context makes an object of; nil when the subclass says the
    /// object is gone (`PersistenceError.objectNotFound`). A to-many the node leaves out stays a
    /// fault, read through `newValue(forRelationship:…)` when it is first used; a to-one it leaves
    /// out is asked for now, as a context keeps no to-one faults.
    func row(_ id: ManagedObjectID, context: ManagedObjectContext?) throws -> StoreRow? {
        let node: IncrementalStoreNode
        do {
            node = try newValuesForObject(with: id, with: context)
        } catch PersistenceError.objectNotFound {
            return nil
        }
        var toOnes: [String: Any] = [:]
        for case let relationship as RelationshipDescription in id.entity.properties
        where !relationship.isToMany && !relationship.isTransient && !node.has(relationship) {
            toOnes[relationship.name] = try newValue(forRelationship: relationship, forObjectWith: id, with: context)
        }
        let value = { (property: PropertyDescription) in node.has(property) ? node.value(for: property) : toOnes[property.name] }
        return StoreRow(id: id, version: Int64(clamping: node.version), value: value, toOne: Self.destination) {
            node.has($0) ? .loaded(RelatedIDs(Self.destinations($1))) : .fault
        }
    }

    /// Optimistic locking, as Core Data does for incremental stores: each changed or deleted
    /// object's current node, asked for now, must have the version the object was read at; one
    /// whose version moved on, or that the subclass says is gone, is a conflict.
    func checkVersions(of changes: SaveChanges, context: ManagedObjectContext?) throws {
        var conflicts: [ManagedObjectID] = []
        for snapshot in changes.updated + changes.deleted {
            do {
                let node = try newValuesForObject(with: snapshot.id, with: context)
                if Int64(clamping: node.version) != snapshot.version { conflicts.append(snapshot.id) }
            } catch PersistenceError.objectNotFound {
                conflicts.append(snapshot.id)
            }
        }
        if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
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
