import Foundation

/// Translates a predicate into an SQL condition over a store's tables.
struct SQLPredicateTranslator {
    let schema: SQLiteSchema
    let entity: EntityDescription

    struct Translation {
        var sql: String
        var bindings: [SQLiteValue]
    }

    func translate(_ predicate: QueryPredicate) throws -> Translation {
        throw PersistenceError.invalidRequest("predicates in SQL arrive with the predicate language: \(predicate.predicateFormat)")
    }
}
