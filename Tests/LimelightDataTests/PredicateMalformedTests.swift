import Foundation
import Testing
@testable import LimelightData

/// Malformed format strings: each fails with the character offset of the problem and what was
/// expected there.
@Suite struct PredicateMalformedTests {
    static let cases: [(String, Int, String)] = [
        ("", 0, "a value"),
        ("age ==", 6, "a value"),
        ("age == 1 AND", 12, "a value"),
        ("(age == 1", 9, "')'"),
        ("age === 1", 6, "a value"),
        ("age == 'open", 12, "closing '"),
        ("age BETWEEN", 11, "a value"),
        ("age == 1 age", 9, "AND, OR"),
        ("== 1", 0, "a value"),
        ("age ==[x] 1", 7, "comparison options"),
        ("SUBQUERY(tags, x, x == 1)", 15, "a $variable"),
        ("age == %@", 7, "an argument"),
        ("name == 'a' ^ 1", 12, "an operator"),
        ("frobnicate(1) == 2", 0, "a known function"),
        ("age == {1, 2", 12, "'}'"),
        ("$ == 1", 1, "a variable name"),
        ("age == 0xZZ", 9, "digits"),
        ("age IN", 6, "a value"),
        ("NOT", 3, "a value"),
        ("age == 1)", 8, "AND, OR"),
        ("ANY", 3, "a value"),
        ("TERNARY(age > 1, 2)", 18, "','"),
        ("age.", 4, "a key name"),
        ("age == '\\u12'", 10, "four hex digits"),
        ("age ==[c", 8, "']'"),
        ("scores[", 7, "a value"),
        ("CAST(1", 6, "')'"),
        ("#", 1, "a name"),
        ("%Q", 1, "a format specifier"),
        ("age == 1 AND AND age == 2", 13, "a value"),
        ("age ==[c]", 9, "a value"),
        ("age[", 4, "a value"),
        ("age[1", 5, "']'"),
        ("{1, 2} ==", 9, "a value"),
        ("age BETWEEN {1, 2", 17, "'}'"),
        ("SUBQUERY(", 9, "a value"),
        ("SUBQUERY(tags", 13, "','"),
        ("SUBQUERY(tags, $t", 17, "','"),
        ("SUBQUERY(tags, $t, $t == 1", 26, "')'"),
        ("SUBQUERY(tags, $t, ) == 1", 19, "a value"),
        ("TERNARY(", 8, "a value"),
        ("TERNARY(age > 1", 15, "','"),
        ("TERNARY(age > 1, 2, 3", 21, "')'"),
        ("FUNCTION(", 9, "a value"),
        ("sqrt(1, ", 8, "a value"),
        ("sqrt 1 == 1", 5, "a comparison operator"),
        ("raise:toPower: == 1", 15, "'(' after the function"),
        ("age == 'a\\x4'", 11, "two hex digits"),
        ("age == '\\uD83D'", 14, "a surrogate pair"),
        ("age == '\\uDC00'", 14, "a surrogate pair"),
        ("age == 0b", 9, "digits for a base-2"),
        ("age == 0o9", 9, "digits for a base-8"),
        ("age == 1e", 8, "AND, OR"),
        ("age == 1 2", 9, "AND, OR"),
        ("age =! 1", 5, "a value"),
        ("age ~= 1", 4, "an operator"),
        ("age == ?", 7, "an operator"),
        ("age == `x`", 7, "an operator"),
        ("age == %", 8, "a format specifier"),
        ("age == %lK", 9, "a format specifier"),
        ("age == %@ AND name == %@", 7, "an argument"),
        ("%K == 1", 0, "an argument"),
        ("ANY ANY tags == 1", 4, "a value"),
        ("tags == ALL", 8, "a value"),
        ("age IN IN {1}", 7, "a value"),
        ("age CONTAINS", 12, "a value"),
        ("age LIKE[cd]", 12, "a value"),
        ("age BEGINSWITH[q] 'a'", 15, "comparison options"),
        ("age ==[c d] 1", 9, "']'"),
        ("SELF.", 5, "a key name"),
        ("name.AND == 1", 5, "a key name"),
        ("name.#", 6, "a name after #"),
        ("age == 'unterminated\\'", 22, "closing '"),
        ("\"abc", 4, "closing \""),
        ("(", 1, "a value"),
        (")", 0, "a value"),
        ("()", 1, "a value"),
        ("(age == 1))", 10, "AND, OR"),
        ("((age == 1)", 11, "')'"),
        ("age == 1 OR", 11, "a value"),
        ("NOT NOT", 7, "a value"),
        ("age ** ", 7, "a value"),
        ("- == 1", 2, "a value"),
        ("{1,} == 1", 3, "a value"),
        ("{,1} == 1", 1, "a value"),
        ("CAST(1, ) == 1", 8, "a value"),
        // `&` and `|` alone are bitwise AND and OR: the operand after them is missing.
        ("age == 1 &", 10, "a value, key path or function"),
        ("age == 1 |", 10, "a value, key path or function"),
        ("a UTI-CONFORMS-TO", 17, "a value"),
        ("1_000 == 1000", 1, "a comparison operator"),
        ("name == 'Zoë' AND ^", 18, "an operator"),
        ("naïve ===", 8, "a value"),
        ("nai\u{308}ve ===", 8, "a value"),
    ]

    @Test(arguments: cases.indices)
    func malformedStringsSayWhereAndWhat(_ index: Int) {
        let (format, offset, expected) = Self.cases[index]
        do {
            let predicate = try QueryPredicate(format: format)
            Issue.record("\(format) parsed as \(predicate)")
        } catch let error as PredicateParseError {
            #expect(error.offset == offset, "\(format): \(error)")
            #expect(error.expected.contains(expected), "\(format): \(error)")
            #expect(error.description.contains("offset \(offset)"), "\(format): \(error)")
        } catch {
            Issue.record("\(format): unexpected \(error)")
        }
    }

    @Test func nestingBeyondTheLimitIsAnErrorNotACrash() {
        for opener in ["(", "NOT ", "-", "!", "{", "SUBQUERY(x, $x, ", "TERNARY(", "abs("] {
            let format = String(repeating: opener, count: 5_000) + "age == 1"
            #expect(throws: PredicateParseError.self, "\(opener)") { try QueryPredicate(format: format) }
        }
        let chain = (0..<5_000).map { _ in "1" }.joined(separator: " + ") + " == 1"
        #expect { try QueryPredicate(format: chain) } throws: { "\($0)".contains("levels of nesting") }
        let indexes = "scores" + String(repeating: "[0]", count: 5_000) + " == 1"
        #expect(throws: PredicateParseError.self) { try QueryPredicate(format: indexes) }
        // Within the limit, deep nesting parses, prints and reads back.
        let deep = String(repeating: "(", count: 40) + "age == 42" + String(repeating: ")", count: 40)
        #expect(throws: Never.self) { _ = try QueryPredicate(format: deep) }
        let long = (0..<60).map { "age == \($0)" }.joined(separator: " OR ")
        #expect(throws: Never.self) { _ = try QueryPredicate(format: long) }
    }

    @Test func formatArgumentsThatDoNotFitAreErrors() {
        #expect { try QueryPredicate(format: "%K == 1", 42) } throws: { "\($0)".contains("a key path string for %K") }
        #expect { try QueryPredicate(format: "%K == 1", nil as String?) } throws: { "\($0)".contains("a key path string for %K") }
        #expect { try QueryPredicate(format: "a == %@ AND b == %@", 1) } throws: { "\($0)".contains("only 1 given") }
    }
}
