import Foundation
import Testing
@testable import LimelightData
import PredicateFixtures

/// Binary property lists built byte by byte: every object kind the format has, and damaged or
/// hostile files (truncated, offsets and counts out of range, containers that contain themselves,
/// nesting without end), which must be refused with a reason and never crash or hang the reader.
@Suite struct BinaryPropertyListReaderTests {
    /// A `bplist00` file holding `objects` (each its marker and bytes) in order; the trailer's
    /// fields can be given wrong on purpose.
    static func binary(_ objects: [[UInt8]], top: UInt64 = 0, count: UInt64? = nil, tableOffset: UInt64? = nil,
                       offsetSize: UInt8 = 1, referenceSize: UInt8 = 1, offsets: [UInt64]? = nil) -> Data {
        var out = Array("bplist00".utf8)
        var positions: [UInt64] = []
        for object in objects {
            positions.append(UInt64(out.count))
            out += object
        }
        let table = UInt64(out.count)
        for offset in offsets ?? positions { out += bigEndian(offset, size: Int(offsetSize)) }
        out += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        out += bigEndian(count ?? UInt64(objects.count), size: 8) + bigEndian(top, size: 8) + bigEndian(tableOffset ?? table, size: 8)
        return Data(out)
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (size - 1 - $0))) }
    }

    static func read(_ objects: [[UInt8]]) throws -> Any {
        try PropertyListReader.read(binary(objects))
    }

    @Test func everyObjectKindReads() throws {
        #expect(try Self.read([[0x09]]) as? Bool == true)
        #expect(try Self.read([[0x08]]) as? Bool == false)
        #expect(try Self.read([[0x00]]) is NSNull)
        #expect(try Self.read([[0x10, 0xFF]]) as? Int == 255)
        #expect(try Self.read([[0x11, 0xFF, 0xFE]]) as? Int == 65_534)
        #expect(try Self.read([[0x12, 0xFF, 0xFF, 0xFF, 0xFF]]) as? Int == 4_294_967_295)
        #expect(try Self.read([[0x13] + Self.bigEndian(UInt64(bitPattern: -5), size: 8)]) as? Int == -5)
        #expect(try Self.read([[0x14] + Self.bigEndian(0, size: 8) + Self.bigEndian(UInt64.max, size: 8)]) as? UInt64 == UInt64.max)
        #expect(try Self.read([[0x14] + Self.bigEndian(0, size: 8) + Self.bigEndian(77, size: 8)]) as? Int == 77)
        #expect(try Self.read([[0x14] + Self.bigEndian(UInt64.max, size: 8) + Self.bigEndian(UInt64(bitPattern: -9), size: 8)]) as? Int == -9)
        #expect(try Self.read([[0x22] + Self.bigEndian(UInt64(Float(1.5).bitPattern), size: 4)]) as? Double == 1.5)
        #expect(try Self.read([[0x23] + Self.bigEndian((-0.25).bitPattern, size: 8)]) as? Double == -0.25)
        #expect(try Self.read([[0x33] + Self.bigEndian(Double(86_400).bitPattern, size: 8)]) as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(try Self.read([[0x43, 1, 2, 3]]) as? Data == Data([1, 2, 3]))
        #expect(try Self.read([[0x53] + Array("abc".utf8)]) as? String == "abc")
        #expect(try Self.read([[0x63, 0x00, 0xE9, 0xD8, 0x3C, 0xDF, 0x36]]) as? String == "é🌶")
        #expect(try Self.read([[0x80, 0x05]]) as? PropertyListUID == PropertyListUID(5))
        #expect(try Self.read([[0x81, 0x01, 0x00]]) as? PropertyListUID == PropertyListUID(256))
        let array = try #require(try Self.read([[0xA2, 1, 2], [0x51, 0x61], [0x10, 0x07]]) as? [Any])
        #expect(array.count == 2 && array[0] as? String == "a" && array[1] as? Int == 7)
        #expect(try Self.read([[0xC2, 1, 1], [0x51, 0x61]]) as? [String] == ["a", "a"])
        let dictionary = try #require(try Self.read([[0xD2, 1, 2, 3, 4], [0x51, 0x61], [0x51, 0x62], [0x09], [0x10, 0x02]]) as? [String: Any])
        #expect(dictionary["a"] as? Bool == true && dictionary["b"] as? Int == 2)
        // A count of 15 or more follows the marker as an integer object.
        let long = try Self.read([[0x5F, 0x10, 0x14] + Array(repeating: UInt8(ascii: "z"), count: 20)])
        #expect(long as? String == String(repeating: "z", count: 20))
        // Two-byte offsets and references, and a top object that is not the first.
        let wide = Self.binary([[0x51, 0x78], [0xA1, 0x00, 0x00]], top: 1, offsetSize: 2, referenceSize: 2)
        #expect(try PropertyListReader.read(wide) as? [String] == ["x"])
    }

    static let malformed: [(name: String, data: Data, reason: String)] = [
        ("too short", Data("bplist00".utf8), "too short"),
        ("array containing itself", binary([[0xA1, 0x00]]), "object 0 contains itself"),
        ("array → dictionary → array", binary([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x61]]), "contains itself"),
        ("dictionary key is its dictionary", binary([[0xD1, 0x00, 0x01], [0x09]]), "contains itself"),
        ("reference beyond the objects", binary([[0xA1, 0x05]]), "object reference 5 is beyond the 1 objects"),
        ("reference too large for Int", binary([[0xA1] + bigEndian(UInt64.max, size: 8)], referenceSize: 8), "is beyond the 1 objects"),
        ("offset outside the objects", binary([[0x09]], offsets: [200]), "outside the objects"),
        ("offset into the header", binary([[0x09]], offsets: [3]), "outside the objects"),
        ("absurd array count", binary([[0xAF, 0x13] + bigEndian(UInt64(Int.max), size: 8)]), "claims"),
        ("negative count", binary([[0x5F, 0x13] + bigEndian(UInt64.max, size: 8)]), "negative count"),
        ("string longer than the file", binary([[0x5F, 0x11, 0x10, 0x00, 0x61]]), "claims 4096"),
        ("count that is not an integer", binary([[0x5F, 0x51, 0x61]]), "not an integer"),
        ("UTF-16 string cut short", binary([[0x64, 0x00, 0x61]]), "claims 4"),
        ("integer cut short", binary([[0x13, 0x01]]), "runs past the objects"),
        ("date cut short", binary([[0x33, 0x01, 0x02]]), "runs past the objects"),
        ("integer beyond 64 bits", binary([[0x14] + bigEndian(1, size: 8) + bigEndian(0, size: 8)]), "does not fit in 64 bits"),
        ("32-byte integer", binary([[0x15] + Array(repeating: 0, count: 32)]), "unknown object marker 0x15"),
        ("unknown marker", binary([[0x70]]), "unknown object marker 0x70"),
        ("non-string key", binary([[0xD1, 0x01, 0x01], [0x10, 0x05]]), "key (object 1) is not a string"),
        ("non-ASCII in an ASCII string", binary([[0x51, 0xE9]]), "non-ASCII"),
        ("absurd object count", binary([[0x09]], count: UInt64.max), "does not fit"),
        ("object count larger than the table", binary([[0x09]], count: 1000), "does not fit"),
        ("no objects", binary([[0x09]], count: 0), "inconsistent"),
        ("top object beyond the objects", binary([[0x09]], top: 1), "inconsistent"),
        ("offset table in the trailer", binary([[0x09]], tableOffset: 1000), "inconsistent"),
        ("offset table in the header", binary([[0x09]], tableOffset: 2), "inconsistent"),
        ("offset size 0", binary([[0x09]], offsetSize: 0), "offset size 0"),
        ("reference size 9", binary([[0x09]], referenceSize: 9), "reference size 9"),
    ]

    @Test func malformedFilesAreRefusedWithAReason() {
        for (name, data, reason) in Self.malformed {
            #expect { try PropertyListReader.read(data) } throws: { error in
                let matches = (error as? PropertyListReadError)?.reason.contains(reason) == true
                if !matches { Issue.record("\(name): got \(error), expected \(reason)") }
                return matches
            }
        }
    }

    @Test func nestingIsLimited() throws {
        // Object n is an array holding object n + 1; the last is a string.
        func nested(_ depth: Int) -> Data {
            Self.binary((0..<depth).map { [0xA1, UInt8(($0 + 1) >> 8), UInt8(truncatingIfNeeded: $0 + 1)] } + [[0x51, 0x61]], offsetSize: 2, referenceSize: 2)
        }
        #expect(try PropertyListReader.read(nested(PropertyListReader.maximumDepth)) is [Any])
        #expect { try PropertyListReader.read(nested(PropertyListReader.maximumDepth + 1)) } throws: { error in
            "\(error)".contains("nested deeper")
        }
    }

    /// Each array holds the next one twice: two to the sixteenth paths to the bottom, read in as
    /// many steps as there are objects, since a container is decoded only once. (Sharing that
    /// would expand past a million values is refused: `containersSharedIntoABombAreRefused`.)
    @Test func sharedContainersAreDecodedOnce() throws {
        let levels = 16
        let data = Self.binary((0..<levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x51, 0x61]])
        var value = try PropertyListReader.read(data)
        for _ in 0..<levels {
            let array = try #require(value as? [Any])
            #expect(array.count == 2)
            value = array[1]
        }
        #expect(value as? String == "a")
    }

    /// Every shorter piece of a real file, and thousands of copies with bytes changed at random:
    /// read or refused, never a crash.
    @Test func truncatedAndDamagedFilesNeverCrash() throws {
        let original = try PropertyListWriter.data(PropertyListWriterTests.sample, format: .binary)
        for length in 0..<original.count where length % 7 == 0 || length > original.count - 40 {
            #expect(throws: PropertyListReadError.self) { try PropertyListReader.read(original.prefix(length)) }
        }
        var random = SeededGenerator(seed: 1044)
        var refused = 0
        for _ in 0..<3000 {
            var damaged = [UInt8](original)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                // Mostly the structure (the trailer, offset table and markers), where damage is interesting.
                let position = Bool.random(using: &random) ? Int.random(in: damaged.count - 120..<damaged.count, using: &random)
                                                           : Int.random(in: 8..<damaged.count, using: &random)
                damaged[position] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try PropertyListReader.read(Data(damaged))
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0)
    }

    /// An array holding one array twice, which holds another twice, 60 deep: 200 bytes, but 2^60
    /// values to anything walking what was read (a marker file's values, indexed, never ended).
    /// Refused; sharing a few containers, as a writer may, still reads.
    @Test func containersSharedIntoABombAreRefused() throws {
        func chain(_ depth: Int) -> [[UInt8]] {
            [[0x54] + Array("leaf".utf8)] + (1...depth).map { [0xA2, UInt8($0 - 1), UInt8($0 - 1)] }
        }
        let error = try #require(throws: PropertyListReadError.self) { try PropertyListReader.read(Self.binary(chain(60), top: 60)) }
        #expect(error.reason.contains("shares containers so often that it would hold more than 1048576 values"), "\(error)")
        let shared = try #require(try PropertyListReader.read(Self.binary(chain(4), top: 4)) as? [Any])
        #expect("\(shared)".components(separatedBy: "leaf").count - 1 == 16)
    }
}
