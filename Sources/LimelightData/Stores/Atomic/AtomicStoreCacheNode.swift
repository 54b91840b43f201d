import Foundation

/// One object as an `AtomicStore` keeps it in memory, as Core Data's `NSAtomicStoreCacheNode`:
/// its ID and its saved values by property name.
///
/// What `propertyCache` holds, by property name: an attribute's value in its Swift type (as
/// `value(forKey:)` gives it), a to-one's destination as its cache node, a to-many's as a
/// `Set<AtomicStoreCacheNode>` (an ordered one's as an array). A property missing from the
/// cache reads as nil, or as an empty to-many.
///
/// Nodes are the store's, touched only while the coordinator has the store (in `load()`,
/// `save()` and the cache-node hooks); two nodes are the same node only when they are the same
/// instance.
open class AtomicStoreCacheNode: Hashable, @unchecked Sendable {
    public let objectID: ManagedObjectID
    /// The saved values by property name (see the type's description).
    open var propertyCache: [String: Any]? {
        didSet { row = nil }
    }
    /// The store's optimistic-locking version of the object: one when first saved, one more at
    /// each saved change.
    var version: Int64 = 1
    /// The node as a store row, kept until its values change.
    var row: StoreRow?

    public init(objectID: ManagedObjectID) {
        self.objectID = objectID
    }

    /// The value cached for `key`.
    open func value(forKey key: String) -> Any? {
        propertyCache?[key]
    }

    /// Caches `value` for `key`; nil removes it.
    open func setValue(_ value: Any?, forKey key: String) {
        var cache = propertyCache ?? [:]
        cache[key] = value
        propertyCache = cache
    }

    /// Drops the relationship values, which hold other nodes. A relationship and its inverse
    /// make two nodes hold each other, so nodes the store lets go of (the store itself going
    /// away, or the objects deleted by a save) would otherwise keep each other alive for good.
    func releaseRelatedNodes() {
        guard var cache = propertyCache else { return }
        for name in objectID.entity.relationshipsByName.keys { cache[name] = nil }
        propertyCache = cache
    }

    public static func == (lhs: AtomicStoreCacheNode, rhs: AtomicStoreCacheNode) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
