import Foundation
import PredicateFixtures

/// The inputs the fuzzer tries: raw bytes, token soup, mutations of known predicates, and
/// predicates generated from the grammar over the fuzz model (which must parse).
enum FuzzInputs {
    static let seeds = [
        "name BEGINSWITH[cd] 'cr' AND score > 3", "ANY tags.name ==[c] 'RED'", "SUBQUERY(tags, $t, $t.weight > 2).@count == 1",
        "score BETWEEN {1, 10}", "NOT (flag == YES OR name == nil)", "price * 2 + -score ** 2 >= 0x10", "name MATCHES '[a-z]+\\\\d'",
        "TERNARY(flag == YES, score, 0) IN {1, 2, 3}", "tags.@avg.weight < 1.5e0", "name LIKE '*\\\\**'", "owner.name != %@",
        "%K == %d", "created > CAST(0, 'NSDate')", "#size == $x", "{1, 2}[SIZE] == 2", "'é' IN[d] name", "ALL tags.weight > 0",
        "NONE tags.name == 'a\\u0301'", "sum:(tags.weight) == 0", "uppercase(name) == 'ÉCLAIR'", "FUNCTION(SELF, 'x') == 1",
        "modulus:by:(score, 3) == 0 && !(price < 1)", "a.b.c[FIRST].@count =< 3", "SELF IN %@", "now() > created",
    ]

    static let fragments = ["AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "SUBQUERY(", "TERNARY(", "BETWEEN", "IN", "CONTAINS",
        "LIKE", "MATCHES", "%K", "%@", "%d", "%%", "[c]", "[cd]", "[n]", "[FIRST]", "[LAST]", "[SIZE]", "[0]", "$x", "#", "'", "\"",
        "\\u", "\\x", "\\0", "\\", "0x", "0b", "1e", "1.5", "@count", "@sum.", ".", "(", ")", "{", "}", ",", "==", "=<", "<>", "**", "-",
        "FUNCTION(", "CAST(", "now()", "SELF", "nil", "YES", "é", "\u{301}", "👍", "\u{0}", "\n", "TRUEPREDICATE", ":="]

    static func randomBytes(_ random: inout SeededGenerator) -> String {
        let bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func tokenSoup(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...14, using: &random)).map { _ in
            random.chance(30) ? random.pick(["name", "score", "tags", "1", "'x'", "2.5"]) : random.pick(fragments)
        }.joined(separator: random.chance(70) ? " " : "")
    }

    static func mutation(of text: String, _ random: inout SeededGenerator) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !scalars.isEmpty: scalars.remove(at: position)
            case 1: scalars.insert(contentsOf: random.pick(fragments).unicodeScalars, at: position)
            case 2 where !scalars.isEmpty: scalars[position] = Unicode.Scalar(UInt8.random(in: 32...126, using: &random))
            case 3:
                let other = Array(random.pick(seeds).unicodeScalars)
                let start = Int.random(in: 0..<other.count, using: &random)
                scalars.insert(contentsOf: other[start..<min(other.count, start + Int.random(in: 1...16, using: &random))], at: position)
            case 4 where !scalars.isEmpty: scalars.removeSubrange(position..<min(scalars.count, position + Int.random(in: 1...6, using: &random)))
            default: scalars.insert(contentsOf: scalars[position...].prefix(8), at: position)
            }
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }
}
