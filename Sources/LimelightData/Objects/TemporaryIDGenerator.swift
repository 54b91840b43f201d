import Foundation
import Synchronization

/// The UUIDs of temporary object IDs: 122 random bits drawn once per process, the low half then
/// counted up, with the bits of a version 4 UUID.
///
/// Every object takes a temporary ID when made — each fetched or faulted object too, before it
/// gets its permanent one — and Foundation's `UUID()` opens, reads and closes `/dev/urandom` per
/// call, three system calls per object. Unique within the process (the counter) and between
/// processes (the random part), which is all a temporary ID needs.
enum TemporaryIDGenerator {
    private static let seed: (high: UInt64, low: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UUID {
        let count = counter.add(1, ordering: .relaxed).newValue
        // Version 4 in the high half's bits 12–15, variant 0b10 in the low half's top bits.
        let high = (seed.high & ~0xF000) | 0x4000
        let low = ((seed.low &+ count) & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000
        let h = high.bigEndian, l = low.bigEndian
        return withUnsafeBytes(of: (h, l)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
}
