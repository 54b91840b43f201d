import Foundation

/// What a marker path says, the five elements Core Data's
/// `elementsDerivedFromExternalRecordURL:` gives, plus the marker settings.
public struct ExternalRecordElements: Sendable, Equatable {
    public var entityName: String
    public var storeIdentifier: String
    public var storeURL: URL
    public var modelURL: URL
    public var objectURI: URL
    public var markerURL: URL
    public var recordsRoot: URL
    public var fileExtension: String
}

/// Decodes marker paths, refusing anything that is not a marker inside a registered records root.
public enum ExternalRecordPath {
    /// Decodes `path` (absolute, or relative to the current directory).
    ///
    /// Refused with an `ExternalRecordError`: a path with `..`, one that is (or resolves through a
    /// symlink to) somewhere outside every registered records root, an unknown store or entity, or
    /// a key that is not a positive number. Nothing outside the root is opened.
    public static func decode(_ path: String, roots: [String: URL] = ExternalRecordsRegistry.registeredRoots()) throws -> ExternalRecordElements {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let components = absolute.split(separator: "/", omittingEmptySubsequences: true)
        if components.contains("..") {
            throw ExternalRecordError(path: path, reason: "a marker path may not contain '..'")
        }
        let url = URL(fileURLWithPath: absolute)
        let folder = try resolved(url.deletingLastPathComponent().path, original: path)
        let fileName = url.lastPathComponent
        var realPath = folder + "/" + fileName
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: realPath) {
            realPath = try resolved(target.hasPrefix("/") ? target : folder + "/" + target, original: path)
        }
        for (storeIdentifier, root) in roots {
            guard let rootPath = try? resolved(root.path, original: root.path), realPath.hasPrefix(rootPath + "/") else { continue }
            let relative = realPath.dropFirst(rootPath.count + 1).split(separator: "/").map(String.init)
            guard relative.count == 2 else {
                throw ExternalRecordError(path: path, reason: "expected <records root>/<Entity>/<key>.<extension> inside \(rootPath)")
            }
            return try elements(entity: relative[0], file: relative[1], storeIdentifier: storeIdentifier,
                                root: URL(fileURLWithPath: rootPath, isDirectory: true), marker: url, original: path)
        }
        throw ExternalRecordError(path: path, reason: "not inside any registered records folder (see \(ExternalRecordsRegistry.rootsDirectory.path))")
    }

    private static func elements(entity: String, file: String, storeIdentifier: String, root: URL, marker: URL,
                                 original: String) throws -> ExternalRecordElements {
        let support = root.appendingPathComponent(SupportFolder.name, isDirectory: true)
        guard let infoData = try? Data(contentsOf: support.appendingPathComponent(SupportFolder.infoFile)),
              let info = try? PropertyListSerialization.propertyList(from: infoData, format: nil) as? [String: Any],
              let ext = info["extension"] as? String else {
            throw ExternalRecordError(path: original, reason: "the records folder \(root.path) has no readable \(SupportFolder.name)/\(SupportFolder.infoFile)")
        }
        guard (info["storeUUID"] as? String) == storeIdentifier else {
            throw ExternalRecordError(path: original, reason: "unknown store: the records folder does not belong to store \(storeIdentifier)")
        }
        guard file.hasSuffix("." + ext) else {
            throw ExternalRecordError(path: original, reason: "markers of this store end in .\(ext)")
        }
        let key = file.dropLast(ext.count + 1)
        guard let pk = Int64(key), pk > 0, key.allSatisfy(\.isNumber) else {
            throw ExternalRecordError(path: original, reason: "'\(key)' is not an object key (expected a positive number)")
        }
        let entities = info["entities"] as? [String] ?? []
        guard entities.contains(entity) else {
            throw ExternalRecordError(path: original, reason: "unknown entity '\(entity)' in store \(storeIdentifier)")
        }
        guard let storePath = try? String(contentsOf: support.appendingPathComponent(SupportFolder.storePathFile), encoding: .utf8)
            .trimmingWhitespace, !storePath.isEmpty else {
            throw ExternalRecordError(path: original, reason: "the records folder does not name its store")
        }
        guard let uri = URL(string: "x-coredata://\(storeIdentifier)/\(entity)/p\(pk)") else {
            throw ExternalRecordError(path: original, reason: "cannot form an object URI")
        }
        return ExternalRecordElements(entityName: entity, storeIdentifier: storeIdentifier,
                                      storeURL: URL(fileURLWithPath: storePath),
                                      modelURL: support.appendingPathComponent(SupportFolder.modelFolder, isDirectory: true),
                                      objectURI: uri, markerURL: marker, recordsRoot: root, fileExtension: ext)
    }

    private static func resolved(_ path: String, original: String) throws -> String {
        guard let pointer = realpath(path, nil) else {
            throw ExternalRecordError(path: original, reason: "folder \(path) does not exist")
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
