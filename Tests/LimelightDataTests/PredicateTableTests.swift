import Foundation
import Testing
@testable import LimelightData

/// The predicate language, table-driven: each format string parses, prints back to something that
/// parses to the same predicate, and evaluates as Core Data would against a sample object.
@Suite struct PredicateTableTests {
    nonisolated(unsafe) static let sample: [String: Any?] = [
        "name": "Zoë Ångström", "age": 42, "height": 1.82, "nickname": nil, "active": true, "code": "AB-12",
        "tags": ["swift", "core", "Data"], "scores": [3, 5, 8], "born": Date(timeIntervalSinceReferenceDate: 100),
        "friends": [["name": "Al", "age": 30], ["name": "Bé", "age": 50]] as [[String: Any]],
        "address": ["city": "Malmö", "zip": 21120] as [String: Any], "empty": [Int](),
    ]

    nonisolated(unsafe) static let cases: [(String, [Any?], Bool)] = [
        ("TRUEPREDICATE", [], true), ("FALSEPREDICATE", [], false), ("truepredicate", [], true),
        ("age == 42", [], true), ("age = 42", [], true), ("age != 42", [], false), ("age <> 41", [], true),
        ("age < 43", [], true), ("age <= 42", [], true), ("age =< 42", [], true), ("age > 42", [], false),
        ("age >= 42", [], true), ("age => 43", [], false), ("age == 42.0", [], true), ("height > 1.8", [], true),
        ("height < 1.8e0", [], false), ("age == 0x2A", [], true), ("age == 0o52", [], true), ("age == 0b101010", [], true),
        ("age BETWEEN {40, 45}", [], true), ("age BETWEEN {43, 45}", [], false), ("age IN {1, 42, 3}", [], true),
        ("age IN {1, 2}", [], false), ("NOT age IN {1, 2}", [], true), ("! (age == 1)", [], true),
        ("age == 42 AND height > 1", [], true), ("age == 42 && height > 2", [], false), ("age == 1 OR height > 1", [], true),
        ("age == 1 || height > 2", [], false), ("age == 1 OR age == 42 AND height > 1", [], true),
        ("(age == 1 OR age == 42) AND height > 2", [], false), ("NOT (age == 1 OR age == 2)", [], true),
        ("name == 'Zoë Ångström'", [], true), ("name == \"Zoë Ångström\"", [], true), ("name ==[c] 'zoë ångström'", [], true),
        ("name ==[cd] 'zoe angstrom'", [], true), ("name ==[d] 'Zoe Angstrom'", [], true), ("name ==[d] 'zoe angstrom'", [], false),
        ("name BEGINSWITH 'Zo'", [], true), ("name BEGINSWITH 'zo'", [], false), ("name BEGINSWITH[c] 'zo'", [], true),
        ("name ENDSWITH 'ström'", [], true), ("name ENDSWITH[cd] 'STROM'", [], true), ("name CONTAINS ' '", [], true),
        ("name CONTAINS[cd] 'ANG'", [], true), ("name CONTAINS 'ang'", [], false), ("name LIKE 'Zo* *'", [], true),
        ("name LIKE 'Z?ë*'", [], true), ("name LIKE[c] 'z*'", [], true), ("name LIKE 'z*'", [], false),
        ("code MATCHES '[A-Z]{2}-[0-9]+'", [], true), ("code MATCHES '[a-z]{2}-[0-9]+'", [], false),
        ("code MATCHES[c] '[a-z]{2}-[0-9]+'", [], true), ("code MATCHES 'AB'", [], false), ("'AB' IN code", [], true),
        ("nickname == nil", [], true), ("nickname == NULL", [], true), ("nickname != nil", [], false), ("nickname < 3", [], false),
        ("nickname BEGINSWITH 'a'", [], false), ("name != nil", [], true), ("missing == nil", [], true),
        ("active == YES", [], true), ("active == TRUE", [], true), ("active == NO", [], false), ("active == 1", [], true),
        ("ANY tags == 'swift'", [], true), ("SOME tags == 'swift'", [], true), ("ANY tags == 'go'", [], false),
        ("ALL tags != 'go'", [], true), ("ALL tags BEGINSWITH 's'", [], false), ("NONE tags == 'go'", [], true),
        ("NONE tags == 'core'", [], false), ("ANY tags ==[c] 'data'", [], true), ("tags CONTAINS 'core'", [], true),
        ("tags CONTAINS 'go'", [], false), ("'core' IN tags", [], true), ("tags.@count == 3", [], true),
        ("scores.@sum == 16", [], true), ("scores.@avg > 5", [], true), ("scores.@min == 3", [], true), ("scores.@max == 8", [], true),
        ("empty.@count == 0", [], true), ("ANY scores > 7", [], true), ("ALL scores > 2", [], true), ("ALL scores > 3", [], false),
        ("friends.@count == 2", [], true), ("ANY friends.name == 'Al'", [], true), ("ANY friends.age > 45", [], true),
        ("ALL friends.age > 45", [], false), ("friends.@sum.age == 80", [], true), ("friends.@max.age == 50", [], true),
        ("ANY friends.name ==[cd] 'be'", [], true), ("address.city == 'Malmö'", [], true), ("address.zip > 20000", [], true),
        ("SUBQUERY(friends, $f, $f.age > 40).@count == 1", [], true), ("SUBQUERY(friends, $f, $f.age > 60).@count == 0", [], true),
        ("SUBQUERY(friends, $f, $f.name BEGINSWITH 'A' AND $f.age < 40).@count > 0", [], true),
        ("age + 1 == 43", [], true), ("age - 2 == 40", [], true), ("age * 2 == 84", [], true), ("age / 2 == 21", [], true),
        ("2 ** 3 == 8", [], true), ("2 ** 3 ** 2 == 512", [], true), ("-age == -42", [], true), ("age + 2 * 3 == 48", [], true),
        ("(age + 2) * 3 == 132", [], true), ("age - -2 == 44", [], true), ("1 + 2 + 3 == 6", [], true),
        ("sqrt(16) == 4", [], true), ("abs(-3) == 3", [], true), ("floor(1.5) == 1", [], true), ("ceiling(1.5) == 2", [], true),
        ("trunc(1.9) == 1", [], true), ("ln(1) == 0", [], true), ("log(100) == 2", [], true), ("exp(0) == 1", [], true),
        ("raise:toPower:(2, 10) == 1024", [], true), ("sum:({1, 2, 3}) == 6", [], true), ("max({1, 9, 3}) == 9", [], true),
        ("min({4, 2, 3}) == 2", [], true), ("average({2, 4}) == 3", [], true), ("count({1, 2, 3}) == 3", [], true),
        ("median({1, 5, 3}) == 3", [], true), ("stddev({2, 4, 4, 4, 5, 5, 7, 9}) == 2", [], true),
        ("uppercase(code) == 'AB-12'", [], true), ("lowercase(code) == 'ab-12'", [], true), ("length(code) == 5", [], true),
        ("bitwiseAnd:with:(12, 10) == 8", [], true), ("bitwiseOr:with:(12, 10) == 14", [], true),
        ("bitwiseXor:with:(12, 10) == 6", [], true), ("leftshift:by:(1, 4) == 16", [], true), ("rightshift:by:(16, 2) == 4", [], true),
        ("onesComplement(0) == -1", [], true), ("modulus:by:(10, 3) == 1", [], true), ("add:to:(2, 3) == 5", [], true),
        ("now() > born", [], true), ("born == CAST(100, 'NSDate')", [], true), ("born < CAST(101.5, \"NSDate\")", [], true),
        ("TERNARY(age > 40, 'old', 'young') == 'old'", [], true), ("TERNARY(age > 50, 1, 2) == 2", [], true),
        ("scores[FIRST] == 3", [], true), ("scores[LAST] == 8", [], true), ("scores[SIZE] == 3", [], true), ("scores[1] == 5", [], true),
        ("{1, 2} == {1, 2}", [], true), ("SELF.age == 42", [], true),
        ("name == %@", ["Zoë Ångström"], true), ("%K == %@", ["age", 42], true), ("age == %d", [42], true), ("age == %i", [42], true),
        ("age == %ld", [42], true), ("height > %f", [1.5], true), ("name BEGINSWITH %s", ["Zo"], true), ("age IN %@", [[1, 42]], true),
        ("%K CONTAINS[c] %@", ["name", "ÅNG"], true), ("age == $AGE", [], true), ("name == 'a' OR $FLAG == YES", [], true),
        ("#size == nil", [], true), ("address.#in == nil", [], true), ("name MATCHES '.*str.*'", [], true),
        ("name == 'quote\\\"inside'", [], false), ("name != 'x\\ny'", [], true), ("name == '\\u005A'", [], false),
        ("age > 40 AND age < 50 AND height > 1 AND active == YES", [], true), ("NOT NOT age == 42", [], true),
    ]

    @Test(arguments: cases.indices)
    func parsesPrintsAndEvaluates(_ index: Int) throws {
        let (format, arguments, expected) = Self.cases[index]
        let predicate = try QueryPredicate(format: format, argumentArray: arguments)
        let printed = predicate.predicateFormat
        let reparsed = try QueryPredicate(format: printed)
        #expect(reparsed == predicate, "\(format) printed as \(printed)")
        let result = try predicate.evaluate(with: Self.sample, substitutionVariables: ["AGE": 42, "FLAG": true])
        #expect(result == expected, "\(format)")
    }

    static let malformed: [(String, Int, String)] = [
        ("", 0, "a value"), ("age ==", 6, "a value"), ("age == 1 AND", 12, "a value"), ("(age == 1", 9, "')'"),
        ("age === 1", 6, "a value"), ("age == 'open", 12, "closing '"), ("age BETWEEN", 11, "a value"),
        ("age == 1 age", 9, "AND, OR"), ("== 1", 0, "a value"), ("age ==[x] 1", 7, "comparison options"),
        ("SUBQUERY(tags, x, x == 1)", 15, "a $variable"), ("age == %@", 7, "an argument"), ("name == 'a' ^ 1", 12, "an operator"),
        ("frobnicate(1) == 2", 0, "a known function"), ("age == {1, 2", 12, "'}'"), ("$ == 1", 1, "a variable name"),
        ("age == 0xZZ", 9, "digits"), ("age IN", 6, "a value"), ("NOT", 3, "a value"), ("age == 1)", 8, "AND, OR"),
        ("ANY", 3, "a value"), ("TERNARY(age > 1, 2)", 18, "','"), ("age.", 4, "a key name"), ("age == '\\u12'", 10, "four hex digits"),
        ("age ==[c", 8, "']'"), ("scores[", 7, "a value"), ("CAST(1", 6, "')'"), ("#", 1, "a name"), ("%Q", 1, "a format specifier"),
    ]

    @Test(arguments: malformed.indices)
    func malformedStringsSayWhereAndWhat(_ index: Int) {
        let (format, offset, expected) = Self.malformed[index]
        do {
            _ = try QueryPredicate(format: format)
            Issue.record("\(format) parsed")
        } catch let error as PredicateParseError {
            #expect(error.offset == offset, "\(format): \(error)")
            #expect(error.expected.contains(expected), "\(format): \(error)")
        } catch {
            Issue.record("\(format): unexpected \(error)")
        }
    }

    @Test func randomInputNeverCrashesTheParser() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ019 ()[]{}'\"\\$%@#!=<>*+-/.,:&|éÅ\u{0}\n") + ["AND", "OR", "ANY", "SUBQUERY(", "BETWEEN", "%K", "[cd]"].flatMap { Array($0) }
        let seeds = Self.cases.map(\.0)
        var parsed = 0
        for round in 0..<5000 {
            var text: String
            if round % 2 == 0 {
                text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            } else {
                var characters = Array(seeds.randomElement(using: &generator) ?? "a == 1")
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !characters.isEmpty {
                    let position = Int.random(in: 0..<characters.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: characters.remove(at: position)
                    case 1: characters.insert(alphabet.randomElement(using: &generator) ?? "x", at: position)
                    default: characters[position] = alphabet.randomElement(using: &generator) ?? "x"
                    }
                }
                text = String(characters)
            }
            if let predicate = try? QueryPredicate(format: text, argumentArray: [1, "x", 2.5]) {
                parsed += 1
                _ = predicate.predicateFormat
                _ = try? predicate.evaluate(with: Self.sample)
            }
        }
        #expect(parsed > 0)
    }

    @Test func substitutionAndTemplates() throws {
        let template = try QueryPredicate(format: "age > $MIN AND name BEGINSWITH $PREFIX")
        let bound = template.withSubstitutionVariables(["MIN": 40, "PREFIX": "Zo"])
        #expect(bound.predicateFormat == "age > 40 AND name BEGINSWITH \"Zo\"")
        #expect(try bound.evaluate(with: Self.sample))
        #expect(throws: PredicateEvaluationError.self) { try template.evaluate(with: Self.sample) }
    }
}
