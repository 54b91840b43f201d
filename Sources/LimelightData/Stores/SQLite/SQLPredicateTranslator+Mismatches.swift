import Foundation

extension SQLPredicateTranslator {
    /// Whether two operands are known to hold values of different kinds (a number and a string, a
    /// date and a number, a collection and anything single).
    static func kindsDiffer(_ left: Operand, _ right: Operand) -> Bool {
        guard let l = left.kind, let r = right.kind else { return false }
        return l != r
    }

    /// `==` and `!=` between values of different kinds (`count != name`, `SUBQUERY(…) == 0`), decided
    /// as Foundation's `isEqual:` decides them in memory: a number never equals a string, whatever
    /// its digits, so `==` holds only when both sides are nil and `!=` otherwise. SQLite's type
    /// affinity would instead compare `5` and `'5'` as equal. Orderings (`<` …) of such values stay
    /// an error, as they are in memory.
    func mismatchedEquality(_ c: ComparisonPredicate, _ left: Operand, _ right: Operand, _ bindings: inout [SQLiteValue]) -> String? {
        guard c.operatorType == .equal || c.operatorType == .notEqual, Self.kindsDiffer(left, right),
              !Self.dateAndString(left, right) else { return nil }
        bindings += left.bindings + right.bindings
        let bothNil = "(\(left.sql) IS NULL AND \(right.sql) IS NULL)"
        return c.operatorType == .equal ? bothNil : "NOT \(bothNil)"
    }

    /// Whether one operand is a date and the other a string: Core Data's fetch refuses that
    /// comparison whatever the operator (it reads the string as a date and fails), so `checkTypes`
    /// refuses it, and evaluation in memory does too.
    static func dateAndString(_ left: Operand, _ right: Operand) -> Bool {
        guard let l = left.kind, let r = right.kind else { return false }
        return l == .date && r == .string || l == .string && r == .date
    }

    /// The error for a member of the list of IN or BETWEEN that cannot be compared with the left operand.
    static func listMismatch(_ c: ComparisonPredicate, _ left: Operand, _ member: Any?) -> PersistenceError {
        let why = left.kind == .date || member is Date ? ": a date compares only with a date" : ""
        return .invalidRequest("type mismatch: \(c.operatorType.rawValue) compares the left operand, \(left.kind?.rawValue ?? "a value") "
                               + "(\(PredicatePrinter.format(c.left))), with \(PredicateValues.describe(member)) in the right operand\(why)")
    }

    /// `x IN SUBQUERY(…)` and `SUBQUERY(…) CONTAINS x`: whether the object is among the rows the
    /// subquery keeps. An object of another table, or a value that is no object, never is.
    func membership(_ c: ComparisonPredicate, _ left: Operand, _ right: Operand, _ bindings: inout [SQLiteValue]) throws -> String? {
        let member: Operand, rows: KeptRows
        switch c.operatorType {
        case .in:
            guard let kept = right.rows else { return nil }
            (member, rows) = (left, kept)
        case .contains:
            guard let kept = left.rows else { return nil }
            (member, rows) = (right, kept)
        default:
            if let kept = left.rows ?? right.rows, c.operatorType != .equal, c.operatorType != .notEqual {
                let what = kept.path.isEmpty ? "objects" : "values of \(kept.path.joined(separator: "."))"
                throw PersistenceError.invalidRequest(
                    "type mismatch: \(c.operatorType.rawValue) cannot compare a SUBQUERY's \(what); count them with .@count, or compare each with ANY or ALL")
            }
            return nil
        }
        if member.isNull { return "0" }
        guard member.isObjectKey, member.objectRoot.map({ $0 === rows.entity.rootEntity }) ?? true else { return "0" }
        bindings += rows.bindings + member.bindings
        return "EXISTS (SELECT 1 \(rows.from) AND \(rows.alias).Z_PK = \(member.sql))"
    }
}
