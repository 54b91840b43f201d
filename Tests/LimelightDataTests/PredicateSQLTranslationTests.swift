import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// What the translator hands SQLite: to-manys as EXISTS and aggregate subqueries, folding and
/// regular expressions through the registered functions, constants computed once and bound, and
/// exactly one bound value per placeholder.
@Suite struct PredicateSQLTranslationTests {
    static let expectations: [(String, [String])] = [
        ("ANY tags.name ==[cd] 'x'", ["EXISTS (SELECT 1 FROM ZTAG", "LL_FOLD(", ", 3)"]), ("ALL tags.weight > 1", ["NOT EXISTS"]),
        ("NONE tags.rank == 1", ["NOT coalesce((EXISTS"]), ("tags.@count > 2", ["(SELECT count(*) FROM ZTAG"]),
        ("sum:(tags.weight) > 1", ["(SELECT total("]), ("tags.@avg.weight > 1", ["(SELECT avg("]), ("tags.@max.rank > 1", ["(SELECT max("]),
        ("name MATCHES[c] 'x'", ["LL_MATCHES(t0.ZNAME, ?, 1)"]), ("name MATCHES[d] 'x'", ["LL_MATCHES(LL_FOLD(t0.ZNAME, 2), ?, 0)"]),
        ("name LIKE 'a*'", ["GLOB ?"]), ("name LIKE[c] owner.name", ["LL_LIKE(LL_FOLD(t0.ZNAME, 1), LL_FOLD((SELECT"]), ("sqrt(score) > 1", ["LL_MATH('sqrt', t0.ZSCORE)"]), ("score ** 2 > 1", ["LL_MATH('pow'"]),
        ("uppercase(name) == 'X'", ["LL_UPPER(t0.ZNAME)"]), ("bitwiseAnd:with:(score, 1) == 1", ["(t0.ZSCORE & ?)"]),
        ("SUBQUERY(tags, $t, $t.name == 'x').@count > 0", ["(SELECT count(*) FROM ZTAG"]), ("owner.name == 'x'", ["(SELECT t1.ZNAME FROM ZOWNER t1 WHERE t1.Z_PK = t0.ZOWNER)"]),
        ("ANY owner.items.score > 1", ["= t0.ZOWNER"]),
        ("SUBQUERY(owner.items, $i, $i.score > 90).@count > 1", ["(SELECT count(*) FROM ZITEM", "= t0.ZOWNER"]), ("tags[SIZE] == 2", ["(SELECT count(*)"]), ("score / 2 > 1", ["CAST(t0.ZSCORE AS REAL) / ?"]),
        ("TERNARY(flag == YES, score, 0) > 1", ["CASE WHEN"]), ("'red' IN tags.name", ["EXISTS"]), ("SELF['score'] > 1", ["t0.ZSCORE > ?"]),
    ]

    static func translate(_ format: String) throws -> SQLPredicateTranslator.Translation {
        let model = PredicateFixtureModel.make()
        try model.resolve()
        let entity = try #require(model.entity(named: "Item"))
        var translator = SQLPredicateTranslator(schema: SQLiteSchema(model: model), entity: entity)
        return try translator.translate(try QueryPredicate(format: format))
    }

    @Test(arguments: expectations.indices)
    func translatesToTheSQLThatFiltersInTheStore(_ index: Int) throws {
        let (format, parts) = Self.expectations[index]
        let translation = try Self.translate(format)
        for part in parts { #expect(translation.sql.contains(part), "\(format): \(translation.sql)") }
    }

    @Test func constantsAreComputedOnceAndBound() throws {
        let translation = try Self.translate("median({1, 2}) < score AND {1, 2, 3}[SIZE] == 3 AND score > 2 ** 3")
        #expect(!translation.sql.contains("median"), "\(translation.sql)")
        // {1, 2, 3}[SIZE] == 3 compares given values only: it is decided here, and no value is bound for it.
        #expect(translation.bindings.map(\.description) == ["1.5", "8.0"], "\(translation.bindings)")
        #expect(translation.sql.contains(" AND 1 AND "), "\(translation.sql)")
    }

    /// Placeholders and bound values line up for every predicate of the differential test (the
    /// translator repeats some operands, and their values must repeat with them).
    @Test func everyPlaceholderHasItsValue() throws {
        for format in PredicateSQLDifferentialTests.predicates {
            let translation = try Self.translate(format)
            // Quoted SQL text never holds a '?': every literal is bound.
            let placeholders = translation.sql.filter { $0 == "?" }.count
            #expect(placeholders == translation.bindings.count, "\(format): \(translation.sql) with \(translation.bindings)")
        }
    }
}
