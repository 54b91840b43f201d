import Foundation

/// Where and how a store's contents break the rules its model and layout set: a value of a
/// storage class its attribute cannot take, a row of no known entity, a key that is missing.
/// Such stores come from other programs, other versions of an app or hand edits; reading one
/// stops at the first damaged place and names it, so nothing is guessed and nothing is written.
public struct StoreDamage: Error, CustomStringConvertible, Sendable {
    /// The store's file.
    public var path: String
    /// The table holding the damaged row or value.
    public var table: String
    /// The row's entity, when its `Z_ENT` names one.
    public var entity: String?
    /// The column holding the damaged value, when one value is at fault.
    public var column: String?
    /// The row's `Z_PK`, when it has one.
    public var primaryKey: Int64?
    /// What is wrong, in words.
    public var reason: String

    public init(path: String, table: String, entity: String? = nil, column: String? = nil, primaryKey: Int64? = nil, reason: String) {
        (self.path, self.table, self.entity, self.column, self.primaryKey, self.reason) = (path, table, entity, column, primaryKey, reason)
    }

    public var description: String {
        var place = "table \(table)"
        if let entity { place += ", entity \(entity)" }
        if let primaryKey { place += ", Z_PK \(primaryKey)" }
        if let column { place += ", column \(column)" }
        return "\(path): damaged store: \(place): \(reason)"
    }
}
