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
    /// The names again, by their two-word representation: a key that is the very string stored
    /// (a small string of the same text, or the same string literal), as nearly every key is, is
    /// found by comparing two words, without hashing its text. Open addressing with `mask`;
    /// `index` -1 is an empty bucket.
    private var representations: [(bits: (UInt64, UInt64), index: Int32)] = []

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
        guard Self.hasTwoWordStrings else { return }
        representations = Array(repeating: ((0, 0), -1), count: capacity)
        for bucket in slots.indices where slots[bucket] >= 0 {
            let bits = Self.representation(names[Int(slots[bucket])])
            var position = Self.mix(bits) & mask
            while representations[position].index >= 0 { position = (position + 1) & mask }
            representations[position] = (bits, slots[bucket])
        }
    }

    func index(of name: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        // Equal representations are equal strings (the same inline text, or the same storage);
        // any other key, found or not, takes the hashed path below.
        if !representations.isEmpty {
            let bits = Self.representation(name)
            var position = Self.mix(bits) & mask
            while true {
                let entry = representations[position]
                if entry.index < 0 { break }
                if entry.bits == bits { return Int(entry.index) }
                position = (position + 1) & mask
            }
        }
        var bucket = Self.hash(name) & mask
        while true {
            let candidate = Int(slots[bucket])
            if candidate < 0 { return nil }
            if names[candidate] == name { return candidate }
            bucket = (bucket + 1) & mask
        }
    }

    /// Whether a `String` is the two words `representation` reads (on every 64-bit platform).
    private static let hasTwoWordStrings = MemoryLayout<String>.size == 16

    private static func representation(_ name: String) -> (UInt64, UInt64) {
        unsafeBitCast(name, to: (UInt64, UInt64).self)
    }

    private static func mix(_ bits: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ bits.1.byteSwapped) &* 0x9E37_79B9_7F4A_7C15) >> 32)
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
