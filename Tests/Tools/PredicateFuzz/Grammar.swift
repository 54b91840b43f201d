import Foundation
import PredicateFixtures

/// Predicates over the fuzz model's Item entity, generated from the format grammar: every one is
/// well formed, and most can be said in SQL, so they feed both the round trip and the SQL-versus-
/// memory comparison.
struct FuzzGrammar {
    var random: SeededGenerator
    static let strings = ["'Crème brûlée'", "'creme'", "'É'", "'e\\u0301'", "'TARTE'", "'*'", "'a?r*'", "'[x]'", "''", "'ß'",
                          "'red'", "'Ann'", "'åsa'", "\"naïve\"", "'\\\\'"]
    static let likePatterns = ["'C*'", "'*e'", "'?r*'", "'*\\\\**'", "'*[*'", "'Cr?me*'", "'*'", "''", "'é*'"]
    static let regexes = ["'C.*'", "'.*e'", "'[a-zé ]+'", "'(?i)tarte|éclair'", "'.*\\\\*.*'", "'c.?r.*'"]

    mutating func predicate(depth: Int = 0) -> String {
        guard depth < 3 else { return comparison() }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return "(\(predicate(depth: depth + 1))) AND (\(predicate(depth: depth + 1)))"
        case 1: return "\(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1))"
        case 2: return "NOT (\(predicate(depth: depth + 1)))"
        default: return comparison()
        }
    }

    private mutating func options() -> String { random.pick(["", "", "[c]", "[d]", "[cd]", "[n]"]) }

    mutating func comparison() -> String {
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1:
            let op = random.pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS"])
            return "\(stringValue()) \(op)\(options()) \(random.pick(Self.strings))"
        case 2: return "\(stringValue()) LIKE\(options()) \(random.pick(Self.likePatterns))"
        case 3: return "\(stringValue()) MATCHES\(random.pick(["", "[c]", "[d]"])) \(random.pick(Self.regexes))"
        case 4, 5: return "\(number()) \(random.pick(["==", "!=", "<", "<=", ">", "=>", "<>"])) \(number())"
        case 6: return "\(number()) BETWEEN {\(Int.random(in: -5...50, using: &random)), \(Int.random(in: 40...120, using: &random))}"
        case 7: return "\(random.pick(["score", "name", "flag"])) IN {\(random.pick(["1, 2, 3", "'Tarte', nil", "YES", "7, nil"]))}"
        case 8:
            let modifier = random.pick(["ANY", "ALL", "NONE"])
            return random.chance(50)
                ? "\(modifier) tags.name \(random.pick(["==", "BEGINSWITH", "LIKE", "!="]))\(options()) \(random.pick(Self.strings))"
                : "\(modifier) tags.weight \(random.pick(["<", ">", "==", "!="])) \(number(depth: 2))"
        case 9:
            return "SUBQUERY(tags, $t, $t.weight \(random.pick([">", "<", "=="])) \(Int.random(in: 0...5, using: &random)) OR $t.name ==[c] 'red').@count \(random.pick(["==", ">", "<"])) \(Int.random(in: 0...3, using: &random))"
        case 10 where random.chance(30):
            return "SUBQUERY(owner.items, $i, $i.score > \(Int.random(in: 0...100, using: &random))).@count \(random.pick([">", "=="])) \(Int.random(in: 0...20, using: &random))"
        case 10: return "\(random.pick(["owner", "name", "created", "owner.name"])) \(random.pick(["==", "!="])) nil"
        default: return random.pick(["TRUEPREDICATE", "FALSEPREDICATE", "flag == YES", "flag != NO", "SELF == SELF",
                                     "created > CAST(\(Int.random(in: 0...2_000_000, using: &random)), 'NSDate')",
                                     // Forms SQL refuses with an error naming them; memory still answers.
                                     "random() > 0.5", "tags[FIRST].name == 'red'", "median:(tags.weight) > 1", "tags.name == 'red'"])
        }
    }

    mutating func stringValue() -> String {
        random.pick(["name", "name", "owner.name", "uppercase(name)", "lowercase(name)", "TERNARY(flag == YES, name, 'x')"])
    }

    mutating func number(depth: Int = 0) -> String {
        if depth >= 2 { return random.pick(["score", "price", String(Int.random(in: -3...100, using: &random)), "2.5", "0x1F", "tags.@count"]) }
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return "\(number(depth: depth + 1)) \(random.pick(["+", "-", "*", "/"])) \(number(depth: depth + 1))"
        case 1: return "-\(number(depth: depth + 1))"
        case 2: return "\(random.pick(["abs", "sqrt", "floor", "ceiling", "trunc", "ln", "exp"]))(\(number(depth: depth + 1)))"
        case 3: return "\(random.pick(["bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "modulus:by:", "leftshift:by:"]))(score, \(Int.random(in: 0...9, using: &random)))"
        case 4: return random.pick(["tags.@sum.weight", "tags.@avg.weight", "tags.@min.weight", "tags.@max.weight", "sum:(tags.weight)",
                                    "count:(tags)", "tags[SIZE]", "owner.items.@count", "length(name)"])
        case 5: return "(\(number(depth: depth + 1)) ** 2)"
        default: return random.pick(["score", "price", "score", String(Int.random(in: -3...100, using: &random)), "12.25", "0b101"])
        }
    }
}
