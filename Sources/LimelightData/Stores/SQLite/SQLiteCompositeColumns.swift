import Foundation
import CSQLite

/// A composite attribute in an SQLite store: one column per leaf element in the entity's table,
/// named by `SQLiteSchema.columnName(forPath:)` (`ZMAGNITUDE_RICHTER`), of the element type's
/// usual column type, holding the element's value as a plain attribute's column would.
///
/// This is the most plausible reading of Core Data's "flattened" composites; no store written by
/// Core Data with a composite was available to check it against, so the layout is unverified.
/// Reading gives the composite's dictionary back; a composite whose every element is NULL reads
/// as `nil` when the attribute is optional, and as an empty dictionary when it is required
/// (`CompositeValues.dictionary(leaves:of:paths:)`).
struct SQLiteCompositeColumns {
    let composite: CompositeAttributeDescription
    /// The leaf elements: their columns, paths below the composite and attributes.
    let leaves: [(column: String, path: [String], attribute: AttributeDescription)]
    /// The leaves' paths, kept apart for reading rows.
    let paths: [[String]]
    /// Where each leaf's column is in a row a fetch reads (empty when only writing).
    let positions: [Int32]

    /// The composite's columns for writing.
    init(_ composite: CompositeAttributeDescription) {
        self.composite = composite
        leaves = SQLiteSchema.compositeColumns(composite)
        paths = leaves.map(\.path)
        positions = []
    }

    /// The composite's columns in rows of `table` selected with `offset` columns before the
    /// table's own (`Z_PK, Z_ENT, Z_OPT`); `nil` when the table lacks one of them.
    init?(_ composite: CompositeAttributeDescription, table: SQLiteSchema.Table, offset: Int) {
        self.composite = composite
        leaves = SQLiteSchema.compositeColumns(composite)
        paths = leaves.map(\.path)
        var positions: [Int32] = []
        for leaf in leaves {
            guard let position = table.columnIndex[leaf.column] else { return nil }
            positions.append(Int32(position + offset))
        }
        self.positions = positions
    }

    /// The composite's columns at `positions` of a row, in `leafElements` order (a dictionary
    /// fetch selects them one after the other).
    init(_ composite: CompositeAttributeDescription, positions: [Int32]) {
        self.composite = composite
        leaves = SQLiteSchema.compositeColumns(composite)
        paths = leaves.map(\.path)
        self.positions = positions
    }

    var columns: [String] { leaves.map(\.column) }

    /// The composite's value in the current row of `statement`.
    func value(_ statement: OpaquePointer, external: ExternalBinaryData) throws(SQLiteValueMapping.Mismatch) -> StoredValue {
        var values: [Any?] = []
        values.reserveCapacity(leaves.count)
        for (leaf, column) in zip(leaves, positions) {
            let type = leaf.attribute.attributeType
            if let common = SQLiteValueMapping.commonValue(statement, column: column, type: type) {
                values.append(common.value)
                continue
            }
            do {
                values.append(try SQLiteValueMapping.otherValue(statement, column: column, external: external, attribute: leaf.attribute).value)
            } catch {
                var named = error
                named.column = leaf.column
                throw named
            }
        }
        return value(leaves: values)
    }

    /// The composite's value from its leaves' values, in `leaves` order.
    func value(leaves values: [Any?]) -> StoredValue {
        guard let dictionary = CompositeValues.dictionary(leaves: values, of: composite, paths: paths) else { return .null }
        return StoredValue(present: dictionary)
    }

    /// The column values of a composite's stored value, in `leaves` order: NULL for an element
    /// without a value (all of them for a composite without one).
    func sqlValues(_ stored: StoredValue) throws -> [SQLiteValue] {
        let dictionary = CompositeValues.dictionary(stored.value)
        return try leaves.map { leaf in
            try SQLiteValueMapping.sqlValue(CompositeValues.value(at: leaf.path, in: dictionary), for: leaf.attribute)
        }
    }
}
