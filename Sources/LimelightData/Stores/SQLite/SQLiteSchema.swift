import Foundation

/// How a model maps onto tables and columns in Core Data's layout.
///
/// One table `Z<ROOT>` per inheritance tree holds `Z_PK`, `Z_ENT`, `Z_OPT` and a `Z<NAME>` column
/// for every stored attribute and to-one relationship of every entity in the tree. A to-one whose
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

    init(model: ManagedObjectModel, entityNumbers storeNumbers: [String: Int]? = nil) {
        self.model = model
        for entity in model.entities {
            let number = storeNumbers?[entity.name] ?? entity.entityNumber
            entityNumbers[ObjectIdentifier(entity)] = number
            entitiesByNumber[number] = entity
        }
        for root in model.entities where root.superentity == nil {
            var table = Table(root: root, name: "Z" + root.name.uppercased())
            for entity in root.selfAndDescendants {
                for property in entity.ownProperties {
                    for column in Self.columnNames(for: property, schemaNumbers: entityNumbers) where table.columnIndex[column] == nil {
                        table.columnIndex[column] = table.columns.count
                        table.columns.append(column)
                    }
                }
            }
            tables[ObjectIdentifier(root)] = table
        }
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

    static func columnNames(for property: PropertyDescription, schemaNumbers: [ObjectIdentifier: Int]) -> [String] {
        guard isStoredInRow(property) else { return [] }
        if let composite = property as? CompositeAttributeDescription { return compositeColumns(composite).map(\.column) }
        let base = columnName(forPath: [property.name])
        if let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity,
           !destination.subentities.isEmpty || destination.superentity != nil {
            let number = schemaNumbers[ObjectIdentifier(destination)] ?? destination.entityNumber
            return [base, "Z\(number)_" + property.name.uppercased()]
        }
        return [base]
    }

    /// The column of a plain attribute or a to-one (a composite has one per element:
    /// `compositeColumns`).
    func column(for property: PropertyDescription) -> String { Self.columnName(forPath: [property.name]) }

    func typeColumn(for relationship: RelationshipDescription) -> String? {
        let names = Self.columnNames(for: relationship, schemaNumbers: entityNumbers)
        return names.count > 1 ? names[1] : nil
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
            var definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            for column in table.columns {
                definitions.append("\(column) \(columnType(column, in: table))")
            }
            for column in orderColumns(inTable: table.name) { definitions.append("\(column) INTEGER") }
            sql.append("CREATE TABLE \(table.name) ( \(definitions.joined(separator: ", ")) )")
            if !table.root.subentities.isEmpty {
                sql.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
            }
            // Sibling subentities that declare a property of the same name share its column here
            // (both comments' `post` is ZPOST), so the column is indexed once, not once per entity.
            // Core Data instead numbers the later ones (ZNOTE, ZNOTE1, as in Apple Notes' store);
            // which sibling gets which number was not checked against a store it made.
            var indexedColumns: Set<String> = []
            for entity in table.root.selfAndDescendants {
                for property in entity.ownProperties {
                    if let relationship = property as? RelationshipDescription, Self.isStoredInRow(relationship) {
                        let column = self.column(for: relationship)
                        if indexedColumns.insert(column).inserted {
                            sql.append("CREATE INDEX \(table.name)_\(column)_INDEX ON \(table.name) (\(column))")
                        }
                    } else if property.isIndexed, Self.isStoredInRow(property), !(property is CompositeAttributeDescription) {
                        // A composite's elements are indexed through fetch indexes naming them
                        // (`magnitude.richter`); the attribute itself has no column to index.
                        let column = self.column(for: property)
                        if indexedColumns.insert(column).inserted {
                            sql.append("CREATE INDEX \(table.name)_\(column)_INDEX ON \(table.name) (\(column))")
                        }
                    }
                }
                for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                    let columns = constraint.map { Self.columnName(forKeyPath: $0) + " COLLATE BINARY ASC" }.joined(separator: ", ")
                    sql.append("CREATE UNIQUE INDEX Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_")) ON \(table.name) (\(columns))")
                }
                for index in entity.compoundIndexes where !index.isEmpty
                    && index.allSatisfy({ table.columnIndex[Self.columnName(forKeyPath: $0)] != nil }) {
                    // Core Data indexes these as it does fetch indexes; the name it gives them is
                    // not documented and no store with one was at hand, so it follows the
                    // uniqueness constraints' (`Z_<Entity>_UNIQUE_<a>_<b>`), unverified.
                    let columns = index.map { Self.columnName(forKeyPath: $0) }.joined(separator: ", ")
                    sql.append("CREATE INDEX Z_\(entity.name)_COMPOUND_\(index.joined(separator: "_")) ON \(table.name) (\(columns))")
                }
                for index in entity.fetchIndexes where !index.elements.isEmpty {
                    // An element of a composite by its key path (`magnitude.richter`); a whole
                    // composite as all its element columns.
                    let columns = index.elements.flatMap { element -> [String] in
                        let names = (entity.property(named: element.property) as? CompositeAttributeDescription).map { Self.compositeColumns($0).map(\.column) }
                            ?? [Self.columnName(forKeyPath: element.property)]
                        return names.map { $0 + (element.ascending ? "" : " DESC") }
                    }.joined(separator: ", ")
                    sql.append("CREATE INDEX Z_\(entity.name)_\(index.name) ON \(table.name) (\(columns))")
                }
            }
        }
        for join in joinTables {
            let order = orderColumns(inTable: join.name).map { ", \($0) INTEGER" }.joined()
            sql.append("CREATE TABLE \(join.name) ( \(join.sourceColumn) INTEGER, \(join.destinationColumn) INTEGER\(order), PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn)) )")
            sql.append("CREATE INDEX \(join.name)_\(join.destinationColumn)_INDEX ON \(join.name) (\(join.destinationColumn), \(join.sourceColumn))")
        }
        return sql
    }

    private func columnType(_ column: String, in table: Table) -> String {
        for entity in table.root.selfAndDescendants {
            for property in entity.ownProperties {
                if let composite = property as? CompositeAttributeDescription {
                    guard let leaf = Self.compositeColumns(composite).first(where: { $0.column == column }) else { continue }
                    return leaf.attribute.attributeType.sqlColumnType
                }
                let names = Self.columnNames(for: property, schemaNumbers: entityNumbers)
                guard let position = names.firstIndex(of: column) else { continue }
                if let attribute = property as? AttributeDescription, position == 0 { return attribute.attributeType.sqlColumnType }
                return "INTEGER"
            }
        }
        return "BLOB"
    }
}
