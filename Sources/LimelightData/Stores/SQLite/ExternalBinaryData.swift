import Foundation
import Logging

/// The column format of attributes that allow external storage
/// (`allowsExternalBinaryDataStorage`), as Core Data writes it: one marker byte, then either the
/// bytes themselves (`0x01`) or the name of a file in the store's `_EXTERNAL_DATA` folder
/// (`0x02`, a UUID in ASCII, ended by a NUL), where Core Data puts large values.
///
/// Reading follows both forms, so such values from a store written by Core Data come back as the
/// application stored them rather than with a marker byte in front, or as a file name. Writing
/// always keeps the bytes in the row (`0x01`): Core Data reads that form for any size, and the
/// store then stays one file that a copy or a backup cannot split from its values.
struct ExternalBinaryData: Sendable {
    static let inlineMarker: UInt8 = 0x01
    static let externalMarker: UInt8 = 0x02
    private static let logger = Logger(label: "limelight.store")

    /// The folders a referenced file may be in: Core Data's `.<store name>_SUPPORT/_EXTERNAL_DATA`
    /// next to the store (the name without its extension), and the same under the full file name.
    let folders: [URL]

    init(storeURL: URL) {
        let directory = storeURL.deletingLastPathComponent()
        let names = [storeURL.deletingPathExtension().lastPathComponent, storeURL.lastPathComponent]
        var seen = Set<String>()
        folders = names.filter { seen.insert($0).inserted }.map {
            directory.appendingPathComponent(".\($0)_SUPPORT", isDirectory: true).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
        }
    }

    /// The column value for `data`: the bytes kept in the row, behind their marker.
    static func encode(_ data: Data) -> Data {
        var result = Data(capacity: data.count + 1)
        result.append(inlineMarker)
        result.append(data)
        return result
    }

    /// The value a column holds. A blob without a marker (written by a tool that does not use
    /// one) is taken as the value itself; a reference to a file that cannot be read gives `nil`,
    /// logged with the file's name, and the row keeps its reference.
    func decode(_ blob: Data) -> Data? {
        guard let marker = blob.first else { return blob }
        switch marker {
        case Self.inlineMarker:
            return Data(blob.dropFirst())
        case Self.externalMarker:
            guard let name = Self.fileName(in: blob) else { return blob }
            for folder in folders {
                if let data = try? Data(contentsOf: folder.appendingPathComponent(name), options: .mappedIfSafe) { return data }
            }
            Self.logger.error("external data file \(name) not found in \(folders.map(\.path).joined(separator: " or "))")
            return nil
        default:
            return blob
        }
    }

    /// The file name a reference holds: a UUID's 36 characters after the marker, up to a NUL or
    /// the end; `nil` when the rest is not such a name (then the blob is plain bytes).
    static func fileName(in blob: Data) -> String? {
        let rest = blob.dropFirst().prefix { $0 != 0 }
        guard let name = String(bytes: rest, encoding: .ascii), UUID(uuidString: name) != nil else { return nil }
        // Anything after the NUL means the blob is not a reference but bytes that happen to start so.
        guard blob.count <= 1 + rest.count + 1 else { return nil }
        return name
    }
}
