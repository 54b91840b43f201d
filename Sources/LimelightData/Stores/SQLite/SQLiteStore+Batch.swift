import Foundation
import CSQLite

/// Batch deletes and updates: SQL over many rows in one transaction, with what a save would have
/// kept in step kept in step here too (delete rules, join rows, `Z_OPT`, the marker journal).
extension SQLiteStore {
    /// Deletes the rows `ids` names (those that exist) or `fetch` matches, and what their Cascade
    /// rules reach; returns the IDs deleted. A Deny rule with a related object refuses it all.
    func batchDelete(ids given: [ManagedObjectID]?, matching fetch: StoreFetch?, origin: SaveOrigin) throws -> [ManagedObjectID] {
        try inWriteTransaction(failing: "batch request failed") { db in
            var targets = try given.map { try existing($0, db: db) } ?? fetch.map { try sqliteFetchIDs($0) } ?? []
            // Reads first: every row the rules reach, and every Deny, before anything is written.
            var deleting = Set(targets)
            var position = 0
            var nullified: [(inverse: RelationshipDescription, table: String, keys: [Int64])] = []
            while position < targets.count {
                let group = Dictionary(grouping: targets[position...], by: { ObjectIdentifier($0.entity) })
                position = targets.count
                for ids in group.values {
                    guard let entity = ids.first?.entity else { continue }
                    let keys = ids.compactMap(\.primaryKey)
                    for case let relationship as RelationshipDescription in entity.properties {
                        let related = try relatedRows(of: keys, through: relationship, db: db)
                        switch relationship.deleteRule {
                        case .deny:
                            if let first = related.first(where: { !deleting.contains($0) }) {
                                throw PersistenceError.invalidRequest("batch delete refused: \(entity.name).\(relationship.name) is Deny and \(first) is related; nothing was deleted")
                            }
                        case .cascade:
                            for id in related where deleting.insert(id).inserted { targets.append(id) }
                        case .nullify, .noAction:
                            break
                        }
                        // A to-one on the other side points at the deleted rows: it is cleared
                        // (Nullify), or, as Core Data does, left for No Action.
                        if relationship.deleteRule != .noAction, let inverse = relationship.inverseRelationship, !inverse.isToMany,
                           let destination = inverse.entity, let table = schema.table(for: destination) {
                            nullified.append((inverse, table.name, keys))
                        }
                    }
                }
            }
            // Persistent history keeps some values of deleted objects: read before they go.
            var tombstones: [ManagedObjectID: [StoredValue]] = [:]
            if historyRecorder != nil {
                let keeping = deleting.filter { !SQLiteHistoryLayout.tombstoneAttributes(of: $0.entity).isEmpty }
                if !keeping.isEmpty { try sqliteRows(for: Array(keeping)) { tombstones[$0.id] = $0.values } }
            }
            // Then the writes: links cleared, join rows and rows deleted.
            var updated: [ObjectSnapshot] = []
            for (inverse, table, keys) in nullified {
                let column = schema.column(for: inverse)
                let clear = ([column] + (schema.typeColumn(for: inverse).map { [$0] } ?? [])).map { "\($0) = NULL" }.joined(separator: ", ")
                for list in Self.keyLists(keys) {
                    // The rows whose link is cleared are changed objects: their markers may show it.
                    try db.query("SELECT Z_PK, Z_ENT FROM \(table) WHERE \(column) IN (\(list))", cached: false) { row in
                        guard let entity = schema.entitiesByNumber[Int(sqlite3_column_int64(row, 1))], let slot = entity.index(of: inverse.name) else { return }
                        let id = objectID(entity: entity, primaryKey: sqlite3_column_int64(row, 0))
                        if !deleting.contains(id) { updated.append(ObjectSnapshot(id: id, values: [], version: 0, changed: [slot])) }
                    }
                    try db.execute("UPDATE \(table) SET \(clear), Z_OPT = Z_OPT + 1 WHERE \(column) IN (\(list))")
                }
            }
            for ids in Dictionary(grouping: deleting, by: { ObjectIdentifier($0.entity) }).values {
                guard let first = ids.first, let table = schema.table(for: first.entity) else { continue }
                let keys = ids.compactMap(\.primaryKey)
                for list in Self.keyLists(keys) {
                    for case let relationship as RelationshipDescription in first.entity.properties {
                        guard let join = schema.joinTable(for: relationship) else { continue }
                        try db.execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN (\(list))")
                    }
                    try db.execute("DELETE FROM \(table.name) WHERE Z_PK IN (\(list))")
                }
            }
            let deleted = Array(deleting)
            let snapshots = deleted.map { ObjectSnapshot(id: $0, values: tombstones[$0] ?? [], version: 0, changed: []) }
            return (deleted, SaveChanges(updated: updated, deleted: snapshots, origin: origin), [])
        }
    }

    /// Sets `values` (attribute name → value) on every row `fetch` matches; returns their IDs.
    func batchUpdate(_ fetch: StoreFetch, values: [String: Any], origin: SaveOrigin) throws -> [ManagedObjectID] {
        guard let table = schema.table(for: fetch.entity) else { return [] }
        var assignments: [(column: String, value: SQLiteValue, slot: Int)] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            let first = String(key.split(separator: ".", omittingEmptySubsequences: false).first ?? "")
            if let slot = fetch.entity.index(of: first), let composite = fetch.entity.properties[slot] as? CompositeAttributeDescription,
               !composite.isTransient {
                let path = key.split(separator: ".", omittingEmptySubsequences: false).dropFirst().map(String.init)
                assignments += try compositeAssignments(composite, path: path, value: value, entity: fetch.entity)
                    .map { (column: $0.column, value: $0.value, slot: slot) }
                continue
            }
            guard let slot = fetch.entity.index(of: key), let attribute = fetch.entity.properties[slot] as? AttributeDescription,
                  !attribute.isTransient else {
                throw PersistenceError.invalidRequest("batch update of \(fetch.entity.name): '\(key)' is not a stored attribute")
            }
            let given: Any? = value is NSNull ? nil : value
            if given == nil, !attribute.isOptional {
                throw PersistenceError.invalidRequest("batch update of \(fetch.entity.name): '\(key)' is required and cannot be set to nil")
            }
            let stored = AttributeValueCoercion.coerce(StoredValue(given), to: attribute.attributeType) ?? StoredValue(given)
            guard AttributeValueCoercion.isCanonical(stored, for: attribute.attributeType) || stored.isNull else {
                throw PersistenceError.invalidRequest("batch update of \(fetch.entity.name): \(Swift.type(of: value)) is no \(attribute.attributeType.rawValue) for '\(key)'")
            }
            assignments.append((schema.column(for: attribute), try SQLiteValueMapping.sqlValue(stored, for: attribute), slot))
        }
        guard !assignments.isEmpty else { return [] }
        return try inWriteTransaction(failing: "batch request failed") { db in
            let ids = try sqliteFetchIDs(fetch)
            let set = (assignments.map { "\($0.column) = ?" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
            for list in Self.keyLists(ids.compactMap(\.primaryKey)) {
                _ = try db.run("UPDATE \(table.name) SET \(set) WHERE Z_PK IN (\(list))", assignments.map(\.value))
            }
            let slots = Array(Set(assignments.map(\.slot))).sorted()
            return (ids, SaveChanges(updated: ids.map { ObjectSnapshot(id: $0, values: [], version: 0, changed: slots) }, origin: origin), [])
        }
    }

    /// The columns a batch update sets for `value` given to a composite (`magnitude`, `path`
    /// empty) or to one of its elements (`magnitude.richter`, `path` `["richter"]`).
    private func compositeAssignments(_ composite: CompositeAttributeDescription, path: [String], value: Any,
                                      entity: EntityDescription) throws -> [(column: String, value: SQLiteValue)] {
        let key = ([composite.name] + path).joined(separator: ".")
        func refuse(_ reason: String) -> PersistenceError { .invalidRequest("batch update of \(entity.name): '\(key)' \(reason)") }
        guard let element = path.isEmpty ? composite : composite.element(atPath: path) else {
            throw refuse("names no element of the composite \(composite.name)")
        }
        let given: Any? = value is NSNull ? nil : value
        if given == nil, !element.isOptional { throw refuse("is required and cannot be set to nil") }
        guard let nested = element as? CompositeAttributeDescription else {
            let stored = given.map { AttributeValueCoercion.coerce($0, to: element.attributeType) ?? $0 }
            if let stored, !AttributeValueCoercion.isCanonical(stored, for: element.attributeType) {
                throw refuse("takes \(element.attributeType.rawValue), not \(Swift.type(of: value))")
            }
            return [(SQLiteSchema.columnName(forPath: [composite.name] + path), try SQLiteValueMapping.sqlValue(stored, for: element))]
        }
        var dictionary: [String: Any]?
        if let given {
            do {
                dictionary = try CompositeValues.canonical(given, for: nested)
            } catch {
                throw refuse("cannot take the value: \(error)")
            }
        }
        return try nested.leafElements.map { leaf in
            (SQLiteSchema.columnName(forPath: [composite.name] + path + leaf.path),
             try SQLiteValueMapping.sqlValue(CompositeValues.value(at: leaf.path, in: dictionary), for: leaf.attribute))
        }
    }

    /// Those of `ids` in this store whose rows exist, with the entity their row says.
    private func existing(_ ids: [ManagedObjectID], db: SQLiteConnection) throws -> [ManagedObjectID] {
        var found: [ManagedObjectID] = []
        for group in Dictionary(grouping: ids, by: { $0.entity.rootIdentity }).values {
            guard let first = group.first, let table = schema.table(for: first.entity) else { continue }
            for list in Self.keyLists(group.compactMap(\.primaryKey)) {
                found += try objectIDs("SELECT Z_PK, Z_ENT FROM \(table.name) WHERE Z_PK IN (\(list))", db: db)
            }
        }
        return found
    }

    /// The rows `relationship` links the rows `keys` (of its entity) to, with their entities.
    private func relatedRows(of keys: [Int64], through relationship: RelationshipDescription, db: SQLiteConnection) throws -> [ManagedObjectID] {
        guard let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination),
              let source = relationship.entity, let sourceTable = schema.table(for: source) else { return [] }
        let sql: (String) -> String
        if let join = schema.joinTable(for: relationship) {
            sql = { "SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN (\($0))" }
        } else if !relationship.isToMany {
            let column = schema.column(for: relationship)
            sql = { "SELECT d.Z_PK, d.Z_ENT FROM \(sourceTable.name) s JOIN \(destinationTable.name) d ON d.Z_PK = s.\(column) WHERE s.Z_PK IN (\($0))" }
        } else if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            let column = schema.column(for: inverse)
            sql = { "SELECT Z_PK, Z_ENT FROM \(destinationTable.name) WHERE \(column) IN (\($0))" }
        } else {
            return []
        }
        return try Self.keyLists(keys).flatMap { try objectIDs(sql($0), db: db) }
    }

    /// The IDs of the rows a `SELECT Z_PK, Z_ENT …` gives.
    private func objectIDs(_ sql: String, db: SQLiteConnection) throws -> [ManagedObjectID] {
        var ids: [ManagedObjectID] = []
        try db.query(sql, cached: false) { row in
            if let entity = schema.entitiesByNumber[Int(sqlite3_column_int64(row, 1))] {
                ids.append(objectID(entity: entity, primaryKey: sqlite3_column_int64(row, 0)))
            }
        }
        return ids
    }
}
