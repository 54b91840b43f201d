import Foundation

/// Names the columns of one inheritance tree's table as Core Data's SQLite store does, so that
/// properties of one name declared by several entities of a tree (two sibling subentities'
/// `post`) get columns of their own, numbered as Core Data numbers them: `ZPOST`, then `ZPOST1`.
///
/// Core Data keeps one name generator per table. Each stored property that is not inherited
/// asks it for `Z` + its uppercased name, in this order: the root entity, then each subentity
/// depth first, subentities by name (the order of `Z_ENT` numbers); within an entity its
/// attributes by name, then its to-ones by name, each to-one's foreign key before the column of
/// its destination's entity number (`Z<n>_<NAME>`). A name not asked for before is given as it
/// is; a name asked for again gets the next number that makes a name no one asked for, and the
/// generator remembers that number for the name.
///
/// The store Apple Notes makes bears this out over its whole tree: an attachment's, a note's and
/// a folder's title are `ZTITLE`, `ZTITLE1`, `ZTITLE2`, and nine entities' to-ones to the account
/// `ZACCOUNT` to `ZACCOUNT8`, in the order of their entity numbers. Whether a name is asked for in
/// entity order across kinds of columns, or kind by kind as Core Data orders a table's columns
/// (integers and keys, then dates and numbers, strings, data), no store at hand shows: none
/// gives one name to columns of two kinds.
struct SQLiteColumnNamer {
    private var lastNumbers: [String: Int] = [:]

    mutating func uniqueName(_ base: String) -> String {
        guard var number = lastNumbers[base] else {
            lastNumbers[base] = 0
            return base
        }
        var candidate: String
        repeat {
            number += 1
            candidate = base + String(number)
        } while lastNumbers[candidate] != nil
        lastNumbers[base] = number
        return candidate
    }

    /// The columns of every stored attribute and to-one declared in `root`'s tree, by property;
    /// `numbers` are the entities' `Z_ENT` numbers. Composite attributes are left to
    /// `SQLiteSchema.compositeColumns`.
    static func columns(ofTree root: EntityDescription, numbers: [ObjectIdentifier: Int])
        -> (values: [ObjectIdentifier: String], types: [ObjectIdentifier: String]) {
        var namer = SQLiteColumnNamer()
        var values: [ObjectIdentifier: String] = [:]
        var types: [ObjectIdentifier: String] = [:]
        for entity in root.selfAndDescendants {
            let stored = entity.ownProperties.filter(SQLiteSchema.isStoredInRow)
            for attribute in stored.filter({ !($0 is RelationshipDescription) && !($0 is CompositeAttributeDescription) })
                .sorted(by: { $0.name < $1.name }) {
                values[ObjectIdentifier(attribute)] = namer.uniqueName(SQLiteSchema.columnName(forPath: [attribute.name]))
            }
            for relationship in stored.compactMap({ $0 as? RelationshipDescription }).sorted(by: { $0.name < $1.name }) {
                values[ObjectIdentifier(relationship)] = namer.uniqueName(SQLiteSchema.columnName(forPath: [relationship.name]))
                if let base = SQLiteSchema.typeColumnBase(for: relationship, numbers: numbers) {
                    types[ObjectIdentifier(relationship)] = namer.uniqueName(base)
                }
            }
        }
        return (values, types)
    }
}
