import Foundation

/// The two-way map between a custom store's reference objects (its own keys for objects: an
/// XML store's `z102`, a row number, a UUID string) and the integer keys object IDs and their
/// URIs carry, per inheritance tree as the SQLite store's primary keys are.
///
/// An integer reference is its own key, so URIs of stores that use integers stay the same from
/// one launch to the next; any other reference gets the next key above every key handed out,
/// which depends on the order objects are loaded in.
struct ReferenceObjectKeys {
    private var keys: [ObjectIdentifier: [AnyHashable: Int64]] = [:]
    private var references: [ObjectIdentifier: [Int64: AnyHashable]] = [:]
    private var highest: [ObjectIdentifier: Int64] = [:]

    /// The key of `reference` in `root`'s tree, given one the first time it is seen.
    mutating func key(for reference: AnyHashable, root: EntityDescription) -> Int64 {
        let tree = ObjectIdentifier(root)
        if let key = keys[tree]?[reference] { return key }
        var key = Self.integer(reference) ?? 0
        if key <= 0 || references[tree]?[key] != nil { key = freeKey(tree) }
        keys[tree, default: [:]][reference] = key
        references[tree, default: [:]][key] = reference
        highest[tree] = max(highest[tree] ?? 0, key)
        return key
    }

    /// The reference that `key` stands for in `root`'s tree.
    func reference(for key: Int64, root: EntityDescription) -> AnyHashable? {
        references[ObjectIdentifier(root)]?[key]
    }

    /// The reference `objectID` stands for, when it is an ID of `store`.
    func reference(for objectID: ManagedObjectID, of store: PersistentStore) -> AnyHashable? {
        guard objectID.storeIdentifier == store.identifier, let key = objectID.primaryKey else { return nil }
        return reference(for: key, root: objectID.entity.rootEntity)
    }

    /// A key no object of `root`'s tree has: what a new object's reference is by default.
    func unusedKey(root: EntityDescription) -> Int64 {
        freeKey(ObjectIdentifier(root))
    }

    /// The key above every key handed out; once a reference has taken the last one there is
    /// (a file may number an object 9223372036854775807), the lowest positive key not taken,
    /// rather than one that wraps round.
    private func freeKey(_ tree: ObjectIdentifier) -> Int64 {
        let top = highest[tree] ?? 0
        if top < .max { return top + 1 }
        var key: Int64 = 1
        while references[tree]?[key] != nil { key += 1 }
        return key
    }

    private static func integer(_ reference: AnyHashable) -> Int64? {
        switch reference.base {
        case let value as Int64: value
        case let value as Int: Int64(value)
        case let value as Int32: Int64(value)
        case let value as UInt64: Int64(exactly: value)
        case let value as UInt: Int64(exactly: value)
        default: nil
        }
    }
}
