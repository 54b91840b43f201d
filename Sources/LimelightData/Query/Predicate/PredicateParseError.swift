import Foundation

/// A format string that does not parse: where, what was found, and what was expected.
public struct PredicateParseError: Error, CustomStringConvertible, Equatable {
    public var format: String
    /// Character offset of the problem in `format`.
    public var offset: Int
    public var found: String
    public var expected: String

    public var description: String {
        "expected \(expected) at offset \(offset) (found \(found)) in \"\(format)\""
    }
}
