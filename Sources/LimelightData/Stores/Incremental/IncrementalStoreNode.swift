import Foundation

/// One object's saved values as an `IncrementalStore` hands them over, as Core Data's
/// `NSIncrementalStoreNode`: by property name, an attribute's value in its Swift type (missing:
/// nil), a to-one as the destination's `ManagedObjectID` (`NSNull` for none), a to-many as
/// `[ManagedObjectID]` or `Set<ManagedObjectID>` when the store has them at hand. A relationship
/// left out is asked for with `newValue(forRelationship:forObjectWith:with:)`: a to-many when it
/// is first used, a to-one when the object's fault fires.
public final class IncrementalStoreNode: @unchecked Sendable {
    public let objectID: ManagedObjectID
    /// The object's optimistic-locking version, counted as Core Data counts an SQLite row's: 1 when
    /// the object is first saved, one more with every save that changes it. A context that read
    /// the object at one version and saves it when the store's node has another has a conflict;
    /// after its own save it counts one more, so a store whose versions do not move that way
    /// makes the context's next save of the object conflict.
    public private(set) var version: UInt64
    private var values: [String: Any]

    public init(objectID: ManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    /// Replaces the values and the version, for a store that keeps its nodes and brings them up
    /// to date (after a save, or when its source changed).
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
