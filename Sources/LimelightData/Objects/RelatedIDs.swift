/// The IDs a loaded to-many holds, in order, each once.
///
/// A to-many is often filled one object at a time, and each addition asks whether the object is
/// there already, on both sides of the relationship. A list alone makes that a walk of every
/// ID, and filling a relationship quadratic; so once a list that is changed grows past a few
/// dozen IDs it keeps a hash set of them beside it, as Core Data's mutable sets do. Lists that
/// are only read (most loaded to-manys) never pay for the set.
@usableFromInline
struct RelatedIDs: RandomAccessCollection, Equatable, ExpressibleByArrayLiteral {
    private(set) var ids: [ManagedObjectID]
    /// Every ID in `ids`, once a change found the list long enough to be worth it.
    private var members: Set<ManagedObjectID>?

    /// Below this many IDs a walk of the list is as quick as hashing.
    private static let indexedCount = 32

    init(_ ids: [ManagedObjectID]) {
        self.ids = ids
    }

    @usableFromInline
    init(arrayLiteral ids: ManagedObjectID...) {
        self.ids = ids
    }

    @usableFromInline
    var startIndex: Int { ids.startIndex }
    @usableFromInline
    var endIndex: Int { ids.endIndex }
    @usableFromInline
    subscript(position: Int) -> ManagedObjectID { ids[position] }

    func contains(_ id: ManagedObjectID) -> Bool {
        members?.contains(id) ?? ids.contains(id)
    }

    /// Appends `id` unless it is there already; returns whether it was added.
    @discardableResult
    mutating func insert(_ id: ManagedObjectID) -> Bool {
        if members == nil, ids.count >= Self.indexedCount { members = Set(ids) }
        if members != nil {
            guard members?.insert(id).inserted == true else { return false }
        } else if ids.contains(id) {
            return false
        }
        ids.append(id)
        return true
    }

    /// Takes `id` out; returns whether it was there.
    @discardableResult
    mutating func remove(_ id: ManagedObjectID) -> Bool {
        if members != nil {
            guard members?.remove(id) != nil else { return false }
        }
        guard let position = ids.firstIndex(of: id) else { return false }
        ids.remove(at: position)
        return true
    }

    @usableFromInline
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.ids == rhs.ids }
}
