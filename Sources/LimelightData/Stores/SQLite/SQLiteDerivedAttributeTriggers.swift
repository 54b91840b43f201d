import Foundation

/// The triggers that keep a model's derived attributes right in the store itself, as Core Data's
/// SQLite store does: whoever writes the file (a batch request, which bypasses contexts, another
/// process, the `sqlite3` shell for the derivations that need no function of ours) leaves every
/// derived column holding what its derivation gives.
///
/// A context computes the same values in memory before it writes (so they are seen at once), and
/// the triggers then find nothing to do: every trigger's `UPDATE` is limited to rows whose column
/// differs from the derivation (`IS NOT`), so a save that already wrote the right value costs one
/// evaluation and no second write. The SQL functions used are those Core Data registers too
/// (`NSCoreDataToUpper`, `NSCoreDataToLower`, `NSCoreDataCanonical`), computed here by the same
/// code as the in-memory derivation, so the two cannot disagree; a store made here stays writable
/// by Core Data. `now()` needs no function: it is SQLite's clock in seconds since 2001.
///
/// Derivations other than those Core Data's documentation lists (an attribute, a to-one's
/// attribute, either through `uppercase:`, `lowercase:` or `canonical:`, a to-many's `@count` or
/// `@sum`, `now()`) get no trigger and are computed at a context's save only.
extension SQLiteSchema {
    /// Every trigger name of ours starts so; Core Data's own start with `Z_DA_`.
    static let derivedTriggerPrefix = "Z_LLDA_"

    struct DerivedTrigger: Equatable {
        let name: String
        let sql: String
    }

    /// What a derived attribute's value is made of, in the store's terms.
    private enum Derivation {
        /// The entity's own attribute (`name`), or a to-one's (`owner.name`), through a function.
        case value(function: String?, column: String, through: RelationshipDescription?)
        /// `items.@count` (`sumColumn` nil) or `items.@sum.price`.
        case aggregate(RelationshipDescription, sumColumn: String?)
        case now
    }

    /// The derived attributes the triggers keep: each with its entity, table and column.
    private func derivedColumns() -> [(entity: EntityDescription, attribute: AttributeDescription, table: String, derivation: Derivation)] {
        var result: [(EntityDescription, AttributeDescription, String, Derivation)] = []
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            guard let table = table(for: entity) else { continue }
            for case let attribute as AttributeDescription in entity.ownProperties {
                guard !attribute.isTransient, !(attribute is CompositeAttributeDescription),
                      let expression = attribute.derivationExpression, let derivation = derivation(of: expression, in: entity) else { continue }
                result.append((entity, attribute, table.name, derivation))
            }
        }
        return result
    }

    private static let functions = ["uppercase:": "NSCoreDataToUpper", "lowercase:": "NSCoreDataToLower", "canonical:": "NSCoreDataCanonical"]

    private func derivation(of expression: QueryExpression, in entity: EntityDescription) -> Derivation? {
        switch expression {
        case .function(let name, let arguments) where name == "now" && arguments.isEmpty:
            return .now
        case .function(let name, let arguments):
            guard let function = Self.functions[name], arguments.count == 1,
                  case .value(nil, let column, let through)? = derivation(of: arguments[0], in: entity) else { return nil }
            return .value(function: function, column: column, through: through)
        case .keyPath(let path):
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if keys.count == 1, let attribute = storedPlainAttribute(keys[0], of: entity) {
                return .value(function: nil, column: column(for: attribute), through: nil)
            }
            guard keys.count >= 2, let relationship = entity.property(named: keys[0]) as? RelationshipDescription,
                  let destination = relationship.destinationEntity else { return nil }
            if !relationship.isToMany, keys.count == 2, let attribute = storedPlainAttribute(keys[1], of: destination) {
                return .value(function: nil, column: column(for: attribute), through: relationship)
            }
            guard relationship.isToMany, joinTable(for: relationship) != nil || relationship.inverseRelationship?.isToMany == false else {
                return nil
            }
            if keys.count == 2, keys[1] == "@count" { return .aggregate(relationship, sumColumn: nil) }
            if keys.count == 3, keys[1] == "@sum", let attribute = storedPlainAttribute(keys[2], of: destination),
               attribute.attributeType.isNumeric {
                return .aggregate(relationship, sumColumn: column(for: attribute))
            }
            return nil
        default:
            return nil
        }
    }

    /// An attribute with a column of its own whose value is set, not derived (a derivation of a
    /// derivation would depend on the order triggers run in).
    private func storedPlainAttribute(_ name: String, of entity: EntityDescription) -> AttributeDescription? {
        guard let attribute = entity.property(named: name) as? AttributeDescription, !attribute.isTransient,
              !attribute.isDerived, !(attribute is CompositeAttributeDescription) else { return nil }
        return attribute
    }

    /// SQL giving the derivation's value for the row `row` (a table name or alias) of its table.
    private func valueSQL(_ derivation: Derivation, row: String) -> String {
        switch derivation {
        case .now:
            // julianday of 2001-01-01 00:00 UTC, Core Data's reference date.
            return "((julianday('now') - 2451910.5) * 86400.0)"
        case .value(let function, let column, let through):
            var value = "\(row).\(column)"
            if let through, let destination = through.destinationEntity, let other = table(for: destination) {
                value = "(SELECT d.\(column) FROM \(other.name) d WHERE d.Z_PK = \(row).\(self.column(for: through)))"
            }
            return function.map { "\($0)(\(value))" } ?? value
        case .aggregate(let relationship, let sumColumn):
            let measure = sumColumn.map { "IFNULL(SUM(d.\($0)), 0)" } ?? "COUNT(*)"
            guard let destination = relationship.destinationEntity, let other = table(for: destination) else { return "NULL" }
            if let join = joinTable(for: relationship) {
                let from = sumColumn == nil ? "\(join.name) j" : "\(join.name) j JOIN \(other.name) d ON d.Z_PK = j.\(join.destinationColumn)"
                return "(SELECT \(measure) FROM \(from) WHERE j.\(join.sourceColumn) = \(row).Z_PK)"
            }
            guard let inverse = relationship.inverseRelationship else { return "NULL" }
            return "(SELECT \(measure) FROM \(other.name) d WHERE d.\(column(for: inverse)) = \(row).Z_PK AND d.Z_ENT IN (\(numberList(of: destination))))"
        }
    }

    /// The triggers that keep the model's derived attributes, in the order they are created.
    func derivedAttributeTriggers() -> [DerivedTrigger] {
        var triggers: [DerivedTrigger] = []
        for (entity, attribute, table, derivation) in derivedColumns() {
            let base = "\(Self.derivedTriggerPrefix)\(table)_\(entity.name)_\(attribute.name)_"
            let column = self.column(for: attribute)
            let entities = numberList(of: entity)
            func add(_ suffix: String, _ event: String, when: String? = nil, body: String) {
                let name = base + suffix
                let condition = when.map { " WHEN \($0)" } ?? ""
                triggers.append(DerivedTrigger(name: name, sql: "CREATE TRIGGER \(name) \(event) FOR EACH ROW\(condition) BEGIN \(body); END"))
            }
            /// Sets the column of the rows `rows` selects to the derivation, where it differs.
            func recompute(_ rows: String) -> String {
                let value = valueSQL(derivation, row: table)
                return "UPDATE \(table) SET \(column) = \(value) WHERE (\(rows)) AND \(table).Z_ENT IN (\(entities)) AND \(table).\(column) IS NOT \(value)"
            }
            switch derivation {
            case .now:
                // As Core Data's: a save of the row (a context's, a batch update's: each raises
                // `Z_OPT`) that did not set the column itself, and a new row without a value,
                // take the time. A context sets it at every save and is left its value; a
                // trigger keeping another derived column raises no `Z_OPT` and takes none.
                let set = "UPDATE \(table) SET \(column) = \(valueSQL(.now, row: table)) WHERE Z_PK = NEW.Z_PK"
                add("INSERT", "AFTER INSERT ON \(table)", when: "NEW.\(column) IS NULL AND NEW.Z_ENT IN (\(entities))", body: set)
                add("UPDATE", "AFTER UPDATE OF Z_OPT ON \(table)", when: "NEW.\(column) IS OLD.\(column) AND NEW.Z_ENT IN (\(entities))", body: set)
            case .value(_, let source, let through):
                let own = through.map { self.column(for: $0) } ?? source
                if let through, let destination = through.destinationEntity, let other = self.table(for: destination) {
                    let link = self.column(for: through)
                    // A save may write a row before the one its to-one points at: the value is
                    // then computed when that row arrives (TARGET_INSERT), not twice.
                    add("INSERT", "AFTER INSERT ON \(table)", when: "NEW.\(link) IS NULL OR EXISTS (SELECT 1 FROM \(other.name) WHERE Z_PK = NEW.\(link))",
                        body: recompute("\(table).Z_PK = NEW.Z_PK"))
                    add("UPDATE", "AFTER UPDATE OF \(own), \(column) ON \(table)", body: recompute("\(table).Z_PK = NEW.Z_PK"))
                    add("TARGET_INSERT", "AFTER INSERT ON \(other.name)", body: recompute("\(table).\(link) = NEW.Z_PK"))
                    add("TARGET_UPDATE", "AFTER UPDATE OF \(source) ON \(other.name)", body: recompute("\(table).\(link) = NEW.Z_PK"))
                    add("TARGET_DELETE", "AFTER DELETE ON \(other.name)", body: recompute("\(table).\(link) = OLD.Z_PK"))
                } else {
                    add("INSERT", "AFTER INSERT ON \(table)", body: recompute("\(table).Z_PK = NEW.Z_PK"))
                    add("UPDATE", "AFTER UPDATE OF \(own), \(column) ON \(table)", body: recompute("\(table).Z_PK = NEW.Z_PK"))
                }
            case .aggregate(let relationship, let sumColumn):
                // A new row's members arrive after it (a context computed its value counting
                // them, and their triggers find it right); only a row given no value (a batch
                // insert's, another program's) is computed when it arrives.
                add("INSERT", "AFTER INSERT ON \(table)", when: "NEW.\(column) IS NULL", body: recompute("\(table).Z_PK = NEW.Z_PK"))
                add("UPDATE", "AFTER UPDATE OF \(column) ON \(table)", body: recompute("\(table).Z_PK = NEW.Z_PK"))
                guard let destination = relationship.destinationEntity, let other = self.table(for: destination) else { continue }
                if let join = joinTable(for: relationship) {
                    add("LINK_INSERT", "AFTER INSERT ON \(join.name)", body: recompute("\(table).Z_PK = NEW.\(join.sourceColumn)"))
                    add("LINK_DELETE", "AFTER DELETE ON \(join.name)", body: recompute("\(table).Z_PK = OLD.\(join.sourceColumn)"))
                    if let sumColumn {
                        let owners = "SELECT \(join.sourceColumn) FROM \(join.name) WHERE \(join.destinationColumn) = NEW.Z_PK"
                        add("MEMBER_UPDATE", "AFTER UPDATE OF \(sumColumn) ON \(other.name)", body: recompute("\(table).Z_PK IN (\(owners))"))
                        // A save may write the join rows before the members they name; the sum
                        // then counts each member as it arrives.
                        add("MEMBER_INSERT", "AFTER INSERT ON \(other.name)", body: recompute("\(table).Z_PK IN (\(owners))"))
                    }
                } else if let inverse = relationship.inverseRelationship {
                    let link = self.column(for: inverse)
                    let watched = [link] + (sumColumn.map { [$0] } ?? [])
                    add("MEMBER_INSERT", "AFTER INSERT ON \(other.name)", body: recompute("\(table).Z_PK = NEW.\(link)"))
                    add("MEMBER_DELETE", "AFTER DELETE ON \(other.name)", body: recompute("\(table).Z_PK = OLD.\(link)"))
                    add("MEMBER_UPDATE", "AFTER UPDATE OF \(watched.joined(separator: ", ")) ON \(other.name)",
                        body: recompute("\(table).Z_PK IN (OLD.\(link), NEW.\(link))"))
                }
            }
        }
        return triggers
    }

    /// Statements that bring every derived column the triggers keep to its derivation, for a
    /// store that gains the triggers with rows already in it (`now()` is left as it is).
    func derivedAttributeRefreshSQL() -> [String] {
        derivedColumns().compactMap { entity, attribute, table, derivation in
            if case .now = derivation { return nil }
            let column = self.column(for: attribute)
            let value = valueSQL(derivation, row: table)
            return "UPDATE \(table) SET \(column) = \(value) WHERE \(table).Z_ENT IN (\(numberList(of: entity))) AND \(table).\(column) IS NOT \(value)"
        }
    }
}
