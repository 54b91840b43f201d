import Foundation
import Testing
@testable import LimelightData

/// `$VARIABLE` substitution, as fetch request templates and fetched properties use it.
@Suite struct PredicateSubstitutionTests {
    @Test func substitutionAndTemplates() throws {
        let template = try QueryPredicate(format: "age > $MIN AND name BEGINSWITH $PREFIX")
        let bound = template.withSubstitutionVariables(["MIN": 40, "PREFIX": "Zo"])
        #expect(bound.predicateFormat == "age > 40 AND name BEGINSWITH \"Zo\"")
        #expect(try bound.evaluate(with: PredicateTableCase.sample))
        #expect { try template.evaluate(with: PredicateTableCase.sample) } throws: { "\($0)".contains("$MIN") }
    }

    @Test func collectionsBecomeListsAndSubqueryVariablesStayBound() throws {
        let template = try QueryPredicate(format: "age IN $AGES AND SUBQUERY(scores, $s, $s > $LIMIT).@count == $COUNT")
        let bound = template.withSubstitutionVariables(["AGES": Set([41, 42]), "LIMIT": 4, "COUNT": 2, "s": 100])
        let printed = bound.predicateFormat
        #expect(printed.hasPrefix("age IN {4"), "\(printed)")
        #expect(printed.hasSuffix("SUBQUERY(scores, $s, $s > 4).@count == 2"), "\(printed)")
        #expect(try bound.evaluate(with: PredicateTableCase.sample))
        let unbound = template.withSubstitutionVariables(["AGES": [1, 2]])
        #expect(unbound.predicateFormat == "age IN {1, 2} AND SUBQUERY(scores, $s, $s > $LIMIT).@count == $COUNT")
    }

    @Test func keyPathsFromAGivenValueAreReadWhenItIsGiven() throws {
        // `$FETCH_SOURCE.folder`, the usual fetched-property form, becomes the value it reads, so
        // the store can be asked in SQL; a key path that cannot be read is left as it was.
        let template = try QueryPredicate(format: "name == $SOURCE.name AND age > $SOURCE.missing.age")
        let bound = template.withSubstitutionVariables(["SOURCE": ["name": "Zoe"] as [String: Any]])
        #expect(bound.predicateFormat.hasPrefix("name == \"Zoe\" AND "), "\(bound.predicateFormat)")
        let counted = try QueryPredicate(format: "age == $SOURCE.@count").withSubstitutionVariables(["SOURCE": [1, 2, 3]])
        #expect(counted.predicateFormat == "age == 3")
    }
}
