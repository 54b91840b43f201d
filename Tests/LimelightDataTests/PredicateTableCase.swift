import Foundation
import Testing
@testable import LimelightData

/// One row of the predicate tables: a format string with its arguments, the canonical form it
/// prints as, and what it evaluates to against `sample`.
struct PredicateTableCase {
    var format: String
    var arguments: [Any?]
    var printed: String
    var result: Bool

    init(_ format: String, _ arguments: [Any?], _ printed: String, _ result: Bool) {
        self.format = format
        self.arguments = arguments
        self.printed = printed
        self.result = result
    }

    /// The plain-value fixture every row evaluates against: accents in both normal forms, mixed
    /// case, nil, numbers of several types, collections and nested dictionaries.
    nonisolated(unsafe) static let sample: [String: Any?] = [
        "name": "Zoë Ångström", "age": 42, "height": 1.82, "nickname": nil, "active": true, "code": "AB-12",
        "tags": ["swift", "core", "Data"], "scores": [3, 5, 8], "born": Date(timeIntervalSinceReferenceDate: 100),
        "friends": [["name": "Al", "age": 30], ["name": "Bé", "age": 50]] as [[String: Any]],
        "address": ["city": "Malmö", "zip": 21120] as [String: Any], "empty": [Int](),
        "title": "naïve café", "shout": "ÉCOLE", "decomposed": "Cafe\u{301}", "zero": 0, "negative": -5,
        "big": Int64(9_007_199_254_740_993), "ratio": 0.5, "flags": 0b1010, "emoji": "👍🏽 ok", "blank": "",
        "star": "a*b?c", "path": "C:\\dir", "nested": [[1, 2], [3]], "größe": 3,
    ]

    nonisolated(unsafe) static let variables: [String: Any?] = [
        "AGE": 42, "FLAG": true, "NAME": "Zoë Ångström", "LIST": [1, 42], "NOTHING": nil,
    ]

    /// Parses, checks the printed form, checks that it reads back to the same predicate and
    /// prints the same again, and evaluates.
    func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let predicate = try QueryPredicate(format: format, argumentArray: arguments)
        let text = predicate.predicateFormat
        #expect(text == printed, "\(format)", sourceLocation: sourceLocation)
        let reparsed = try QueryPredicate(format: text)
        #expect(reparsed == predicate, "\(format) printed as \(text)", sourceLocation: sourceLocation)
        #expect(reparsed.predicateFormat == text, "\(format): printing is not stable", sourceLocation: sourceLocation)
        let value = try predicate.evaluate(with: Self.sample, substitutionVariables: Self.variables)
        #expect(value == result, "\(format)", sourceLocation: sourceLocation)
    }
}
