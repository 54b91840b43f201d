import Foundation

/// How predicate values compare: numbers by value across types, strings with optional case and
/// diacritic folding, dates by time, objects by identity, nil equal only to nil.
enum PredicateValues {
    static func integer(_ value: Any) -> Int64? { AttributeValueCoercion.integer(value) }

    static func double(_ value: Any) -> Double? {
        if value is String { return nil }
        return AttributeValueCoercion.double(value)
    }

    static func isNumber(_ value: Any) -> Bool {
        !(value is String) && (value is Bool || AttributeValueCoercion.double(value) != nil)
    }

    static func equal(_ a: Any?, _ b: Any?, options: ComparisonPredicate.Options) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as String, y as String): return StringFolding.fold(x, options) == StringFolding.fold(y, options)
        case let (x as Date, y as Date): return x == y
        case let (x as ManagedObject, y as ManagedObject): return x === y
        case let (x as ManagedObject, y as ManagedObjectID): return x.objectID == y
        case let (x as ManagedObjectID, y as ManagedObject): return x == y.objectID
        case let (x as [Any?], y as [Any?]): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options: options) }
        default: break
        }
        if let a, let b, isNumber(a), isNumber(b), let x = double(a), let y = double(b) { return x == y }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        if let a, let b, type(of: a) is AnyClass, type(of: b) is AnyClass { return (a as AnyObject) === (b as AnyObject) }
        return false
    }

    /// Ordering, or nil when the values cannot be ordered (then comparisons are false).
    static func compare(_ a: Any?, _ b: Any?, options: ComparisonPredicate.Options) -> ComparisonResult? {
        guard let a, let b else { return nil }
        if let x = a as? String, let y = b as? String {
            let fx = StringFolding.fold(x, options), fy = StringFolding.fold(y, options)
            return fx < fy ? .orderedAscending : (fx > fy ? .orderedDescending : .orderedSame)
        }
        if let x = a as? Date, let y = b as? Date { return x.compare(y) }
        if isNumber(a), isNumber(b), let x = double(a), let y = double(b) {
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        return nil
    }

    /// The elements of a collection value, or nil when it is not a collection.
    static func elements(_ value: Any?) -> [Any?]? {
        switch value {
        case let collection as QueryCollection: return collection.queryElements
        case let set as Set<ManagedObject>: return Array(set)
        case let array as [ManagedObject]: return array
        case let array as [Any?]: return array
        case let array as [Any]: return array
        case let set as Set<AnyHashable>: return Array(set)
        case is String, is Data, is KeyValueCodingReadable, is [String: Any?], is [String: Any], is [AnyHashable: Any]: return nil
        case let sequence as any Sequence:
            var items: [Any?] = []
            for item in sequence { items.append(item) }
            return items
        default: return nil
        }
    }
}

/// Case and diacritic folding shared by in-memory evaluation and the SQL function `LL_FOLD`, so
/// both give the same answers.
public enum StringFolding {
    public static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        if options.isEmpty { return text }
        let folded = text.folding(options: options, locale: nil)
        return caseInsensitive ? folded.lowercased() : folded
    }

    static func fold(_ text: String, _ options: ComparisonPredicate.Options) -> String {
        fold(text, caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// Whether `text` matches a LIKE pattern (`*` any run, `?` one character), whole string.
    public static func like(_ text: String, pattern: String) -> Bool {
        let t = Array(text), p = Array(pattern)
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "\\", pi + 1 < p.count, p[pi + 1] == t[ti] { ti += 1; pi += 2; continue }
            if pi < p.count, p[pi] == "?" || (p[pi] == t[ti] && p[pi] != "*") { ti += 1; pi += 1; continue }
            if pi < p.count, p[pi] == "*" { star = pi; mark = ti; pi += 1; continue }
            if star >= 0 { pi = star + 1; mark += 1; ti = mark; continue }
            return false
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}

/// Objects whose values predicates can read by key. Managed objects and dictionaries are such.
public protocol KeyValueCodingReadable {
    func value(forKey key: String) -> Any?
}

/// A collection predicates can walk (to-many relationship proxies, custom containers).
public protocol QueryCollection {
    var queryElements: [Any] { get }
}

extension ManagedObject: KeyValueCodingReadable {}
