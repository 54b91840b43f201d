import Foundation

/// A to-many relationship seen as a mutable set; changes go through the owner's change tracking.
public struct MutableSetProxy: Sequence {
    /// The object holding the relationship; `nil` when a key path led through an empty to-one,
    /// which makes the proxy empty and its changes do nothing, as messages to nil in Core Data.
    let owner: ManagedObject?
    let key: String

    private var current: [ManagedObject] {
        switch owner?.value(forKey: key) {
        case let set as Set<ManagedObject>: return Array(set)
        case let array as [ManagedObject]: return array
        default: return []
        }
    }

    public var count: Int { current.count }
    public func contains(_ object: ManagedObject) -> Bool { current.contains { $0 === object } }
    public func makeIterator() -> IndexingIterator<[ManagedObject]> { current.makeIterator() }

    /// Adds one object: works on the related IDs, so filling a relationship one object at a time
    /// costs no more than setting it whole.
    public func insert(_ object: ManagedObject) {
        guard let owner else { return }
        guard owner.changeToMany(key, adding: object) else {
            owner.setValue(current + [object], forKey: key)
            return
        }
    }

    public func remove(_ object: ManagedObject) {
        guard let owner else { return }
        guard owner.changeToMany(key, removing: object) else {
            owner.setValue(current.filter { $0 !== object }, forKey: key)
            return
        }
    }

    public func removeAll() { owner?.setValue([ManagedObject](), forKey: key) }

    // `NSMutableSet`'s names, which code written for Core Data's `mutableSetValue(forKey:)` uses.

    /// The relationship's objects.
    public var allObjects: [ManagedObject] { current }
    /// `insert(_:)`.
    public func add(_ object: ManagedObject) { insert(object) }
    /// `removeAll()`.
    public func removeAllObjects() { removeAll() }
    /// Adds each object of `objects`, as `NSMutableSet.addObjects(from:)`.
    public func addObjects<Objects: Sequence>(from objects: Objects) where Objects.Element: ManagedObject {
        for object in objects { insert(object) }
    }
    /// Adds each object of `objects`, as `NSMutableSet.union(_:)`.
    public func union<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject { addObjects(from: objects) }
    /// Removes each object of `objects`, as `NSMutableSet.minus(_:)`.
    public func minus<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject {
        for object in objects { remove(object) }
    }
}
