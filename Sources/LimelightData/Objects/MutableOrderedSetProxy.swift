import Foundation

/// An ordered to-many relationship seen as a mutable ordered set (Core Data hands out an
/// `NSMutableOrderedSet`): every change goes through the owner's change tracking, so it is
/// undoable, keeps the inverse in step and is saved in its order. An object is in it at most
/// once: inserting one already there leaves it where it is.
///
/// Its names are `NSMutableOrderedSet`'s, which code written for Core Data uses.
public struct MutableOrderedSetProxy: RandomAccessCollection {
    /// The object holding the relationship; `nil` when a key path led through an empty to-one,
    /// which makes the proxy empty and its changes do nothing, as messages to nil in Core Data.
    let owner: ManagedObject?
    let key: String

    /// The relationship's objects in order, read afresh for every call.
    public var array: [ManagedObject] {
        switch owner?.value(forKey: key) {
        case let array as [ManagedObject]: return array
        case let set as Set<ManagedObject>: return Array(set)
        default: return []
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { array.count }
    public subscript(position: Int) -> ManagedObject { array[position] }
    /// Walks one reading of the relationship, rather than reading it again for every element as
    /// the collection's default iterator would (each subscript reads the live relationship).
    public func makeIterator() -> IndexingIterator<[ManagedObject]> { array.makeIterator() }

    /// The object at `index`.
    public func object(at index: Int) -> ManagedObject { array[index] }
    /// Where `object` is, or `nil`.
    public func index(of object: ManagedObject) -> Int? { array.firstIndex { $0 === object } }
    public func contains(_ object: ManagedObject) -> Bool { index(of: object) != nil }

    /// Appends `object` unless it is a member already.
    public func add(_ object: ManagedObject) {
        var members = array
        guard !members.contains(where: { $0 === object }) else { return }
        members.append(object)
        write(members)
    }

    /// Appends each object of `objects` that is not a member yet, in one change, as
    /// `NSMutableOrderedSet.addObjects(from:)`.
    public func addObjects<Objects: Sequence>(from objects: Objects) where Objects.Element: ManagedObject {
        var members = array
        for object in objects where !members.contains(where: { $0 === object }) { members.append(object) }
        write(members)
    }

    /// Removes each object of `objects`, in one change, as `NSMutableOrderedSet.removeObjects(in:)`.
    public func removeObjects<Objects: Sequence>(in objects: Objects) where Objects.Element: ManagedObject {
        let leaving = Array(objects)
        write(array.filter { member in !leaving.contains { $0 === member } })
    }

    /// Inserts `object` at `index` (0...count) unless it is a member already.
    public func insert(_ object: ManagedObject, at index: Int) {
        var members = array
        guard !members.contains(where: { $0 === object }) else { return }
        members.insert(object, at: Swift.min(Swift.max(index, 0), members.count))
        write(members)
    }

    public func remove(_ object: ManagedObject) {
        var members = array
        guard let index = members.firstIndex(where: { $0 === object }) else { return }
        members.remove(at: index)
        write(members)
    }

    /// Removes the object at `index`, when there is one.
    public func removeObject(at index: Int) {
        var members = array
        guard members.indices.contains(index) else { return }
        members.remove(at: index)
        write(members)
    }

    /// Puts `object` at `index` in place of the member there. An `object` that is a member
    /// elsewhere moves here.
    public func replaceObject(at index: Int, with object: ManagedObject) {
        var members = array
        guard members.indices.contains(index) else { return }
        if members[index] === object { return }
        members[index] = object
        if let elsewhere = members.indices.first(where: { $0 != index && members[$0] === object }) { members.remove(at: elsewhere) }
        write(members)
    }

    /// Moves the members at `indexes` (in their order) so the first of them is at `index` of
    /// what is left without them, as `NSMutableOrderedSet.moveObjects(at:to:)`.
    public func moveObjects(at indexes: IndexSet, to index: Int) {
        var members = array
        let moving = indexes.filter { members.indices.contains($0) }.map { members[$0] }
        guard !moving.isEmpty else { return }
        for position in indexes.sorted(by: >) where members.indices.contains(position) { members.remove(at: position) }
        members.insert(contentsOf: moving, at: Swift.min(Swift.max(index, 0), members.count))
        write(members)
    }

    public func removeAllObjects() { write([]) }

    private func write(_ members: [ManagedObject]) { owner?.setValue(members, forKey: key) }
}
