import Foundation

/// Writes a property list in Apple's binary form (`bplist00`): the objects, then a table of their
/// offsets, then a trailer giving the sizes of offsets and object references.
///
/// Objects are written as met, without sharing equal strings: the result is a little larger than
/// Foundation's for repetitive lists and is read the same by every reader.
enum BinaryPropertyListEncoder {
    static func encode(_ root: PropertyListWriter.Value) -> Data {
        var objects: [Object] = []
        flatten(root, into: &objects)
        let referenceSize = byteCount(for: UInt64(objects.count - 1))
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .bytes(let bytes):
                out += bytes
            case .array(let references):
                appendHeader(0xA, count: references.count, to: &out)
                for reference in references { appendBigEndian(UInt64(reference), size: referenceSize, to: &out) }
            case .dictionary(let keys, let values):
                appendHeader(0xD, count: keys.count, to: &out)
                for reference in keys + values { appendBigEndian(UInt64(reference), size: referenceSize, to: &out) }
            }
        }
        let tableOffset = out.count
        let offsetSize = byteCount(for: UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize, to: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        appendBigEndian(UInt64(objects.count), size: 8, to: &out)
        appendBigEndian(0, size: 8, to: &out)   // the root is the first object
        appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
        return Data(out)
    }

    /// One object of the file: scalars already encoded; containers as the indices of their
    /// elements, encoded once every index (and so the reference size) is known.
    private enum Object {
        case bytes([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    @discardableResult
    private static func flatten(_ value: PropertyListWriter.Value, into objects: inout [Object]) -> Int {
        let index = objects.count
        switch value {
        case .array(let elements):
            objects.append(.array([]))
            let references = elements.map { flatten($0, into: &objects) }
            objects[index] = .array(references)
        case .dictionary(let entries):
            objects.append(.dictionary(keys: [], values: []))
            let keys = entries.map { flatten(.string($0.key), into: &objects) }
            let values = entries.map { flatten($0.value, into: &objects) }
            objects[index] = .dictionary(keys: keys, values: values)
        default:
            objects.append(.bytes(scalarBytes(value)))
        }
        return index
    }

    private static func scalarBytes(_ value: PropertyListWriter.Value) -> [UInt8] {
        var out: [UInt8] = []
        switch value {
        case .bool(let bool):
            out.append(bool ? 0x09 : 0x08)
        case .integer(let int):
            appendInteger(int, to: &out)
        case .unsignedInteger(let int):
            // Beyond Int64: sixteen bytes, the high half zero, as Foundation writes them.
            out.append(0x14)
            appendBigEndian(0, size: 8, to: &out)
            appendBigEndian(int, size: 8, to: &out)
        case .real(let double):
            out.append(0x23)
            appendBigEndian(double.bitPattern, size: 8, to: &out)
        case .date(let date):
            out.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
        case .data(let data):
            appendHeader(0x4, count: data.count, to: &out)
            out += data
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                appendHeader(0x5, count: string.utf8.count, to: &out)
                out += string.utf8
            } else {
                let units = Array(string.utf16)
                appendHeader(0x6, count: units.count, to: &out)
                for unit in units { appendBigEndian(UInt64(unit), size: 2, to: &out) }
            }
        case .uid(let value):
            let size = byteCount(for: value)
            out.append(0x80 | UInt8(size - 1))
            appendBigEndian(value, size: size, to: &out)
        case .array, .dictionary:
            break   // containers are flattened, never encoded here
        }
        return out
    }

    /// Non-negative integers in the fewest of 1, 2, 4 or 8 bytes; negative ones always in 8.
    private static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        let size = value < 0 ? 8 : byteCount(for: UInt64(value))
        out.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: value), size: size, to: &out)
    }

    /// A marker nibble and a count: in the low nibble below 15, else 0xF and an integer object.
    private static func appendHeader(_ kind: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(kind << 4 | UInt8(count))
        } else {
            out.append(kind << 4 | 0xF)
            appendInteger(Int64(count), to: &out)
        }
    }

    private static func byteCount(for value: UInt64) -> Int {
        switch value {
        case ...0xFF: return 1
        case ...0xFFFF: return 2
        case ...0xFFFF_FFFF: return 4
        default: return 8
        }
    }

    private static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
