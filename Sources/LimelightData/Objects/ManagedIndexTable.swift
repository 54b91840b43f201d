import Synchronization

/// Which property of one entity each `@Managed` declaration stands for, by the identity of the
/// declaration's key path: what every typed read and write of the entity's objects asks first.
///
/// Read without a lock, since the same few declarations are asked about millions of times and
/// learned only once each: readers load the current snapshot, an immutable open-addressed table;
/// a writer publishes a larger copy. Every snapshot stays alive as long as the table, so a reader
/// holding an older one never sees it freed, and each snapshot keeps its key paths alive, so an
/// identity in it is never reused by another key path.
@usableFromInline
final class ManagedIndexTable: @unchecked Sendable {
    /// An immutable table: `identities[bucket]` is a key path's address (0 for an empty bucket),
    /// `indices[bucket]` its property index; `entries` keeps the key paths alive.
    @usableFromInline
    final class Snapshot: @unchecked Sendable {
        /// What was learned, in order: what the next snapshot starts from.
        let entries: [(keyPath: AnyKeyPath, index: Int)]
        @usableFromInline let identities: [UInt]
        @usableFromInline let indices: [Int]
        @usableFromInline let mask: Int

        init(entries: [(keyPath: AnyKeyPath, index: Int)]) {
            var capacity = 8
            while capacity < entries.count * 2 { capacity *= 2 }
            mask = capacity - 1
            var identities = Array(repeating: UInt(0), count: capacity)
            var indices = Array(repeating: 0, count: capacity)
            for (keyPath, index) in entries {
                let identity = UInt(bitPattern: ObjectIdentifier(keyPath))
                var bucket = Snapshot.bucket(identity, mask: mask)
                while identities[bucket] != 0 { bucket = (bucket + 1) & mask }
                identities[bucket] = identity
                indices[bucket] = index
            }
            self.entries = entries
            self.identities = identities
            self.indices = indices
        }

        @inlinable
        static func bucket(_ identity: UInt, mask: Int) -> Int {
            Int(truncatingIfNeeded: (UInt64(identity) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        }

        @inlinable @inline(__always)
        func index(of identity: UInt) -> Int? {
            var bucket = Snapshot.bucket(identity, mask: mask)
            while true {
                let candidate = identities[bucket]
                if candidate == identity { return indices[bucket] }
                if candidate == 0 { return nil }
                bucket = (bucket + 1) & mask
            }
        }
    }

    /// Key paths of generic classes may be made afresh per access; past this many declarations
    /// per entity, new ones are not learned (they are looked up each time instead).
    static let capacity = 512

    /// The address of the snapshot readers use.
    @usableFromInline let current = Atomic<UInt>(0)
    /// Every snapshot published, oldest first; only writers touch it.
    private let published = Mutex<[Snapshot]>([])

    /// The property index learned for `keyPath`, if any.
    @inlinable @inline(__always)
    func index(of keyPath: AnyKeyPath) -> Int? {
        let address = current.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        let identity = UInt(bitPattern: ObjectIdentifier(keyPath))
        return Unmanaged<Snapshot>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.index(of: identity) }
    }

    /// Remembers that `keyPath` reads the property at `index`.
    func learn(_ keyPath: AnyKeyPath, index: Int) {
        published.withLock { snapshots in
            var entries = snapshots.last?.entries ?? []
            guard entries.count < Self.capacity, !entries.contains(where: { $0.keyPath === keyPath }) else { return }
            entries.append((keyPath, index))
            let snapshot = Snapshot(entries: entries)
            snapshots.append(snapshot)
            current.store(UInt(bitPattern: Unmanaged.passUnretained(snapshot).toOpaque()), ordering: .releasing)
        }
    }
}
