import CZlib
import Foundation

/// Deflate compression with zlib: raw (no header), as Core Data keeps its model cache, and read
/// also with a zlib header.
enum Deflate {
    /// Output beyond this is refused: a real model is some megabytes, and a damaged or hostile blob
    /// must not make the reader allocate without bound.
    static let maximumSize = 256 << 20

    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// `data` compressed as raw deflate, at zlib's best compression.
    static func compress(_ data: Data) throws(Failure) -> Data {
        var stream = z_stream()
        let status = deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure(reason: "zlib could not start (status \(status))") }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        let result: Int32 = data.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { buffer in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw Failure(reason: "zlib could not compress (status \(result))") }
        return Data(output.prefix(Int(stream.total_out)))
    }

    static func decompress(_ data: Data) throws(Failure) -> Data {
        guard !data.isEmpty else { throw Failure(reason: "no compressed bytes") }
        do {
            return try run(data, windowBits: -15)
        } catch {
            // A zlib stream starts with a method byte and a check byte that make a multiple of
            // 31; raw deflate comes first because a raw stream can start so by chance.
            let first = UInt16(data[data.startIndex]), second = data.count > 1 ? UInt16(data[data.startIndex + 1]) : 0
            guard first & 0x0F == 8, (first << 8 | second) % 31 == 0, let wrapped = try? run(data, windowBits: 15) else { throw error }
            return wrapped
        }
    }

    private static func run(_ data: Data, windowBits: Int32) throws(Failure) -> Data {
        var stream = z_stream()
        let status = inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure(reason: "zlib could not start (status \(status))") }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let outcome: Int32 = data.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            var result = Z_OK
            while result == Z_OK {
                result = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    output.append(buffer.baseAddress!, count: buffer.count - Int(stream.avail_out))
                    return code
                }
                if output.count > maximumSize { return Z_MEM_ERROR }
                // No input left and no end of stream: the data stops short.
                if result == Z_OK, stream.avail_in == 0, stream.avail_out != 0 { return Z_BUF_ERROR }
            }
            return result
        }
        switch outcome {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR: throw Failure(reason: "the compressed data is cut short")
        case Z_MEM_ERROR: throw Failure(reason: "the data decompresses to more than \(maximumSize >> 20) MiB")
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "status \(outcome)"
            throw Failure(reason: "the compressed data is damaged (\(message))")
        }
    }
}
