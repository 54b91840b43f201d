import Foundation

/// Where and how a store keeps its marker files, from the store's options.
///
/// Layout: `<records dir>/<STORE-UUID>/<Entity>/<pk>.<ext>`. The per-store folder
/// `<records dir>/<STORE-UUID>` is the *records root*: it also holds `.limelight/`, with what a
/// reader needs without the application (the store's path, a copy of the model, the extension),
/// so a marker path alone leads to its object. The default records dir is
/// `<store dir>/.<store file>_SUPPORT/records`, next to the store.
public struct ExternalRecordsConfiguration: Sendable, Equatable {
    public enum FileFormat: String, Sendable { case xml, binary }

    public var fileExtension: String
    public var recordsDirectory: URL
    public var fileFormat: FileFormat

    /// Reads the options; `nil` when markers are off for the store.
    public init?(options: [String: any Sendable], storeURL: URL) throws {
        guard let ext = options[StoreOption.externalRecordExtension] as? String else { return nil }
        guard !ext.isEmpty, !ext.contains("/"), !ext.contains(".") else {
            throw PersistenceError.invalidRequest("externalRecordExtension '\(ext)' must be a plain file extension such as \"recipe\"")
        }
        fileExtension = ext
        recordsDirectory = StoreOption.url(options[StoreOption.externalRecordsDirectory])
            ?? storeURL.deletingLastPathComponent().appendingPathComponent(".\(storeURL.lastPathComponent)_SUPPORT").appendingPathComponent("records")
        switch (options[StoreOption.externalRecordsFileFormat] as? String)?.lowercased() {
        case nil, "xml": fileFormat = .xml
        case "binary": fileFormat = .binary
        case let other?: throw PersistenceError.invalidRequest("externalRecordsFileFormat '\(other)' is not xml or binary")
        }
    }

    public func recordsRoot(storeIdentifier: String) -> URL {
        recordsDirectory.appendingPathComponent(storeIdentifier, isDirectory: true)
    }

    /// The paths of the entity folders now under the store's records root (not the support folder).
    func entityFolderPaths(storeIdentifier: String) -> [String] {
        let root = recordsRoot(storeIdentifier: storeIdentifier).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .filter { !$0.hasPrefix(".") }
            .map { root + "/" + $0 }
    }

    public func markerURL(storeIdentifier: String, entityName: String, primaryKey: Int64) -> URL {
        recordsRoot(storeIdentifier: storeIdentifier).appendingPathComponent(entityName, isDirectory: true)
            .appendingPathComponent("\(primaryKey).\(fileExtension)")
    }
}

/// The folder under the records root with what a reader needs.
enum SupportFolder {
    static let name = ".limelight"
    static let storePathFile = "store-path"
    static let modelFolder = "model.xcdatamodel"
    static let infoFile = "info.plist"
}
