import Foundation

/// A store that keeps rows in memory only: for tests, caches and scratch graphs. Predicates are
/// evaluated by the context against the objects.
final class InMemoryStore: PersistentStore, @unchecked Sendable {
    private var rowsByID: [ManagedObjectID: StoreRow] = [:]
    private var nextKey: [ObjectIdentifier: Int64] = [:]

    init(url: URL?, configurationName: String?, options: [String: any Sendable], model: ManagedObjectModel) {
        super.init(type: .inMemory, url: url, configurationName: configurationName, options: options, model: model)
        metadata = ["NSStoreType": StoreType.inMemory.rawValue, "NSStoreUUID": identifier]
    }

    override var evaluatesPredicates: Bool { false }

    override func fetchRows(_ fetch: StoreFetch) throws -> [StoreRow] {
        let entities = Set(fetch.entities.map(ObjectIdentifier.init))
        return rowsByID.values.filter { entities.contains(ObjectIdentifier($0.id.entity)) }
            .sorted { ($0.id.primaryKey ?? 0) < ($1.id.primaryKey ?? 0) }
            .map(faultedToMany)
    }

    override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        ids.compactMap { rowsByID[$0] }.map(faultedToMany)
    }

    private func faultedToMany(_ row: StoreRow) -> StoreRow { row }

    override func relatedIDs(of id: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        guard let row = rowsByID[id], let index = id.entity.index(of: relationship.name),
              case .toMany(.loaded(let ids)) = row.values[index] else { return [] }
        return ids.ids
    }

    override func save(_ changes: SaveChanges) throws -> [ManagedObjectID] {
        var conflicts: [ManagedObjectID] = []
        for snapshot in changes.updated + changes.deleted where rowsByID[snapshot.id]?.version != snapshot.version {
            conflicts.append(snapshot.id)
        }
        if !conflicts.isEmpty { throw PersistenceError.conflict(objects: conflicts) }
        let permanent = try obtainPermanentIDs(for: changes.inserted.map(\.id))
        var mapping = PermanentIDMapping(snapshots: changes.inserted, permanent: permanent)
        func resolved(_ values: [StoredValue]) -> [StoredValue] {
            values.map { value in
                switch value {
                case .objectID(let id): return .objectID(mapping.resolve(id))
                case .toMany(.loaded(let ids)): return .toMany(.loaded(RelatedIDs(ids.map { mapping.resolve($0) })))
                default: return value
                }
            }
        }
        for snapshot in changes.deleted { rowsByID[snapshot.id] = nil }
        for (snapshot, id) in zip(changes.inserted, permanent) {
            rowsByID[id] = StoreRow(id: id, version: 1, values: resolved(snapshot.values))
        }
        for snapshot in changes.updated {
            rowsByID[snapshot.id] = StoreRow(id: snapshot.id, version: snapshot.version + 1, values: resolved(snapshot.values))
        }
        return permanent
    }

    override func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        ids.map { id in
            guard id.isTemporaryID else { return id }
            let root = ObjectIdentifier(id.entity.rootEntity)
            let key = (nextKey[root] ?? 0) + 1
            nextKey[root] = key
            return objectID(entity: id.entity, primaryKey: key)
        }
    }
}
