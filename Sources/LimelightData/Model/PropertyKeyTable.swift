/// Finds a property's index by its name, for `value(forKey:)` and `setValue(_:forKey:)`, which run
/// for every attribute of every object an application reads or writes.
///
/// A `[String: Int]` hashes each key with the standard library's seeded SipHash; this table hashes
/// the key's UTF-8 bytes with FNV-1a, read in place, which for the short names properties have
/// costs well under half of that, and confirms a match with `==` (for short names a comparison of
/// two words).
struct PropertyKeyTable {
    /// Open addressing: `slots[bucket]` is a property index, or -1 for an empty bucket.
    private var slots: [Int32] = []
    private var names: [String] = []
    private var mask = 0

    init() {}

    /// A table of `names`; a name given twice keeps its first index.
    init(_ names: [String]) {
        self.names = names
        var capacity = 8
        while capacity < names.count * 2 { capacity *= 2 }
        mask = capacity - 1
        slots = Array(repeating: -1, count: capacity)
        for (index, name) in names.enumerated() where self.index(of: name) == nil {
            var bucket = Self.hash(name) & mask
            while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
            slots[bucket] = Int32(index)
        }
    }

    func index(of name: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        var bucket = Self.hash(name) & mask
        while true {
            let candidate = Int(slots[bucket])
            if candidate < 0 { return nil }
            if names[candidate] == name { return candidate }
            bucket = (bucket + 1) & mask
        }
    }

    private static func hash(_ name: String) -> Int {
        // Native and small strings hand out their bytes in place; any other is walked the same way.
        // Both loops are written out for their one element type: through a generic function the
        // call cost more than the hashing.
        let hash = name.utf8.withContiguousStorageIfAvailable { bytes -> UInt64 in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        } ?? {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        }()
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
