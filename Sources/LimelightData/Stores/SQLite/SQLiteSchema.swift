import Foundation

/// How a model maps onto tables and columns in Core Data's layout.
///
/// One table `Z<ROOT>` per inheritance tree holds `Z_PK`, `Z_ENT`, `Z_OPT` and a `Z<NAME>` column
/// for every stored attribute and to-one relationship of every entity in the tree (numbered when
/// several entities of the tree declare one name: `SQLiteColumnNamer`). A to-one whose
/// destination has sub-entities also stores the destination's entity number in `Z<n>_<NAME>`
/// (n: the destination's entity number). Many-to-many relationships, and to-many ones without an
/// inverse, use a join table `Z_<n><REL>` named after the side whose entity and relationship name
/// sort first, with columns `Z_<n><INVERSE>` and `Z_<m><REL>`. Entity numbers come from the store's
/// `Z_PRIMARYKEY` when it exists, so stores made elsewhere keep their numbering.
struct SQLiteSchema {
    struct Table {
        let root: EntityDescription
        let name: String
        /// Column name per (entity name, property index) for stored attributes and to-ones.
        var columns: [String] = []
        var columnIndex: [String: Int] = [:]
        /// Each stored attribute's and to-one's column, and each to-one's destination-entity
        /// column, as Core Data names them. Empty in a table of a store made by an earlier
        /// version of this framework, which gave every property of one name a single column in
        /// its tree: such a table is read and written as it is, by names alone.
        var propertyColumns: [ObjectIdentifier: String] = [:]
        var typeColumns: [ObjectIdentifier: String] = [:]

        mutating func append(_ column: String) {
            guard columnIndex[column] == nil else { return }
            columnIndex[column] = columns.count
            columns.append(column)
        }
    }

    struct JoinTable {
        let name: String
        /// Column holding the primary key of the relationship's source object.
        let sourceColumn: String
        /// Column holding the primary key of the destination object.
        let destinationColumn: String
    }

    let model: ManagedObjectModel
    private(set) var tables: [ObjectIdentifier: Table] = [:]
    private(set) var entityNumbers: [ObjectIdentifier: Int] = [:]
    private(set) var entitiesByNumber: [Int: EntityDescription] = [:]

    /// `existingColumns` (table name → its columns) describes the store being opened, if any: a
    /// table that shares columns by name, as stores made by earlier versions of this framework
    /// do, keeps that layout.
    init(model: ManagedObjectModel, entityNumbers storeNumbers: [String: Int]? = nil, existingColumns: [String: Set<String>]? = nil) {
        self.model = model
        for entity in model.entities {
            let number = storeNumbers?[entity.name] ?? entity.entityNumber
            entityNumbers[ObjectIdentifier(entity)] = number
            entitiesByNumber[number] = entity
        }
        for root in model.entities where root.superentity == nil {
            var table = makeTable(root, numbered: true)
            if let existing = existingColumns?[table.name], Self.sharesColumnsByName(table, existing: existing) {
                table = makeTable(root, numbered: false)
            }
            tables[ObjectIdentifier(root)] = table
        }
    }

    private func makeTable(_ root: EntityDescription, numbered: Bool) -> Table {
        var table = Table(root: root, name: "Z" + root.name.uppercased())
        if numbered {
            (table.propertyColumns, table.typeColumns) = SQLiteColumnNamer.columns(ofTree: root, numbers: entityNumbers)
        }
        for entity in root.selfAndDescendants {
            for property in entity.ownProperties {
                for column in columnNames(of: property, in: table) { table.append(column) }
            }
        }
        return table
    }

    /// Whether a store's table keeps one column for a name that Core Data would number: a
    /// numbered column is missing and the column of its name is there.
    private static func sharesColumnsByName(_ table: Table, existing: Set<String>) -> Bool {
        let numbered = table.propertyColumns.values.filter { $0.last?.isNumber == true && !existing.contains($0) }
            + table.typeColumns.values.filter { $0.last?.isNumber == true && !existing.contains($0) }
        return numbered.contains { column in existing.contains(String(column.reversed().drop(while: \.isNumber).reversed())) }
    }

    /// A property's columns in `table`: its value's (or a composite's elements'), and a to-one's
    /// destination-entity column.
    func columnNames(of property: PropertyDescription, in table: Table) -> [String] {
        guard Self.isStoredInRow(property) else { return [] }
        if let composite = property as? CompositeAttributeDescription { return Self.compositeColumns(composite).map(\.column) }
        let key = ObjectIdentifier(property)
        let value = table.propertyColumns[key] ?? Self.columnName(forPath: [property.name])
        guard let relationship = property as? RelationshipDescription,
              let type = table.typeColumns[key] ?? Self.typeColumnBase(for: relationship, numbers: entityNumbers) else { return [value] }
        return [value, type]
    }

    func number(of entity: EntityDescription) -> Int { entityNumbers[ObjectIdentifier(entity)] ?? entity.entityNumber }

    /// `Z_ENT` values of an entity and its subentities, for `Z_ENT IN (…)`.
    func numberList(of entity: EntityDescription) -> String {
        entity.selfAndDescendants.map { String(number(of: $0)) }.joined(separator: ", ")
    }

    func table(for entity: EntityDescription) -> Table? { tables[entity.rootIdentity] }

    static func isStoredInRow(_ property: PropertyDescription) -> Bool {
        if property.isTransient || property is FetchedPropertyDescription { return false }
        if let relationship = property as? RelationshipDescription { return !relationship.isToMany }
        return true
    }

    /// The column of a stored property (`["name"]` → `ZNAME`) or of an element of a composite
    /// attribute, named by its path from the entity (`["magnitude", "richter"]` →
    /// `ZMAGNITUDE_RICHTER`): every column name of a property is made here.
    ///
    /// Core Data flattens a composite's elements into columns of the entity's table; how it names
    /// them is not documented and no store written by Core Data with a composite was at hand to
    /// compare with, so this naming (the element path, uppercased, joined with `_`) is the most
    /// plausible one, unverified.
    static func columnName(forPath path: [String]) -> String {
        "Z" + path.map { $0.uppercased() }.joined(separator: "_")
    }

    /// The column of a dotted key path of attribute names (`magnitude.richter`), as uniqueness
    /// constraints and fetch indexes name them.
    static func columnName(forKeyPath keyPath: String) -> String {
        columnName(forPath: keyPath.split(separator: ".").map(String.init))
    }

    /// The columns of a composite attribute, one per leaf element, with the element and its path
    /// below the composite, in `leafElements` order.
    static func compositeColumns(_ composite: CompositeAttributeDescription)
        -> [(column: String, path: [String], attribute: AttributeDescription)] {
        composite.leafElements.map { (columnName(forPath: [composite.name] + $0.path), $0.path, $0.attribute) }
    }

    /// The column a to-one keeps its destination's entity number in, before any numbering
    /// (`Z<n>_<NAME>`), when the destination has subentities; `nil` otherwise.
    ///
    /// Only a destination with subentities needs it: the object a key points at may then be of
    /// any of them. A destination that merely has a superentity is known from the model, and
    /// Core Data's stores have no such column for it (Notes' `ZACCOUNT`…`ZACCOUNT8`, all to
    /// `ICAccount`, a subentity; Photos' `ZASSET.ZIMPORTSESSION` and `ZCLOUDFEEDASSETSENTRY`).
    /// Stores made by earlier versions of this framework, which also gave those to-ones the
    /// column, keep it unused.
    static func typeColumnBase(for relationship: RelationshipDescription, numbers: [ObjectIdentifier: Int]) -> String? {
        guard !relationship.isToMany, let destination = relationship.destinationEntity,
              !destination.subentities.isEmpty else { return nil }
        let number = numbers[ObjectIdentifier(destination)] ?? destination.entityNumber
        return "Z\(number)_" + relationship.name.uppercased()
    }

    /// The column of a plain attribute or a to-one (a composite has one per element:
    /// `compositeColumns`).
    func column(for property: PropertyDescription) -> String {
        if let entity = property.entity, let column = tables[entity.rootIdentity]?.propertyColumns[ObjectIdentifier(property)] {
            return column
        }
        return Self.columnName(forPath: [property.name])
    }

    /// The column of an entity's attribute named by a key path, as uniqueness constraints and
    /// indexes name them: the attribute's own column, or a composite element's.
    func column(forKeyPath keyPath: String, of entity: EntityDescription) -> String {
        if !keyPath.contains("."), let property = entity.property(named: keyPath) { return column(for: property) }
        return Self.columnName(forKeyPath: keyPath)
    }

    func typeColumn(for relationship: RelationshipDescription) -> String? {
        if let entity = relationship.entity, let column = tables[entity.rootIdentity]?.typeColumns[ObjectIdentifier(relationship)] {
            return column
        }
        return Self.typeColumnBase(for: relationship, numbers: entityNumbers)
    }

    /// Whether a to-many is stored in a join table rather than as a foreign key on the other side.
    static func usesJoinTable(_ relationship: RelationshipDescription) -> Bool {
        relationship.isToMany && (relationship.inverseRelationship?.isToMany ?? true)
    }

    func joinTable(for relationship: RelationshipDescription) -> JoinTable? {
        guard Self.usesJoinTable(relationship), let source = relationship.entity, let destination = relationship.destinationEntity else {
            return nil
        }
        // A reflexive relationship that is its own inverse would name both columns alike; Core Data
        // then numbers the second one (`Z_1FRIENDS`, `Z_1FRIENDS1`).
        func join(_ name: String, _ sourceColumn: String, _ destinationColumn: String) -> JoinTable {
            JoinTable(name: name, sourceColumn: sourceColumn,
                      destinationColumn: sourceColumn == destinationColumn ? destinationColumn + "1" : destinationColumn)
        }
        let sourceNumber = number(of: source)
        guard let inverse = relationship.inverseRelationship, let inverseSource = inverse.entity else {
            let name = "Z_\(sourceNumber)\(relationship.name.uppercased())"
            return join(name, "Z_\(sourceNumber)\(source.name.uppercased())", "Z_\(number(of: destination))\(relationship.name.uppercased())")
        }
        let inverseNumber = number(of: inverseSource)
        let ownerIsSelf = (source.name, relationship.name) <= (inverseSource.name, inverse.name)
        let tableName = ownerIsSelf ? "Z_\(sourceNumber)\(relationship.name.uppercased())" : "Z_\(inverseNumber)\(inverse.name.uppercased())"
        // Each column is named after the relationship that points at the entity it holds.
        return join(tableName, "Z_\(sourceNumber)\(inverse.name.uppercased())", "Z_\(inverseNumber)\(relationship.name.uppercased())")
    }

    var joinTables: [JoinTable] {
        var seen: Set<String> = []
        var result: [JoinTable] = []
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.ownProperties {
                if let join = joinTable(for: relationship), seen.insert(join.name).inserted { result.append(join) }
            }
        }
        return result
    }

    /// SQL that creates every table and index of the model in an empty database.
    func creationSQL() -> [String] {
        var sql: [String] = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            let definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + columnDefinitionsInCoreDataOrder(of: table)
            sql.append("CREATE TABLE \(table.name) ( \(definitions.joined(separator: ", ")) )")
            sql += indexSQL(for: table)
            sql += rTreeIndexes(for: table).flatMap(\.creationSQL)
        }
        for join in joinTables {
            let order = orderColumns(inTable: join.name).map { ", \($0) INTEGER" }.joined()
            sql.append("CREATE TABLE \(join.name) ( \(join.sourceColumn) INTEGER, \(join.destinationColumn) INTEGER\(order), PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn)) )")
            sql.append("CREATE INDEX \(join.name)_\(join.destinationColumn)_INDEX ON \(join.name) (\(join.destinationColumn), \(join.sourceColumn))")
        }
        return sql
    }

    func columnType(_ column: String, in table: Table) -> String {
        for entity in table.root.selfAndDescendants {
            for property in entity.ownProperties {
                if let composite = property as? CompositeAttributeDescription {
                    guard let leaf = Self.compositeColumns(composite).first(where: { $0.column == column }) else { continue }
                    return leaf.attribute.attributeType.sqlColumnType
                }
                let names = columnNames(of: property, in: table)
                guard let position = names.firstIndex(of: column) else { continue }
                if let attribute = property as? AttributeDescription, position == 0 { return attribute.attributeType.sqlColumnType }
                return "INTEGER"
            }
        }
        return "BLOB"
    }
}
