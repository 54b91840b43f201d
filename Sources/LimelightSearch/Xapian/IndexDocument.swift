import Foundation

/// One document to put into the index: found again and replaced by its unique term.
public struct IndexDocument: Sendable, Equatable {
    public var uniqueTerm: String
    /// Exact-match filter terms (e.g. `XERecipe` for `entity:Recipe`).
    public var booleanTerms: [String]
    /// Free text, indexed under its prefix: searchable as `field:word`, and by plain words, which
    /// search every field's prefix (an empty prefix: plain words only).
    public var fields: [(prefix: String, text: String)]
    public var values: [UInt32: Data]
    public var data: Data

    public init(uniqueTerm: String, booleanTerms: [String] = [], fields: [(prefix: String, text: String)] = [],
                values: [UInt32: Data] = [:], data: Data = Data()) {
        self.uniqueTerm = uniqueTerm
        self.booleanTerms = booleanTerms
        self.fields = fields
        self.values = values
        self.data = data
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.uniqueTerm == rhs.uniqueTerm && lhs.booleanTerms == rhs.booleanTerms && lhs.values == rhs.values
            && lhs.data == rhs.data && lhs.fields.map(\.prefix) == rhs.fields.map(\.prefix) && lhs.fields.map(\.text) == rhs.fields.map(\.text)
    }
}
