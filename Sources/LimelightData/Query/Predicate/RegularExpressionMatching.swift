import Foundation

/// MATCHES: the whole string against an ICU regular expression, shared by in-memory evaluation and
/// the `REGEXP` function the SQLite store registers, so both agree.
///
/// The pattern is wrapped as `\A(?:pattern)\z`, which is ICU's `matches()` (the whole input, with
/// backtracking into alternatives) rather than a search. It is compiled on its own first, so a
/// pattern such as `a)|(b` cannot escape the wrapping. Compiled expressions are cached: a fetch
/// runs the same pattern against every row.
public enum RegularExpressionMatching {
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var expressions: [String: NSRegularExpression] = [:]
    }

    private static let cache = Cache()
    private static let cacheLimit = 256

    /// Whether `text` as a whole matches `pattern`; an invalid pattern is an error naming it.
    public static func matches(_ text: String, pattern: String, caseInsensitive: Bool) throws -> Bool {
        let expression = try compiled(pattern, caseInsensitive: caseInsensitive)
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func compiled(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        cache.lock.lock()
        let known = cache.expressions[key]
        cache.lock.unlock()
        if let known { return known }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        guard pattern.isEmpty || (try? NSRegularExpression(pattern: pattern, options: options)) != nil else {
            throw PredicateEvaluationError("MATCHES: '\(pattern)' is not a valid regular expression")
        }
        // In free-spacing mode a trailing comment would swallow the closing group; a newline ends it.
        guard let expression = (try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options))
                ?? (try? NSRegularExpression(pattern: "\\A(?:" + pattern + "\n)\\z", options: options)) else {
            throw PredicateEvaluationError("MATCHES: '\(pattern)' cannot be matched against a whole string")
        }
        cache.lock.lock()
        if cache.expressions.count >= cacheLimit { cache.expressions.removeAll() }
        cache.expressions[key] = expression
        cache.lock.unlock()
        return expression
    }
}
