/// The objects a context knows, by ID: found for every row a fetch reads and every fault made,
/// added for every object made, taken out as every object goes.
///
/// An open-addressing table that holds its objects without a reference count, so unchanged
/// objects can go away. Weak references would do that too, but give every object a side table
/// that slows each retain and release of it; instead each object remembers its slot and, as it
/// goes, empties it (`ManagedObject.deinit`) without a search, so no entry outlives its object.
/// As everywhere, objects must be released on their context's queue.
///
/// Slots are laid out for the order objects come and go in: a fetch reads rows by primary key and
/// its result releases them in that order, so eight consecutive keys of one entity share a run of
/// slots (one or two cache lines) instead of landing one per line.
struct ObjectRegistry {
    /// A slot: its mark (`empty`, `removed`, or the ID's hash with the top bit set) and its object,
    /// side by side so a look-up touches one place.
    private struct Entry {
        var mark: UInt64
        var object: Unmanaged<ManagedObject>?
    }

    private var entries: [Entry] = []
    private var shift: UInt64 = 64
    private var used = 0
    private var removed = 0
    private(set) var count = 0

    private static let empty: UInt64 = 0
    private static let removedMark: UInt64 = 1
    private static let occupied: UInt64 = 1 << 63

    /// The object registered under `id`.
    ///
    /// Declared `mutating` though it changes nothing, so that a context's look-up works on its
    /// registry in place: a non-mutating call on a struct kept in a class property is made on a
    /// copy, a retain and a release of the table for every look-up (about 90 instructions, two
    /// look-ups for each object a to-many's faults load).
    mutating func object(for id: ManagedObjectID) -> ManagedObject? {
        guard count > 0 else { return nil }
        let mark = Self.mark(id)
        var slot = index(mark)
        while true {
            let entry = entries[slot]
            if entry.mark == Self.empty { return nil }
            if entry.mark == mark, let candidate = entry.object?.takeUnretainedValue(), candidate.objectID == id { return candidate }
            slot = (slot + 1) & (entries.count - 1)
        }
    }

    /// Registers `object` under its ID, replacing what was registered under it.
    mutating func insert(_ object: ManagedObject) {
        let id = object.objectID
        if let previous = self.object(for: id) {
            if previous === object { return }
            remove(previous)
        }
        insertNew(object, id: id)
    }

    /// Registers `object` under `id` (its ID), which the caller knows to be free.
    mutating func insertNew(_ object: ManagedObject, id: ManagedObjectID) {
        if (used + 1) * 4 > entries.count * 3 { rebuild() }
        let mark = Self.mark(id)
        var slot = index(mark)
        while entries[slot].mark & Self.occupied != 0 { slot = (slot + 1) & (entries.count - 1) }
        if entries[slot].mark == Self.removedMark { removed -= 1 } else { used += 1 }
        entries[slot] = Entry(mark: mark, object: .passUnretained(object))
        object.registrySlot = Self.slotNumber(slot)
        count += 1
    }

    /// Makes room for `additional` more objects at once: registering many together (a to-many's
    /// faults, a fetch's IDs) then grows the table once, instead of doubling it again and again
    /// and putting every object back each time.
    mutating func reserve(_ additional: Int) {
        guard additional > 0, (used + additional) * 4 > entries.count * 3 else { return }
        rebuild(room: additional)
    }

    /// Takes `object` out, if it is the one registered in the slot it remembers.
    mutating func remove(_ object: ManagedObject) {
        let slot = Int(object.registrySlot)
        guard slot >= 0, slot < entries.count, let entry = entries[slot].object,
              entry.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        entries[slot] = Entry(mark: Self.removedMark, object: nil)
        object.registrySlot = -1
        removed += 1
        count -= 1
    }

    /// Takes out whatever is registered under `id`.
    mutating func remove(_ id: ManagedObjectID) {
        if let object = object(for: id) { remove(object) }
    }

    mutating func removeAll() {
        for object in allObjects { object.registrySlot = -1 }
        self = ObjectRegistry()
    }

    /// Every registered object.
    var allObjects: [ManagedObject] {
        entries.compactMap { $0.object?.takeUnretainedValue() }
    }

    private func index(_ mark: UInt64) -> Int {
        // The bits above the lowest three pick a run of eight slots by Fibonacci hashing (the top
        // bits of the product); the lowest three, the slot in it.
        let run = ((mark >> 3) &* 0x9E37_79B9_7F4A_7C15) >> (shift + 3)
        return Int(truncatingIfNeeded: run << 3 | mark & 7)
    }

    /// A slot as an object keeps it, in 32 bits: a table of more slots would take 32 GB for the
    /// slots alone, so the conversion, which stops the program rather than lose track of an
    /// object, is never reached in practice.
    private static func slotNumber(_ slot: Int) -> Int32 { Int32(slot) }

    private static func mark(_ id: ManagedObjectID) -> UInt64 {
        occupied | (id.registryHash & ~occupied)
    }

    /// Grows the table (or clears out removed slots) to hold `room` more objects at half load,
    /// and puts every object back; the marks hold the hashes, so no ID is read again.
    private mutating func rebuild(room: Int = 1) {
        let old = entries
        var capacity = 16
        while capacity < (count + room) * 2 { capacity *= 2 }
        entries = Array(repeating: Entry(mark: Self.empty, object: nil), count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        removed = 0
        used = count
        for entry in old where entry.mark & Self.occupied != 0 {
            guard let object = entry.object else { continue }
            var slot = index(entry.mark)
            while entries[slot].mark != Self.empty { slot = (slot + 1) & (capacity - 1) }
            entries[slot] = entry
            object.takeUnretainedValue().registrySlot = Self.slotNumber(slot)
        }
    }
}
