import Foundation

/// The observations watching one object's values, kept by the object while there are any.
///
/// An object nobody observes has none (`ManagedObject.keyValueObservers` is `nil`), and a change to it
/// costs a check of that. Each entry is one observation's interest in one slot: the key the
/// observation's key path reaches on this object, at `depth` steps from the object it observes
/// (`author` at depth 0 and then `name` at depth 1 on the author, for `author.name`).
final class ObjectObservers {
    struct Entry {
        let observation: KeyPathObservation
        /// The slot watched; `nil` for every slot (a key path that names no property).
        let slot: Int?
        let depth: Int

        func watches(_ index: Int) -> Bool { slot.map { $0 == index } ?? true }
    }

    var entries: [Entry] = []

    /// The slots an entry watches, or nil when one watches every slot.
    var watchedSlots: Set<Int>? {
        var slots: Set<Int> = []
        for entry in entries {
            guard let slot = entry.slot else { return nil }
            slots.insert(slot)
        }
        return slots
    }
}

extension ManagedObject {
    func addObservationEntry(_ observation: KeyPathObservation, slot: Int?, depth: Int) {
        let table = keyValueObservers ?? ObjectObservers()
        table.entries.append(.init(observation: observation, slot: slot, depth: depth))
        keyValueObservers = table
    }

    /// Takes out `observation`'s entries at `depth`; an object left with none is unobserved again.
    func removeObservationEntries(_ observation: KeyPathObservation, depth: Int) {
        guard let table = keyValueObservers else { return }
        table.entries.removeAll { $0.observation === observation && $0.depth == depth }
        if table.entries.isEmpty { keyValueObservers = nil }
    }

    /// The values a change that may replace several of them at once (a rollback, a refresh, a
    /// merge) starts from, when someone observes them: `nil` for an object nobody observes (the
    /// change then costs nothing more) and for a fault (whose values nobody has seen).
    var valuesBeforeChange: [StoredValue]? {
        @inline(__always) get { keyValueObservers == nil || faultFlag ? nil : values }
    }

    /// Tells observers which values changed since `before` (from `valuesBeforeChange`). An object
    /// the change turned into a fault is read again first: observers are told of values, and
    /// one that asks for the new value would fire the fault anyway.
    @inline(__always)
    func reportChanges(since before: [StoredValue]?) {
        if let before { reportChanges(from: before) }
    }

    private func reportChanges(from before: [StoredValue]) {
        guard let table = keyValueObservers else { return }
        if faultFlag {
            managedObjectContext?.fireFault(self)
            guard !faultFlag else { return }
        }
        let candidates: [Int] = table.watchedSlots.map { $0.sorted() } ?? Array(values.indices)
        var changes: [(slot: Int, old: StoredValue)] = []
        for slot in candidates where slot < before.count && slot < values.count {
            let old = before[slot]
            // A to-many not loaded before had no value anyone saw; one unloaded by the change is
            // loaded again, to compare.
            if case .toMany(.fault) = old { continue }
            if case .toMany(.fault) = values[slot], let relationship = entity.properties[slot] as? RelationshipDescription {
                _ = relatedIDsLoaded(relationship, at: slot)
            }
            if !StoredValue.same(old, values[slot]) { changes.append((slot, old)) }
        }
        deliver(changes)
    }

    /// Tells the observers of slot `index` that it changed from `old` to what it holds now.
    func reportChange(at index: Int, from old: StoredValue) {
        deliver([(index, old)])
    }

    /// Calls each observation concerned by `changes` twice, as key-value observing does: before
    /// the change (with the old values put back for the moment, so a prior notification reads
    /// them as they were) and after it. An observation watching several of the changed slots,
    /// or this object at several steps of its key path, hears once, at the step nearest its
    /// object (which also re-links the steps after it).
    private func deliver(_ changes: [(slot: Int, old: StoredValue)]) {
        guard let table = keyValueObservers, !changes.isEmpty else { return }
        var concerned: [(entry: ObjectObservers.Entry, change: (old: StoredValue, new: StoredValue)?)] = []
        for entry in table.entries {
            guard let change = changes.first(where: { entry.watches($0.slot) }) else { continue }
            let slotChange: (old: StoredValue, new: StoredValue)? = entry.slot == nil ? nil : (change.old, values[change.slot])
            if let existing = concerned.firstIndex(where: { $0.entry.observation === entry.observation }) {
                if concerned[existing].entry.depth > entry.depth { concerned[existing] = (entry, slotChange) }
            } else {
                concerned.append((entry, slotChange))
            }
        }
        guard !concerned.isEmpty else { return }
        let current = changes.map { values[$0.slot] }
        for change in changes { values[change.slot] = change.old }
        let before = concerned.map { $0.entry.observation.willChange(self, depth: $0.entry.depth, slotChange: $0.change) }
        for (change, value) in zip(changes, current) { values[change.slot] = value }
        for ((entry, slotChange), old) in zip(concerned, before) {
            entry.observation.didChange(self, depth: entry.depth, slotChange: slotChange, oldValue: old)
        }
    }
}
