/// The objects a context knows, by ID: found for every row a fetch reads and every fault made,
/// added for every object made, taken out as every object goes.
///
/// An open-addressing table that holds its objects without a reference count, so unchanged
/// objects can go away. Weak references would do that too, but give every object a side table
/// that slows each retain and release of it; instead each object remembers its slot and, as it
/// goes, empties it (`ManagedObject.deinit`) without a search, so no entry outlives its object.
/// As everywhere, objects must be released on their context's queue.
struct ObjectRegistry {
    /// Per slot: `empty`, `removed`, or the ID's hash with the top bit set.
    private var marks: [UInt64] = []
    private var objects: [Unmanaged<ManagedObject>?] = []
    private var shift: UInt64 = 64
    private var used = 0
    private var removed = 0
    private(set) var count = 0

    private static let empty: UInt64 = 0
    private static let removedMark: UInt64 = 1
    private static let occupied: UInt64 = 1 << 63

    /// The object registered under `id`.
    func object(for id: ManagedObjectID) -> ManagedObject? {
        guard count > 0 else { return nil }
        let mark = Self.mark(id)
        var slot = index(mark)
        while true {
            let current = marks[slot]
            if current == Self.empty { return nil }
            if current == mark, let candidate = objects[slot]?.takeUnretainedValue(), candidate.objectID == id { return candidate }
            slot = (slot + 1) & (marks.count - 1)
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
        if (used + 1) * 4 > marks.count * 3 { rebuild() }
        let mark = Self.mark(id)
        var slot = index(mark)
        while marks[slot] & Self.occupied != 0 { slot = (slot + 1) & (marks.count - 1) }
        if marks[slot] == Self.removedMark { removed -= 1 } else { used += 1 }
        marks[slot] = mark
        objects[slot] = .passUnretained(object)
        object.registrySlot = slot
        count += 1
    }

    /// Takes `object` out, if it is the one registered in the slot it remembers.
    mutating func remove(_ object: ManagedObject) {
        let slot = object.registrySlot
        guard slot >= 0, slot < objects.count, let entry = objects[slot],
              entry.toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        marks[slot] = Self.removedMark
        objects[slot] = nil
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
        objects.compactMap { $0?.takeUnretainedValue() }
    }

    private func index(_ mark: UInt64) -> Int {
        // Fibonacci hashing: the top bits of the product pick the slot.
        Int(truncatingIfNeeded: (mark &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private static func mark(_ id: ManagedObjectID) -> UInt64 {
        occupied | (id.registryHash & ~occupied)
    }

    /// Grows the table (or clears out removed slots) and puts every object back; the marks
    /// hold the hashes, so no ID is read again.
    private mutating func rebuild() {
        let (oldMarks, oldObjects) = (marks, objects)
        var capacity = 16
        while capacity < (count + 1) * 2 { capacity *= 2 }
        marks = Array(repeating: Self.empty, count: capacity)
        objects = Array(repeating: nil, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        removed = 0
        used = count
        for (position, mark) in oldMarks.enumerated() where mark & Self.occupied != 0 {
            guard let entry = oldObjects[position] else { continue }
            var slot = index(mark)
            while marks[slot] != Self.empty { slot = (slot + 1) & (capacity - 1) }
            marks[slot] = mark
            objects[slot] = entry
            entry.takeUnretainedValue().registrySlot = slot
        }
    }
}
