import Foundation

/// The working of one observation: the objects along its key path, how it reads the observed
/// value, and its handler. `KeyValueObservation` is the public token that ends it.
///
/// A key path `author.name` watches `author` on the observed object and `name` on the author
/// that holds now: when the author changes, the observation moves its watch to the new one
/// (`links`). It keeps those objects alive while it lasts, so they stay registered in their
/// context and a merge or refresh reaches the same objects it watches.
final class KeyPathObservation {
    /// The object observed.
    let root: ManagedObject
    /// The keys from the root through to-one relationships; the last may be any property (a
    /// composite attribute's elements after it are read from its value). Empty when the key path
    /// names no property: then every value of the root is watched.
    let keys: [String]
    let options: KeyValueObservingOptions
    /// The observed value, read from the root.
    private let read: (ManagedObject) -> Any?
    /// A to-many's inserted or removed objects as the observed value's type.
    private let objectsValue: ([ManagedObject], _ ordered: Bool) -> Any?
    private let handler: (ManagedObject, ObservedChangeRecord) -> Void
    /// `links[d]` is the object on which `keys[d]` is watched; fewer than `keys` when a to-one
    /// along the way is empty.
    private var links: [ManagedObject] = []
    private(set) var isActive = true

    init(root: ManagedObject, keys: [String], options: KeyValueObservingOptions, read: @escaping (ManagedObject) -> Any?,
         objectsValue: @escaping ([ManagedObject], Bool) -> Any?, handler: @escaping (ManagedObject, ObservedChangeRecord) -> Void) {
        self.root = root
        self.keys = keys
        self.options = options
        self.read = read
        self.objectsValue = objectsValue
        self.handler = handler
    }

    /// Starts watching, and makes the initial call when the options ask for it.
    func start() {
        if keys.isEmpty {
            root.addObservationEntry(self, slot: nil, depth: 0)
        } else {
            links = [root]
            watch(root, depth: 0)
            relink(after: 0)
        }
        if options.contains(.initial) {
            var record = ObservedChangeRecord()
            if options.contains(.new) { record.newValue = .some(read(root)) }
            handler(root, record)
        }
    }

    /// Stops watching and lets go of the objects along the key path; no call follows.
    func stop() {
        guard isActive else { return }
        isActive = false
        if keys.isEmpty { root.removeObservationEntries(self, depth: 0) }
        for (depth, object) in links.enumerated() { object.removeObservationEntries(self, depth: depth) }
        links = []
    }

    private func watch(_ object: ManagedObject, depth: Int) {
        guard let slot = object.entityLayout.keys.index(of: keys[depth]) else { return }
        object.addObservationEntry(self, slot: slot, depth: depth)
    }

    /// Moves the watch past `depth` to the objects the to-one relationships hold now. Those are
    /// loaded if they are faults: changes to a fault's values (a merge) are not reported, since
    /// nobody has seen them, and the observation is about to read them anyway.
    private func relink(after depth: Int) {
        for later in links.indices where later > depth { links[later].removeObservationEntries(self, depth: later) }
        if links.count > depth + 1 { links.removeSubrange((depth + 1)...) }
        var current = depth
        while current + 1 < keys.count, current < links.count,
              let next = links[current].value(forKey: keys[current]) as? ManagedObject {
            current += 1
            if next.faultFlag { next.managedObjectContext?.fireFault(next) }
            links.append(next)
            watch(next, depth: current)
        }
    }

    /// Before a change of the slot watched at `depth` on `object` (whose old values are in place
    /// for the moment): the prior call, and the old value kept for the call after the change.
    func willChange(_ object: ManagedObject, depth: Int, slotChange: (old: StoredValue, new: StoredValue)?) -> Any?? {
        guard isActive else { return nil }
        let toMany = toManyChange(object, depth: depth, slotChange)
        let old: Any?? = options.contains(.old) && toMany == nil ? .some(read(root)) : nil
        if options.contains(.prior) {
            var record = ObservedChangeRecord(isPrior: true)
            if let toMany {
                record.kind = toMany.kind
                record.indexes = toMany.indexes
                if toMany.kind == .removal, options.contains(.old) { record.oldValue = .some(toMany.objects) }
            } else {
                record.oldValue = old
            }
            handler(root, record)
        }
        return old
    }

    /// After the change: the watch moves on if a to-one along the key path changed, and the
    /// handler hears of it.
    func didChange(_ object: ManagedObject, depth: Int, slotChange: (old: StoredValue, new: StoredValue)?, oldValue: Any??) {
        guard isActive else { return }
        if !keys.isEmpty, depth + 1 < keys.count { relink(after: depth) }
        var record: ObservedChangeRecord
        if let toMany = toManyChange(object, depth: depth, slotChange) {
            record = ObservedChangeRecord(kind: toMany.kind, indexes: toMany.indexes)
            if toMany.kind == .insertion, options.contains(.new) { record.newValue = .some(toMany.objects) }
            if toMany.kind == .removal, options.contains(.old) { record.oldValue = .some(toMany.objects) }
        } else {
            record = ObservedChangeRecord()
            if options.contains(.new) { record.newValue = .some(read(root)) }
            record.oldValue = oldValue
        }
        handler(root, record)
    }

    /// A change of a to-many the key path ends at that only added objects (an insertion) or
    /// only took some out (a removal), with those objects as the observed value's type and, for
    /// an ordered relationship, their positions; `nil` for any other change.
    private func toManyChange(_ object: ManagedObject, depth: Int, _ slotChange: (old: StoredValue, new: StoredValue)?)
        -> (kind: KeyValueChange, objects: Any?, indexes: IndexSet?)? {
        guard depth == keys.count - 1, let slotChange, case .toMany(.loaded(let before)) = slotChange.old,
              case .toMany(.loaded(let after)) = slotChange.new, let context = object.managedObjectContext,
              let slot = object.entityLayout.keys.index(of: keys[depth]) else { return nil }
        let ordered = (object.entity.properties[slot] as? RelationshipDescription)?.isOrdered ?? false
        let kept = Set(before.ids)
        let now = Set(after.ids)
        let added = after.ids.indices.filter { !kept.contains(after.ids[$0]) }
        let removed = before.ids.indices.filter { !now.contains(before.ids[$0]) }
        // Both gained and lost (or only moved, in an ordered one): a setting of the whole.
        guard removed.isEmpty != added.isEmpty else { return nil }
        let kind: KeyValueChange = removed.isEmpty ? .insertion : .removal
        let positions = removed.isEmpty ? added : removed
        let ids = removed.isEmpty ? added.map { after.ids[$0] } : removed.map { before.ids[$0] }
        let objects = objectsValue(ids.map { context.object(with: $0) }, ordered)
        return (kind, objects, ordered ? IndexSet(positions) : nil)
    }
}
