import Foundation

/// What contexts read from an atomic store: its nodes as store rows. Predicates, sorting and
/// paging are the context's (`evaluatesPredicates` is false), so a fetch hands over every node of
/// the entities asked for.
extension AtomicStore {
    /// Every node of the entities `fetch` asks for, as rows in key order.
    func nodeRows(_ fetch: StoreFetch) -> [StoreRow] {
        let entities = Set(fetch.entities.map(ObjectIdentifier.init))
        return nodesByID.values.filter { entities.contains(ObjectIdentifier($0.objectID.entity)) }
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            .map(row)
    }

    /// The node as the row a context makes an object of, kept in the node until its values change.
    func row(_ node: AtomicStoreCacheNode) -> StoreRow {
        if let row = node.row, row.version == node.version { return row }
        let cache = node.propertyCache ?? [:]
        let row = StoreRow(id: node.objectID, version: node.version, value: { cache[$0.name] }, toOne: Self.destination) {
            .loaded(RelatedIDs(Self.destinations($1, ordered: $0.isOrdered)))
        }
        node.row = row
        return row
    }

    /// A to-one's destination as a node cache holds it: a node, or an ID.
    static func destination(_ value: Any?) -> ManagedObjectID? {
        switch value {
        case let node as AtomicStoreCacheNode: node.objectID
        case let id as ManagedObjectID: id
        default: nil
        }
    }

    /// A to-many's destinations as a node cache holds them: a set or an array of nodes (or of
    /// IDs). A set has no order of its own: its members are listed by key, so that reading the
    /// same store twice gives the same order.
    static func destinations(_ value: Any?, ordered: Bool) -> [ManagedObjectID] {
        let ids: [ManagedObjectID]
        let keeps: Bool
        switch value {
        case let nodes as [AtomicStoreCacheNode]: (ids, keeps) = (nodes.map(\.objectID), true)
        case let nodes as Set<AtomicStoreCacheNode>: (ids, keeps) = (nodes.map(\.objectID), false)
        case let list as [ManagedObjectID]: (ids, keeps) = (list, true)
        case let set as Set<ManagedObjectID>: (ids, keeps) = (Array(set), false)
        default: return []
        }
        if keeps && ordered { return ids }
        return keeps ? ids : ids.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
    }
}
