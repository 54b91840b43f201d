import Foundation

/// Reads Apple's binary property list (`bplist00`): a trailer in the last 32 bytes gives the
/// size of offsets and of object references, the number of objects, the top object and where the
/// table of object offsets is; each object starts with a marker byte whose high nibble is its
/// kind and low nibble its size or count (15: the count follows as an integer object).
///
/// Every offset, count and reference is checked against the file before it is used, so a damaged
/// or hostile file is refused, never read out of bounds. Containers are decoded once each and
/// remembered: a file whose containers share elements cannot make decoding repeat work without
/// end, and one that contains itself is found while it is being decoded. Nor can sharing make the
/// result a bomb: an array holding one array twice, which holds another twice, and so on, is
/// some bytes on disk but 2^n values to whoever walks it (prints it, writes it back, indexes it),
/// so a list that would hold more values, counted with repeats, than its file has bytes (or a
/// million, for small files) is refused.
struct BinaryPropertyListDecoder {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    /// Where the offset table starts, which is also where the objects end.
    private let tableOffset: Int
    private let topObject: Int
    private var decodedContainers: [Int: Any] = [:]
    private var openContainers: Set<Int> = []
    /// Per decoded container, the values it holds counted as a walk meets them: shared ones as
    /// often as they occur.
    private var expandedCounts: [Int: Int] = [:]
    private let maximumExpandedCount: Int

    static func decode(_ data: Data) throws(PropertyListReadError) -> Any {
        let outcome = data.withUnsafeBytes { raw -> Outcome in
            do throws(PropertyListReadError) {
                var decoder = try BinaryPropertyListDecoder(bytes: raw.bindMemory(to: UInt8.self))
                return .decoded(try decoder.top())
            } catch {
                return .failed(error)
            }
        }
        switch outcome {
        case .decoded(let value): return value
        case .failed(let error): throw error
        }
    }

    /// How decoding inside `withUnsafeBytes` ended; not `Result`, for the reason `XMLReader`
    /// gives (its first use costs a search of every conformance in the program).
    private enum Outcome {
        case decoded(Any)
        case failed(PropertyListReadError)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListReadError) {
        self.bytes = bytes
        let header = 8
        guard bytes.count >= header + 32 else { throw PropertyListReadError("a binary property list of \(bytes.count) bytes is too short") }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let table = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListReadError("the trailer gives offset size \(offsetSize) and reference size \(referenceSize) (each must be 1 to 8)")
        }
        guard count >= 1, top < count, table >= UInt64(header), table < UInt64(trailer) else {
            throw PropertyListReadError("the trailer is inconsistent (\(count) objects, top object \(top), offset table at \(table))")
        }
        // The table must fit between its start and the trailer: this also bounds the count.
        let (tableSize, overflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableSize <= UInt64(trailer) - table else {
            throw PropertyListReadError("the offset table of \(count) objects does not fit in the file")
        }
        objectCount = Int(count)
        tableOffset = Int(table)
        topObject = Int(top)
        // Without sharing every value is at least a byte of the file; small files may share some.
        maximumExpandedCount = max(bytes.count, 1 << 20)
    }

    private mutating func top() throws(PropertyListReadError) -> Any {
        try object(topObject, depth: 0)
    }

    // MARK: Objects

    private mutating func object(_ reference: Int, depth: Int) throws(PropertyListReadError) -> Any {
        guard reference < objectCount else {
            throw PropertyListReadError("object reference \(reference) is beyond the \(objectCount) objects")
        }
        let offset = try self.offset(of: reference)
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return NSNull()
            case 0x08: return false
            case 0x09: return true
            default: throw unknown(marker, at: offset)
            }
        case 0x1:
            return try integer(at: offset)
        case 0x2:
            guard low == 2 || low == 3 else { throw unknown(marker, at: offset) }
            try need(1 << low, from: offset + 1, object: offset, kind: "a real")
            let bits = Self.bigEndian(bytes, at: offset + 1, size: 1 << low)
            return low == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
        case 0x3:
            guard marker == 0x33 else { throw unknown(marker, at: offset) }
            try need(8, from: offset + 1, object: offset, kind: "a date")
            return Date(timeIntervalSinceReferenceDate: Double(bitPattern: Self.bigEndian(bytes, at: offset + 1, size: 8)))
        case 0x4:
            let (start, count) = try counted(at: offset, unitSize: 1, kind: "data")
            return Data(UnsafeBufferPointer(rebasing: bytes[start..<start + count]))
        case 0x5:
            let (start, count) = try counted(at: offset, unitSize: 1, kind: "an ASCII string")
            let text = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
            guard text.allSatisfy({ $0 < 0x80 }) else { throw PropertyListReadError("an ASCII string at offset \(offset) holds a non-ASCII byte") }
            return String(decoding: text, as: UTF8.self)
        case 0x6:
            let (start, count) = try counted(at: offset, unitSize: 2, kind: "a UTF-16 string")
            let units = (0..<count).map { UInt16(Self.bigEndian(bytes, at: start + 2 * $0, size: 2)) }
            return String(decoding: units, as: UTF16.self)
        case 0x8:
            guard low < 8 else { throw unknown(marker, at: offset) }
            try need(low + 1, from: offset + 1, object: offset, kind: "a UID")
            return PropertyListUID(Self.bigEndian(bytes, at: offset + 1, size: low + 1))
        case 0xA, 0xC, 0xD:
            return try container(reference, at: offset, depth: depth)
        default:
            throw unknown(marker, at: offset)
        }
    }

    /// An array, set (read as an array) or dictionary: decoded once, however often referred to.
    private mutating func container(_ reference: Int, at offset: Int, depth: Int) throws(PropertyListReadError) -> Any {
        if let decoded = decodedContainers[reference] { return decoded }
        guard openContainers.insert(reference).inserted else {
            throw PropertyListReadError("object \(reference) contains itself")
        }
        guard depth < PropertyListReader.maximumDepth else {
            throw PropertyListReadError("containers nested deeper than \(PropertyListReader.maximumDepth) levels")
        }
        let isDictionary = bytes[offset] >> 4 == 0xD
        let (start, count) = try counted(at: offset, unitSize: referenceSize * (isDictionary ? 2 : 1),
                                         kind: isDictionary ? "a dictionary" : "an array")
        var expanded = count
        /// Counts an element as walking the result meets it; refuses a list that shares its
        /// containers into a bomb.
        func counting(_ element: Int) throws(PropertyListReadError) {
            expanded += expandedCounts[element] ?? 0
            guard expanded <= maximumExpandedCount else {
                throw PropertyListReadError("object \(reference) shares containers so often that it would hold more than \(maximumExpandedCount) values")
            }
        }
        let result: Any
        if isDictionary {
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(count)
            for position in 0..<count {
                let keyReference = storedReference(at: start + position * referenceSize)
                guard let key = try object(keyReference, depth: depth + 1) as? String else {
                    throw PropertyListReadError("a dictionary key (object \(keyReference)) is not a string")
                }
                let valueReference = storedReference(at: start + (count + position) * referenceSize)
                dictionary[key] = try object(valueReference, depth: depth + 1)
                try counting(valueReference)
            }
            result = dictionary
        } else {
            var array: [Any] = []
            array.reserveCapacity(count)
            for position in 0..<count {
                let elementReference = storedReference(at: start + position * referenceSize)
                array.append(try object(elementReference, depth: depth + 1))
                try counting(elementReference)
            }
            result = array
        }
        openContainers.remove(reference)
        decodedContainers[reference] = result
        expandedCounts[reference] = expanded
        return result
    }

    /// An integer object of 1, 2, 4 or 8 bytes (the last signed) or 16 (Foundation's form for
    /// values beyond `Int64`: taken when it fits in 64 bits).
    private func integer(at offset: Int) throws(PropertyListReadError) -> Any {
        let low = Int(bytes[offset] & 0x0F)
        guard low <= 4 else { throw unknown(bytes[offset], at: offset) }
        let size = 1 << low
        try need(size, from: offset + 1, object: offset, kind: "an integer")
        switch size {
        case 16:
            let high = Self.bigEndian(bytes, at: offset + 1, size: 8)
            let value = Self.bigEndian(bytes, at: offset + 9, size: 8)
            if high == 0, value <= UInt64(Int.max) { return Int(value) }
            if high == 0 { return value }
            if high == UInt64.max, Int64(bitPattern: value) < 0 { return Int(Int64(bitPattern: value)) }
            throw PropertyListReadError("the integer at offset \(offset) does not fit in 64 bits")
        case 8:
            return Int(Int64(bitPattern: Self.bigEndian(bytes, at: offset + 1, size: 8)))
        default:
            return Int(Self.bigEndian(bytes, at: offset + 1, size: size))
        }
    }

    // MARK: Layout

    /// Where object `reference` starts, checked to be among the objects.
    private func offset(of reference: Int) throws(PropertyListReadError) -> Int {
        let value = Self.bigEndian(bytes, at: tableOffset + reference * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(tableOffset) else {
            throw PropertyListReadError("object \(reference) has offset \(value), outside the objects")
        }
        return Int(value)
    }

    /// An object reference stored in a container; one too large for `Int` is as far beyond the
    /// objects as any, and refused as such when it is followed.
    private func storedReference(at position: Int) -> Int {
        Int(exactly: Self.bigEndian(bytes, at: position, size: referenceSize)) ?? Int.max
    }

    /// Where the content of a counted object starts and its count, checked so that the count's
    /// units (bytes, UTF-16 units or references) lie among the objects.
    private func counted(at offset: Int, unitSize: Int, kind: String) throws(PropertyListReadError) -> (start: Int, count: Int) {
        let low = Int(bytes[offset] & 0x0F)
        var start = offset + 1
        var count = low
        if low == 0xF {
            try need(1, from: start, object: offset, kind: "the count of \(kind)")
            let marker = bytes[start]
            guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
                throw PropertyListReadError("the count of \(kind) at offset \(offset) is not an integer of at most 8 bytes")
            }
            let size = 1 << Int(marker & 0x0F)
            try need(size, from: start + 1, object: offset, kind: "the count of \(kind)")
            let value = Self.bigEndian(bytes, at: start + 1, size: size)
            guard value <= UInt64(Int.max) else { throw PropertyListReadError("\(kind) at offset \(offset) has a negative count") }
            count = Int(value)
            start += 1 + size
        }
        guard count <= (tableOffset - start) / unitSize else {
            throw PropertyListReadError("\(kind) at offset \(offset) claims \(count) elements, more than the file holds")
        }
        return (start, count)
    }

    /// Refuses an object (at `offset`) whose next `size` bytes from `start` would run past the objects.
    private func need(_ size: Int, from start: Int, object offset: Int, kind: String) throws(PropertyListReadError) {
        guard start <= tableOffset, size <= tableOffset - start else {
            throw PropertyListReadError("\(kind) at offset \(offset) runs past the objects")
        }
    }

    private func unknown(_ marker: UInt8, at offset: Int) -> PropertyListReadError {
        PropertyListReadError("unknown object marker 0x\(String(marker, radix: 16)) at offset \(offset)")
    }

    /// `size` bytes at `position` as a big-endian unsigned number; callers have checked the range.
    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
