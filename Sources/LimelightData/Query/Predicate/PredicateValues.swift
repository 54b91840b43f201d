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

    /// Integers that are integers by type (not doubles that happen to be whole), compared exactly.
    static func exactInteger(_ value: Any) -> Int64? {
        if value is Double || value is Float || value is Decimal { return nil }
        return AttributeValueCoercion.integer(value)
    }

    /// Equality: strings compare by Unicode scalars (as NSString's isEqual and SQLite's BINARY
    /// collation do) unless `[c]`/`[d]` fold them; numbers by value across types.
    static func equal(_ a: Any?, _ b: Any?, options: ComparisonPredicate.Options) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (x as String, y as String):
            return StringFolding.fold(x, options).unicodeScalars.elementsEqual(StringFolding.fold(y, options).unicodeScalars)
        case let (x as Date, y as Date): return x == y
        case let (x as ManagedObject, y as ManagedObject): return x === y
        // An entity compares with an entity, or with its name (as in SQL, where `entity` reads as one).
        case let (x as EntityDescription, y as EntityDescription): return x === y || x.name == y.name
        case let (x as EntityDescription, y as String): return equal(x.name, y, options: options)
        case let (x as String, y as EntityDescription): return equal(x, y.name, options: options)
        case let (x as ManagedObject, y as ManagedObjectID): return x.objectID == y
        case let (x as ManagedObjectID, y as ManagedObject): return x == y.objectID
        case let (x as [Any?], y as [Any?]): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options: options) }
        default: break
        }
        if let a, let b, let x = exactInteger(a), let y = exactInteger(b) { return x == y }
        if let a, let b, isNumber(a), isNumber(b), let x = double(a), let y = double(b) { return x == y }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        if let a, let b, type(of: a) is AnyClass, type(of: b) is AnyClass { return (a as AnyObject) === (b as AnyObject) }
        return false
    }

    /// Ordering, or nil when the values cannot be ordered (then comparisons are false).
    static func compare(_ a: Any?, _ b: Any?, options: ComparisonPredicate.Options) -> ComparisonResult? {
        guard let a, let b else { return nil }
        if let x = a as? String, let y = b as? String {
            let fx = StringFolding.fold(x, options).unicodeScalars, fy = StringFolding.fold(y, options).unicodeScalars
            if fx.elementsEqual(fy) { return .orderedSame }
            return fx.lexicographicallyPrecedes(fy) ? .orderedAscending : .orderedDescending
        }
        if let x = a as? Date, let y = b as? Date { return x.compare(y) }
        // UUIDs and data order by their bytes, as SQLite orders blobs.
        if let x = a as? UUID, let y = b as? UUID { return byteOrder(withUnsafeBytes(of: x.uuid) { Data($0) }, withUnsafeBytes(of: y.uuid) { Data($0) }) }
        if let x = a as? Data, let y = b as? Data { return byteOrder(x, y) }
        if let x = exactInteger(a), let y = exactInteger(b) { return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame) }
        if isNumber(a), isNumber(b), let x = double(a), let y = double(b) {
            if x.isNaN || y.isNaN { return nil }
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        return nil
    }

    /// memcmp order, then the shorter first: SQLite's order of blobs.
    static func byteOrder(_ x: Data, _ y: Data) -> ComparisonResult {
        if x.elementsEqual(y) { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    /// A short description of a value's kind for error messages: `a string ("x")`, `a number (3)`.
    static func describe(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let string as String: return "a string (\(PredicatePrinter.literal(string)))"
        case let bool as Bool: return "a Boolean (\(bool ? "YES" : "NO"))"
        case let date as Date: return "a date (\(date))"
        case let object as ManagedObject: return "an object of \(object.entity.name)"
        case let value?:
            if isNumber(value) { return "a number (\(value))" }
            if elements(value) != nil { return "a collection" }
            return "a value of type \(type(of: value))"
        }
    }

    /// What IN looks through: a collection's elements, or a dictionary's values (as Apple's IN
    /// takes a dictionary: `name IN %@` with a dictionary of names).
    static func members(_ value: Any?) -> [Any?]? {
        if let items = elements(value) { return items }
        switch value {
        case let dictionary as [String: Any?]: return Array(dictionary.values)
        case let dictionary as [String: Any]: return Array(dictionary.values)
        case let dictionary as [AnyHashable: Any]: return Array(dictionary.values)
        default: return nil
        }
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
        case is String, is Substring, is Data, is KeyValueCodingReadable, is [String: Any?], is [String: Any], is [AnyHashable: Any]: return nil
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
    /// The folded form, in NFC so canonically equal spellings fold alike. Without options the text
    /// is returned unchanged: plain comparisons are literal, like SQLite's BINARY collation.
    public static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        let flags = (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
        if flags == 0 { return text }
        // Latin text, nearly all text a store holds, folds by table with the same answers.
        return LatinFolding.fold(text, flags: flags)
            ?? foldFully(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
    }

    /// `fold` through Foundation for any text: what the Latin table is built from.
    static func foldFully(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        if options.isEmpty { return text }
        var folded = text.folding(options: options, locale: nil)
        if caseInsensitive { folded = folded.lowercased() }
        return folded.precomposedStringWithCanonicalMapping
    }

    static func fold(_ text: String, _ options: ComparisonPredicate.Options) -> String {
        fold(text, caseInsensitive: options.contains(.caseInsensitive), diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// Whether `text` matches a LIKE pattern (`*` any run, `?` one Unicode scalar, `\\` escapes
    /// the next one), over the whole string. Scalars, not characters, so it agrees with SQLite's GLOB.
    public static func like(_ text: String, pattern: String) -> Bool {
        let t = Array(text.unicodeScalars)
        // The pattern as (scalar, isWildcard) pairs, escapes resolved.
        var p: [(Unicode.Scalar, Bool)] = []
        var escaped = false
        for scalar in pattern.unicodeScalars {
            if escaped { p.append((scalar, false)); escaped = false; continue }
            if scalar == "\\" { escaped = true; continue }
            p.append((scalar, scalar == "*" || scalar == "?"))
        }
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi].1, p[pi].0 == "?" { ti += 1; pi += 1; continue }
            if pi < p.count, !p[pi].1, p[pi].0 == t[ti] { ti += 1; pi += 1; continue }
            if pi < p.count, p[pi].1, p[pi].0 == "*" { star = pi; mark = ti; pi += 1; continue }
            if star >= 0 { pi = star + 1; mark += 1; ti = mark; continue }
            return false
        }
        while pi < p.count, p[pi].1, p[pi].0 == "*" { pi += 1 }
        return pi == p.count
    }

    /// Substring tests by Unicode scalars, matching SQLite's `instr` and `substr`.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool { text.unicodeScalars.starts(with: prefix.unicodeScalars) }

    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        text.unicodeScalars.reversed().starts(with: suffix.unicodeScalars.reversed())
    }

    static func contains(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.unicodeScalars), needle = Array(part.unicodeScalars)
        if needle.isEmpty { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
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
