import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// Random byte strings and mutated valid predicates thrown at the parser: each gives a predicate
/// or a `PredicateParseError`, never a crash; whatever parses prints to a string that reads back
/// to the same predicate, and evaluates to a value or a `PredicateEvaluationError`.
@Suite struct PredicateFuzzTests {
    static var seeds: [String] {
        (PredicateComparisonTableTests.cases + PredicateStringTableTests.cases + PredicateCollectionTableTests.cases
            + PredicateExpressionTableTests.cases).map(\.format) + PredicateMalformedTests.cases.map(\.0)
    }

    static let fragments = ["AND", "OR", "NOT", "ANY", "ALL", "NONE", "SUBQUERY(", "TERNARY(", "BETWEEN", "IN", "%K", "%@", "[cd]",
        "[FIRST]", "[SIZE]", "$x", "#", "'", "\"", "\\u", "\\x", "\\0", "0x", "1e", "@count", ".", "(", ")", "{", "}", ",", "==", "**",
        "-", "%%", "FUNCTION(", "CAST(", "now()", "SELF", "nil", "é", "\u{301}", "👍", "\u{0}", "\n"]

    /// Checks one input; returns whether it parsed.
    static func exercise(_ text: String, arguments: [Any?]) -> Bool {
        let predicate: QueryPredicate
        do {
            predicate = try QueryPredicate(format: text, argumentArray: arguments)
        } catch is PredicateParseError {
            return false
        } catch {
            Issue.record("\(text.debugDescription): \(type(of: error)) instead of PredicateParseError")
            return false
        }
        let printed = predicate.predicateFormat
        do {
            let reparsed = try QueryPredicate(format: printed)
            // NaN never equals itself, so only its printed form can be compared.
            #expect(reparsed == predicate || reparsed.predicateFormat == printed, "\(text.debugDescription) printed as \(printed.debugDescription)")
        } catch {
            Issue.record("\(text.debugDescription) printed as \(printed.debugDescription), which does not parse: \(error)")
        }
        do {
            _ = try predicate.evaluate(with: PredicateTableCase.sample, substitutionVariables: PredicateTableCase.variables)
        } catch is PredicateEvaluationError {
        } catch {
            Issue.record("\(text.debugDescription): evaluation threw \(type(of: error))")
        }
        return true
    }

    @Test func randomBytesNeverCrashTheParser() {
        var generator = SeededGenerator(seed: 7)
        var parsed = 0
        for _ in 0..<4_000 {
            let bytes = (0..<Int.random(in: 0...48, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Lossy decoding keeps invalid UTF-8 in play as U+FFFD.
            let text = String(decoding: bytes, as: UTF8.self)
            if Self.exercise(text, arguments: [1, "x", 2.5]) { parsed += 1 }
        }
        for _ in 0..<4_000 {
            let alphabet = Array("abc019 ()[]{}'\"\\$%@#!=<>*+-/.,:&|éÅ\u{301}_")
            let text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            if Self.exercise(text, arguments: [1, "x", 2.5]) { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    @Test func mutatedPredicatesNeverCrashTheParser() {
        var generator = SeededGenerator(seed: 11)
        let seeds = Self.seeds
        var parsed = 0
        for _ in 0..<6_000 {
            var scalars = Array((seeds.randomElement(using: &generator) ?? "a == 1").unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0 where !scalars.isEmpty: scalars.remove(at: position)
                case 1: scalars.insert(contentsOf: (Self.fragments.randomElement(using: &generator) ?? "(").unicodeScalars, at: position)
                case 2 where !scalars.isEmpty: scalars[position] = Unicode.Scalar(UInt8.random(in: 32...126, using: &generator))
                case 3:
                    // Splice in a piece of another seed.
                    let other = Array((seeds.randomElement(using: &generator) ?? "").unicodeScalars)
                    guard !other.isEmpty else { continue }
                    let start = Int.random(in: 0..<other.count, using: &generator)
                    scalars.insert(contentsOf: other[start..<min(other.count, start + Int.random(in: 1...12, using: &generator))], at: position)
                default:
                    if !scalars.isEmpty { scalars.removeSubrange(position..<min(scalars.count, position + 3)) }
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            if Self.exercise(text, arguments: ["age", 42, [1, 2], "x"]) { parsed += 1 }
        }
        #expect(parsed > 500)
    }
}
