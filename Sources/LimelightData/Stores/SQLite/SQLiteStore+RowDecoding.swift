import Foundation
import CSQLite

extension SQLiteStore {
    /// Where each of an entity's properties is in a `SELECT *`-style row of its table. A class:
    /// every row takes its entity's layout, one reference rather than one per array it holds.
    final class RowLayout {
        /// Slots carry plain numbers, so reading one for every value of every row copies no
        /// reference; the property itself is in `properties` when a rarer path needs it.
        enum Slot {
            case attribute(column: Int32, type: AttributeType)
            case toOne(column: Int32, typeColumn: Int32?)
            case toMany
            /// Not in the row, or a composite attribute (read after the loop, from `composites`).
            case none
        }
        let slots: [Slot]
        let properties: [PropertyDescription]
        /// Each to-one's destination entity, by slot, looked up once: read from the relationship
        /// for every row, it cost a weak load and a cast each time.
        let destinations: [EntityDescription?]
        /// The composite attributes' slots and columns, read apart so the loop over slots is
        /// the same with composites or without.
        let composites: [(slot: Int, columns: SQLiteCompositeColumns)]

        init(slots: [Slot], properties: [PropertyDescription], composites: [(slot: Int, columns: SQLiteCompositeColumns)]) {
            (self.slots, self.properties, self.composites) = (slots, properties, composites)
            destinations = properties.map { ($0 as? RelationshipDescription)?.destinationEntity }
        }
    }

    func layout(for entity: EntityDescription, table: SQLiteSchema.Table) -> RowLayout {
        var composites: [(slot: Int, columns: SQLiteCompositeColumns)] = []
        let slots: [RowLayout.Slot] = entity.properties.enumerated().map { index, property in
            if let composite = property as? CompositeAttributeDescription {
                if SQLiteSchema.isStoredInRow(composite), let columns = SQLiteCompositeColumns(composite, table: table, offset: 3) {
                    composites.append((index, columns))
                }
                return .none
            }
            if let relationship = property as? RelationshipDescription {
                if relationship.isToMany { return .toMany }
                guard let position = table.columnIndex[schema.column(for: relationship)] else { return .none }
                let typeColumn = schema.typeColumn(for: relationship).flatMap { table.columnIndex[$0] }.map { Int32($0 + 3) }
                return .toOne(column: Int32(position + 3), typeColumn: typeColumn)
            }
            guard let attribute = property as? AttributeDescription, SQLiteSchema.isStoredInRow(attribute),
                  let position = table.columnIndex[schema.column(for: attribute)] else { return .none }
            return .attribute(column: Int32(position + 3), type: attribute.attributeType)
        }
        return RowLayout(slots: slots, properties: entity.properties, composites: composites)
    }

    /// The layouts one fetch decodes with, and the last one used: rows of one entity follow each
    /// other, so most rows need no lookup at all.
    struct RowLayouts {
        var byNumber: [Int: (entity: EntityDescription, layout: RowLayout)] = [:]
        var last: (number: Int, entity: EntityDescription, layout: RowLayout)?
    }

    /// The row `statement` is on, as its entity's values. A row whose `Z_PK` is NULL, whose
    /// `Z_ENT` names no entity of this table's inheritance tree, or with a value its attribute
    /// cannot take is refused with a `StoreDamage` naming it: skipping it would hide data and
    /// guessing would change it. Bytes a transformer cannot decode are the exception: they read
    /// as nil, as in Core Data (`acceptUndecodable`).
    func decode(_ statement: OpaquePointer, table: SQLiteSchema.Table, layouts: inout RowLayouts) throws -> StoreRow {
        let row = try decodeKeyed(statement, table: table, layouts: &layouts)
        return StoreRow(id: objectID(entity: row.entity, primaryKey: row.primaryKey), version: row.version, values: row.values)
    }

    /// A row as `decode` reads it, named by its entity and key instead of an object ID: for a
    /// caller that holds the row's ID already (batch faulting's members), so none is made again.
    struct KeyedRow {
        let primaryKey: Int64
        let entity: EntityDescription
        let version: Int64
        let values: [StoredValue]
    }

    /// `decode`, without making the row's object ID.
    func decodeKeyed(_ statement: OpaquePointer, table: SQLiteSchema.Table, layouts: inout RowLayouts) throws -> KeyedRow {
        let (pk, entity, layout) = try rowEntity(statement, table: table, layouts: &layouts)
        // Each slot is written once (no nil first, then the value); the common attribute values
        // without a call or a reference taken per value, the property looked at only for the rest.
        // The array is reserved and appended to rather than made with `unsafeUninitializedCapacity`:
        // that one allocates through the standard library's unspecialised code, which looked up
        // the array's generic metadata in the runtime's table for every row (about 300 instructions).
        var values: [StoredValue] = []
        values.reserveCapacity(layout.slots.count)
        do {
            try layout.slots.withUnsafeBufferPointer { slots throws(SQLiteValueMapping.Mismatch) in
                for index in slots.indices {
                    switch slots[index] {
                    case .attribute(let column, let type):
                        if let common = SQLiteValueMapping.commonValue(statement, column: column, type: type) {
                            values.append(common)
                        } else {
                            values.append(try otherValue(statement, column: column, property: layout.properties[index], of: entity, primaryKey: pk))
                        }
                    case .toOne(let column, let typeColumn):
                        values.append(toOneValue(statement, column: column, typeColumn: typeColumn, destination: layout.destinations[index]))
                    case .toMany:
                        values.append(.toMany(.fault))
                    case .none:
                        values.append(.null)
                    }
                }
            }
            for (slot, columns) in layout.composites { values[slot] = try columns.value(statement, external: externalBinaryData) }
        } catch {
            throw damage(table, entity: entity, primaryKey: pk, column: error.column, reason: error.reason)
        }
        return KeyedRow(primaryKey: pk, entity: entity, version: sqlite3_column_int64(statement, 2), values: values)
    }

    /// The key, entity and layout of the row `statement` is on (its first two columns are `Z_PK`
    /// and `Z_ENT`), or a `StoreDamage` when either is not what the table's rows must have.
    func rowEntity(_ statement: OpaquePointer, table: SQLiteSchema.Table, layouts: inout RowLayouts) throws
        -> (primaryKey: Int64, entity: EntityDescription, layout: RowLayout) {
        guard let (pk, entityNumber) = Self.integerKeys(statement) else { throw keyDamage(statement, table: table) }
        let number = Int(entityNumber)
        if let last = layouts.last, last.number == number {
            return (pk, last.entity, last.layout)
        }
        if let known = layouts.byNumber[number] {
            layouts.last = (number, known.entity, known.layout)
            return (pk, known.entity, known.layout)
        }
        guard let found = schema.entitiesByNumber[number], found.rootIdentity == table.root.rootIdentity else {
            throw entityDamage(statement, table: table, primaryKey: pk, number: number)
        }
        let layout = self.layout(for: found, table: table)
        layouts.byNumber[number] = (found, layout)
        layouts.last = (number, found, layout)
        return (pk, found, layout)
    }

    /// `Z_PK` and `Z_ENT` of the row `statement` is on (its first two columns) when both are
    /// integers, as in every row a store writes; nil otherwise (`keyDamage` says which is wrong).
    /// Each column is read through one `sqlite3_column_value` and the value's own readers: every
    /// `sqlite3_column_…` call looks the column up and settles the connection's error state
    /// again, and a checked read of both columns took four of them.
    @inline(__always)
    static func integerKeys(_ statement: OpaquePointer) -> (primaryKey: Int64, entityNumber: Int64)? {
        guard let key = sqlite3_column_value(statement, 0), let number = sqlite3_column_value(statement, 1),
              sqlite3_value_type(key) == SQLITE_INTEGER, sqlite3_value_type(number) == SQLITE_INTEGER else { return nil }
        return (sqlite3_value_int64(key), sqlite3_value_int64(number))
    }

    /// What is wrong with a row whose `Z_PK` or `Z_ENT` is not an integer, naming the row.
    func keyDamage(_ statement: OpaquePointer, table: SQLiteSchema.Table) -> PersistenceError {
        guard sqlite3_column_type(statement, 0) == SQLITE_INTEGER else {
            return damage(table, reason: "a row's Z_PK is \(SQLiteValueMapping.describe(SQLiteValue(statement: statement, column: 0))), not an integer key")
        }
        return entityDamage(statement, table: table, primaryKey: sqlite3_column_int64(statement, 0),
                            number: Int(sqlite3_column_int64(statement, 1)))
    }

    /// A row whose `Z_ENT` (`number`, as read) names no entity of `table`'s inheritance tree.
    private func entityDamage(_ statement: OpaquePointer, table: SQLiteSchema.Table, primaryKey pk: Int64, number: Int) -> PersistenceError {
        let value = SQLiteValueMapping.describe(SQLiteValue(statement: statement, column: 1))
        let other = schema.entitiesByNumber[number].map { " (entity \($0.name), which is kept in another table)" } ?? ""
        return damage(table, primaryKey: pk, column: "Z_ENT",
                      reason: "Z_ENT is \(value)\(other), not the number of an entity of \(table.root.name) or its sub-entities")
    }

    /// A value `commonValue` does not read, with its column's name added to a refusal; bytes a
    /// transformer cannot decode read as nil (`acceptUndecodable`).
    private func otherValue(_ statement: OpaquePointer, column: Int32, property: PropertyDescription, of entity: EntityDescription,
                            primaryKey: Int64) throws(SQLiteValueMapping.Mismatch) -> StoredValue {
        let attribute = property as? AttributeDescription
        do {
            return try SQLiteValueMapping.otherValue(statement, column: column, external: externalBinaryData, attribute: attribute)
        } catch {
            var named = error
            named.column = attribute.map { schema.column(for: $0) } ?? String(cString: sqlite3_column_name(statement, column))
            if let attribute, named.isUndecodable {
                try acceptUndecodable(named, attribute: attribute, entity: entity, primaryKey: primaryKey)
                return .null
            }
            throw named
        }
    }

    /// A `StoreDamage` in `table` of this store, as a `PersistenceError`.
    func damage(_ table: SQLiteSchema.Table, entity: EntityDescription? = nil, primaryKey: Int64? = nil,
                column: String? = nil, reason: String) -> PersistenceError {
        .damagedStore(StoreDamage(path: path, table: table.name, entity: entity?.name, column: column, primaryKey: primaryKey, reason: reason))
    }

    /// A to-one's destination ID from its foreign key (and entity column, for a destination with
    /// sub-entities).
    private func toOneValue(_ statement: OpaquePointer, column: Int32, typeColumn: Int32?, destination: EntityDescription?) -> StoredValue {
        // Each column through one `sqlite3_column_value`, as `integerKeys` reads them.
        guard let key = sqlite3_column_value(statement, column), sqlite3_value_type(key) != SQLITE_NULL, var destination else { return .null }
        if let typeColumn, let type = sqlite3_column_value(statement, typeColumn), sqlite3_value_type(type) != SQLITE_NULL,
           let actual = schema.entitiesByNumber[Int(sqlite3_value_int64(type))] {
            destination = actual
        }
        return .objectID(objectID(entity: destination, primaryKey: sqlite3_value_int64(key)))
    }
}
