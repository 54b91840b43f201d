import Foundation

/// Calls `body` with C arrays of C strings, one per array of `arrays`, that live for the call.
func withCStringArrays<T>(_ arrays: [[String]], _ body: ([UnsafePointer<UnsafePointer<CChar>?>?]) throws -> T) rethrows -> T {
    let buffers = arrays.map { strings in
        let buffer = UnsafeMutableBufferPointer<UnsafePointer<CChar>?>.allocate(capacity: max(1, strings.count))
        for (index, string) in strings.enumerated() { buffer[index] = strdup(string).map { UnsafePointer($0) } }
        return (buffer: buffer, count: strings.count)
    }
    defer {
        for (buffer, count) in buffers {
            for index in 0..<count { free(UnsafeMutablePointer(mutating: buffer[index])) }
            buffer.deallocate()
        }
    }
    return try body(buffers.map { UnsafePointer($0.buffer.baseAddress) })
}
