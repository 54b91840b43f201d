import Foundation
import CSQLite

/// Ordered to-many relationships in Core Data's layout: each member's position is kept in a
/// `Z_FOK_` column beside the link that makes it a member. For a to-many whose inverse is a
/// to-one, that is the destination's table, `Z_FOK_<INVERSE>` next to the foreign key `Z<INVERSE>`;
/// for one kept in a join table, the join table, `Z_FOK_<n><REL>` named after the column that holds
/// the members. Positions only need to rise along the list; they are written 1024 apart, leaving
/// room between them as Core Data's do.
extension SQLiteSchema {
    struct OrderColumn: Hashable {
        let table: String
        let column: String
    }

    static let orderColumnPrefix = "Z_FOK_"
    static let positionStep: Int64 = 1024

    /// Where the positions of an ordered to-many's members are kept; `nil` for an unordered one.
    func orderColumn(for relationship: RelationshipDescription) -> OrderColumn? {
        guard relationship.isToMany, relationship.isOrdered else { return nil }
        if let join = joinTable(for: relationship) {
            return OrderColumn(table: join.name, column: Self.orderColumnPrefix + join.destinationColumn.dropFirst("Z_".count))
        }
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity,
              let table = table(for: destination) else { return nil }
        return OrderColumn(table: table.name, column: Self.orderColumnPrefix + inverse.name.uppercased())
    }

    /// Every ordered to-many's column, once each.
    var orderColumns: [OrderColumn] {
        var seen: Set<OrderColumn> = []
        var result: [OrderColumn] = []
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                if let column = orderColumn(for: relationship), seen.insert(column).inserted { result.append(column) }
            }
        }
        return result
    }

    /// The order columns of one table, for its `CREATE TABLE`.
    func orderColumns(inTable name: String) -> [String] {
        orderColumns.filter { $0.table == name }.map(\.column)
    }
}

extension SQLiteStore {
    /// The order columns the store has: all of them in a store made here; in one made elsewhere
    /// (or by an earlier version, which kept no order) those it lacks are added when it can be
    /// written, and its ordered to-manys read in key order otherwise.
    func prepareOrderColumns(_ db: SQLiteConnection) throws {
        var present: Set<SQLiteSchema.OrderColumn> = []
        for order in schema.orderColumns {
            if try SQLiteSchemaCheck.columns(of: order.table, connection: db).contains(order.column) {
                present.insert(order)
            } else if !isReadOnly {
                try db.execute("ALTER TABLE \(order.table) ADD COLUMN \(order.column) INTEGER")
                present.insert(order)
            }
        }
        orderColumnsPresent = present
    }

    /// The column an ordered to-many's members sort by, if the store keeps it.
    func storedOrderColumn(for relationship: RelationshipDescription) -> String? {
        guard let order = schema.orderColumn(for: relationship), orderColumnsPresent.contains(order) else { return nil }
        return order.column
    }

    /// `ORDER BY` terms for a to-many's members: their positions first (members without one, linked
    /// by a program that keeps no order, after the others), then their keys.
    func memberOrder(_ relationship: RelationshipDescription, alias: String, key: String) -> String {
        guard let column = storedOrderColumn(for: relationship) else { return key }
        return "\(alias).\(column) IS NULL, \(alias).\(column), \(key)"
    }

    /// Writes the positions of the ordered to-manys a save set: every one of a new object, and
    /// those an update changed.
    func writePositions(_ changes: SaveChanges, permanent: [ManagedObjectID], resolve: (ManagedObjectID) -> ManagedObjectID,
                        db: SQLiteConnection) throws {
        guard !orderColumnsPresent.isEmpty else { return }
        // Whether an entity has an ordered to-many, asked once per entity rather than per object.
        var ordered: [ObjectIdentifier: Bool] = [:]
        func hasOrdered(_ entity: EntityDescription) -> Bool {
            if let known = ordered[ObjectIdentifier(entity)] { return known }
            let answer = entity.hasOrderedToMany
            ordered[ObjectIdentifier(entity)] = answer
            return answer
        }
        for index in changes.inserted.indices {
            let entity = changes.inserted[index].id.entity
            guard hasOrdered(entity) else { continue }
            try writePositions(changes.inserted[index].values, owner: permanent[index], slots: Array(entity.properties.indices),
                               resolve: resolve, db: db)
        }
        for snapshot in changes.updated where hasOrdered(snapshot.id.entity) {
            try writePositions(snapshot.values, owner: snapshot.id, slots: snapshot.changed, resolve: resolve, db: db)
        }
    }

    private func writePositions(_ values: [StoredValue], owner: ManagedObjectID, slots: [Int], resolve: (ManagedObjectID) -> ManagedObjectID,
                                db: SQLiteConnection) throws {
        guard let ownerKey = owner.primaryKey else { return }
        for slot in slots {
            guard let relationship = owner.entity.properties[slot] as? RelationshipDescription,
                  let column = storedOrderColumn(for: relationship), let order = schema.orderColumn(for: relationship),
                  case .toMany(.loaded(let members)) = values[slot] else { continue }
            let sql: String
            let join = schema.joinTable(for: relationship)
            if let join {
                sql = "UPDATE \(order.table) SET \(column) = ? WHERE \(join.destinationColumn) = ? AND \(join.sourceColumn) = ?"
            } else {
                sql = "UPDATE \(order.table) SET \(column) = ? WHERE Z_PK = ?"
            }
            let statement = try db.prepare(sql)
            for (position, member) in members.enumerated() {
                guard let key = resolve(member).primaryKey else { continue }
                var rc = sqlite3_bind_int64(statement, 1, Int64(position + 1) * SQLiteSchema.positionStep)
                    | sqlite3_bind_int64(statement, 2, key)
                if join != nil { rc |= sqlite3_bind_int64(statement, 3, ownerKey) }
                guard rc == SQLITE_OK else { throw db.error("binding the values of \(sql)") }
                try db.step(statement, sql: sql)
            }
        }
    }
}

extension EntityDescription {
    /// Whether the entity has an ordered to-many relationship, own or inherited.
    var hasOrderedToMany: Bool {
        properties.contains { ($0 as? RelationshipDescription).map { $0.isToMany && $0.isOrdered } ?? false }
    }
}
