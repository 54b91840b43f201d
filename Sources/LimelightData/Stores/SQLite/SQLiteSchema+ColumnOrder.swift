import Foundation

/// The order of a new table's columns, as Core Data's `CREATE TABLE` lists them.
///
/// Core Data sorts a tree's column list by kind, keeping the list's own order within a kind:
/// integers (attributes, to-one keys, then the ordering columns), dates and floating point
/// together, strings, transformables, then other binary values. The list it sorts runs entity by
/// entity in entity-number order, each entity's attributes by name and then its to-ones by name.
/// Notes' `ZICCLOUDSYNCINGOBJECT` and Photos' `ZASSET` are laid out so.
///
/// Only the file's look depends on this: every statement here names its columns, and no reading
/// or writing goes by a column's position.
extension SQLiteSchema {
    /// `table`'s columns after `Z_PK`, `Z_ENT` and `Z_OPT`, each with its type, in Core Data's order.
    func columnDefinitionsInCoreDataOrder(of table: Table) -> [String] {
        var listed: [(kind: Int, definition: String)] = []
        var seen: Set<String> = []
        func add(_ column: String, kind: Int? = nil) {
            guard seen.insert(column).inserted else { return }
            let type = columnType(column, in: table)
            listed.append((kind ?? Self.kind(ofColumnType: type), "\(column) \(type)"))
        }
        for entity in table.root.selfAndDescendants.sorted(by: { number(of: $0) < number(of: $1) }) {
            let stored = entity.ownProperties.filter(Self.isStoredInRow)
            let attributes = stored.filter { !($0 is RelationshipDescription) }.sorted { $0.name < $1.name }
            let toOnes = stored.filter { $0 is RelationshipDescription }.sorted { $0.name < $1.name }
            for property in attributes + toOnes {
                let transformable = (property as? AttributeDescription)?.attributeType == .transformable
                for column in columnNames(of: property, in: table) {
                    add(column, kind: transformable ? Self.transformableKind : nil)
                }
            }
        }
        // Any column the walk above did not reach keeps its place at the end of its kind.
        for column in table.columns { add(column) }
        var result = listed
        for column in orderColumns(inTable: table.name) where seen.insert(column).inserted {
            result.append((Self.kind(ofColumnType: "INTEGER"), "\(column) INTEGER"))
        }
        // Sorted by kind alone, ties kept in list order.
        return result.enumerated().sorted { ($0.element.kind, $0.offset) < ($1.element.kind, $1.offset) }.map(\.element.definition)
    }

    private static let transformableKind = 3

    private static func kind(ofColumnType type: String) -> Int {
        switch type {
        case "INTEGER": return 0
        case "FLOAT", "TIMESTAMP", "DECIMAL": return 1
        case "VARCHAR": return 2
        case "BLOB": return 4
        default: return 5
        }
    }
}
