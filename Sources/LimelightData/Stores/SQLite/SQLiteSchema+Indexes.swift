import Foundation

/// The indexes of one inheritance tree's table, named as Core Data names them in the stores it
/// makes (macOS 12 Photos, iOS BookLibrary, earlier Core Data stores of Notes):
///
/// - `Z<TABLE>_Z_ENT_INDEX` on `Z_ENT`, when the tree has subentities;
/// - `Z<TABLE>_<COLUMN>_INDEX` on each to-one's key (`ZASSET_ZADDITIONALATTRIBUTES_INDEX`);
/// - `Z_<Entity>_<attribute>` on an attribute marked indexed (`Z_Keyword_title`), the form
///   Core Data has used since indexes became fetch indexes; older Core Data named these like a
///   to-one's (`ZNOTE_ZINTEGERID_INDEX`), and stores made that way keep their names;
/// - `Z_<Entity>_UNIQUE_<a>_<b>` for a uniqueness constraint;
/// - `Z_<Entity>_compoundIndex`, `compoundIndex1`, `compoundIndex2` … for an entity's compound
///   indexes in turn (`Z_Asset_compoundIndex2`), numbered as columns of one name are;
/// - `Z_<Entity>_<name>` for a fetch index (`Z_Asset_byDateCreatedIndex`); an R-tree fetch index
///   is a virtual table of that name instead (`SQLiteRTreeIndex`).
///
/// Every index but a key's and `Z_ENT`'s names its columns with their collation and order
/// (`ZTITLE COLLATE BINARY ASC`), as Core Data writes them.
extension SQLiteSchema {
    func indexSQL(for table: Table) -> [String] {
        var sql: [String] = []
        var made: Set<String> = []
        func create(_ name: String, _ columns: [String], unique: Bool = false) {
            guard made.insert(name).inserted else { return }
            sql.append("CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table.name) (\(columns.joined(separator: ", ")))")
        }
        func ordered(_ column: String, ascending: Bool = true) -> String {
            column + " COLLATE BINARY " + (ascending ? "ASC" : "DESC")
        }
        if !table.root.subentities.isEmpty { create("\(table.name)_Z_ENT_INDEX", ["Z_ENT"]) }
        // Properties of one name declared by several entities of the tree have columns of their
        // own (ZPOST, ZPOST1), each indexed; in a table that shares one column among them (a
        // store made by an earlier version) that column's key index is made once.
        for entity in table.root.selfAndDescendants {
            // An explicit fetch index wins over an indexed attribute's index of the same name.
            let fetchIndexNames = Set(entity.fetchIndexes.map { "Z_\(entity.name)_\($0.name)" })
            for property in entity.ownProperties where Self.isStoredInRow(property) {
                if let relationship = property as? RelationshipDescription {
                    let column = self.column(for: relationship)
                    create("\(table.name)_\(column)_INDEX", [column])
                } else if property.isIndexed, !(property is CompositeAttributeDescription),
                          !fetchIndexNames.contains("Z_\(entity.name)_\(property.name)") {
                    // A composite's elements are indexed through fetch indexes naming them
                    // (`magnitude.richter`); the attribute itself has no column to index.
                    create("Z_\(entity.name)_\(property.name)", [ordered(self.column(for: property))])
                }
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                create("Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_"))",
                       constraint.map { ordered(column(forKeyPath: $0, of: entity)) }, unique: true)
            }
            var compoundNames = SQLiteColumnNamer()
            for index in entity.compoundIndexes where !index.isEmpty
                && index.allSatisfy({ table.columnIndex[column(forKeyPath: $0, of: entity)] != nil }) {
                var name: String
                repeat { name = "Z_\(entity.name)_" + compoundNames.uniqueName("compoundIndex") }
                while made.contains(name) || fetchIndexNames.contains(name)
                create(name, index.map { ordered(column(forKeyPath: $0, of: entity)) })
            }
            // An R-tree index is a virtual table with triggers (`rTreeIndexes`), not an index.
            for index in entity.fetchIndexes where !index.elements.isEmpty && index.kind == .binary {
                // An element of a composite by its key path (`magnitude.richter`); a whole
                // composite as all its element columns.
                let columns = index.elements.flatMap { element -> [String] in
                    let names = (entity.property(named: element.property) as? CompositeAttributeDescription).map { Self.compositeColumns($0).map(\.column) }
                        ?? [column(forKeyPath: element.property, of: entity)]
                    return names.map { ordered($0, ascending: element.ascending) }
                }
                create("Z_\(entity.name)_\(index.name)", columns)
            }
        }
        return sql
    }
}
