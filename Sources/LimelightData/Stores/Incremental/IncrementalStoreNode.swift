import Foundation

/// One object's saved values as an `IncrementalStore` hands them over, as Core Data's
/// `NSIncrementalStoreNode`: by property name, an attribute's value in its Swift type, a to-one
/// as the destination's `ManagedObjectID` (or nil), a to-many as `[ManagedObjectID]` or
/// `Set<ManagedObjectID>` when the store has them at hand. A to-many left out is asked for when
/// it is first used (`newValue(forRelationship:forObjectWith:with:)`).
public final class IncrementalStoreNode: @unchecked Sendable {
    public let objectID: ManagedObjectID
    /// The object's optimistic-locking version: a save that read an older one is a conflict.
    public private(set) var version: UInt64
    private var values: [String: Any]

    public init(objectID: ManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    /// Replaces the values and the version.
    public func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        self.version = version
    }

    /// The value for `property`, nil when the node has none.
    public func value(for property: PropertyDescription) -> Any? {
        values[property.name]
    }

    /// Whether the node says anything about `property` (a to-many it leaves out is asked for later).
    func has(_ property: PropertyDescription) -> Bool {
        values[property.name] != nil
    }
}
