import Foundation

/// Decodes many marker paths against the same registered roots, with the same checks and errors
/// as `ExternalRecordPath.decode`.
///
/// Markers come by the thousand from a handful of folders, so what they share is worked out once
/// per decoder: the real path of each marker folder and each root, and each root's support files
/// (its info property list and store path). Only what is particular to one marker is looked at
/// per marker: its name and whether it is a symlink. A decoder is meant for one batch; a folder
/// moved or re-linked while it lives is seen by the next one.
public final class ExternalRecordPathDecoder {
    public let roots: [String: URL]

    /// What a root's support folder says; read once per root.
    private struct RootInfo {
        var fileExtension: String
        var entities: Set<String>
        var storeURL: URL
        var modelURL: URL
    }

    private var resolvedRoots: [(storeIdentifier: String, path: String)]?
    private var realFolders: [String: String] = [:]
    private var rootInfos: [String: RootInfo] = [:]
    private let currentDirectory = FileManager.default.currentDirectoryPath

    public init(roots: [String: URL]) { self.roots = roots }

    /// Decodes `path` (absolute, or relative to the current directory); see `ExternalRecordPath.decode`.
    public func decode(_ path: String) throws -> ExternalRecordElements {
        let absolute = path.hasPrefix("/") ? path : currentDirectory + "/" + path
        if Self.hasParentComponent(absolute) {
            throw ExternalRecordError(path: path, reason: "a marker path may not contain '..'")
        }
        // Taken apart as text: a file URL made from a path stats it on Linux.
        var trimmed = Substring(absolute)
        while trimmed.utf8.count > 1, trimmed.utf8.last == UInt8(ascii: "/") { trimmed = trimmed.dropLast() }
        let lastSlash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) ?? trimmed.startIndex
        let parent = trimmed[..<lastSlash]
        let fileName = String(trimmed[trimmed.utf8.index(after: lastSlash)...])
        let folder = try realFolder(parent.isEmpty ? "/" : String(parent), original: path)
        var realPath = folder + "/" + fileName
        if let target = Self.symbolicLinkTarget(realPath) {
            realPath = try Self.resolved(target.hasPrefix("/") ? target : folder + "/" + target, original: path)
        }
        let url = URL(fileURLWithPath: absolute, isDirectory: absolute.hasSuffix("/"))
        for (storeIdentifier, rootPath) in realRoots() where realPath.hasPrefix(rootPath + "/") {
            let relative = realPath.utf8.dropFirst(rootPath.utf8.count + 1).split(separator: UInt8(ascii: "/"))
                .map { String(decoding: $0, as: UTF8.self) }
            guard relative.count == 2 else {
                throw ExternalRecordError(path: path, reason: "expected <records root>/<Entity>/<key>.<extension> inside \(rootPath)")
            }
            return try elements(entity: relative[0], file: relative[1], storeIdentifier: storeIdentifier, rootPath: rootPath,
                                marker: url, original: path)
        }
        throw ExternalRecordError(path: path, reason: "not inside any registered records folder (see \(ExternalRecordsRegistry.rootsDirectory.path))")
    }

    private func realRoots() -> [(storeIdentifier: String, path: String)] {
        if let resolvedRoots { return resolvedRoots }
        // A root that does not resolve (not made yet, removed) holds no markers.
        let resolved = roots.compactMap { store, root in (try? Self.resolved(root.path, original: root.path)).map { (store, $0) } }
        resolvedRoots = resolved
        return resolved
    }

    private func realFolder(_ folder: String, original: String) throws -> String {
        if let known = realFolders[folder] { return known }
        let real = try Self.resolved(folder, original: original)
        realFolders[folder] = real
        return real
    }

    private func elements(entity: String, file: String, storeIdentifier: String, rootPath: String, marker: URL,
                          original: String) throws -> ExternalRecordElements {
        let root = URL(fileURLWithPath: rootPath, isDirectory: true)
        let info = try rootInfo(root: root, rootPath: rootPath, storeIdentifier: storeIdentifier, original: original)
        guard file.hasSuffix("." + info.fileExtension) else {
            throw ExternalRecordError(path: original, reason: "markers of this store end in .\(info.fileExtension)")
        }
        let key = file.dropLast(info.fileExtension.count + 1)
        guard let pk = Int64(key), pk > 0, key.allSatisfy(\.isNumber) else {
            throw ExternalRecordError(path: original, reason: "'\(key)' is not an object key (expected a positive number)")
        }
        guard info.entities.contains(entity) else {
            throw ExternalRecordError(path: original, reason: "unknown entity '\(entity)' in store \(storeIdentifier)")
        }
        guard let uri = URL(string: ManagedObjectID.uriString(storeIdentifier: storeIdentifier, entityName: entity, primaryKey: pk)) else {
            throw ExternalRecordError(path: original, reason: "cannot form an object URI")
        }
        return ExternalRecordElements(entityName: entity, storeIdentifier: storeIdentifier, storeURL: info.storeURL,
                                      modelURL: info.modelURL, objectURI: uri, markerURL: marker, recordsRoot: root,
                                      fileExtension: info.fileExtension)
    }

    /// The root's support files, read on first use; a root whose files cannot be read is tried
    /// again on its next marker (they may be being written).
    private func rootInfo(root: URL, rootPath: String, storeIdentifier: String, original: String) throws -> RootInfo {
        if let known = rootInfos[rootPath] { return known }
        let support = root.appendingPathComponent(SupportFolder.name, isDirectory: true)
        guard let infoData = try? Data(contentsOf: support.appendingPathComponent(SupportFolder.infoFile)),
              let info = try? PropertyListReader.read(infoData) as? [String: Any],
              let ext = info["extension"] as? String else {
            throw ExternalRecordError(path: original, reason: "the records folder \(rootPath) has no readable \(SupportFolder.name)/\(SupportFolder.infoFile)")
        }
        guard (info["storeUUID"] as? String) == storeIdentifier else {
            throw ExternalRecordError(path: original, reason: "unknown store: the records folder does not belong to store \(storeIdentifier)")
        }
        guard let storePath = try? String(contentsOf: support.appendingPathComponent(SupportFolder.storePathFile), encoding: .utf8)
            .trimmingWhitespace, !storePath.isEmpty else {
            throw ExternalRecordError(path: original, reason: "the records folder does not name its store")
        }
        let result = RootInfo(fileExtension: ext, entities: Set(info["entities"] as? [String] ?? []),
                              storeURL: URL(fileURLWithPath: storePath),
                              modelURL: support.appendingPathComponent(SupportFolder.modelFolder, isDirectory: true))
        rootInfos[rootPath] = result
        return result
    }

    /// Whether a `..` component is in `path` (a byte scan: this runs for every marker).
    private static func hasParentComponent(_ path: String) -> Bool {
        var run = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if run == 2 { return true }
                run = 0
            } else if byte == UInt8(ascii: "."), run >= 0 {
                run += 1
            } else {
                run = -1
            }
        }
        return run == 2
    }

    /// Where a symlink points, or nil for anything else: one `readlink` into a stack buffer, so
    /// a plain file costs a system call and nothing more.
    private static func symbolicLinkTarget(_ path: String) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX) + 1) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let count = base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { readlink(path, $0, Int(PATH_MAX)) }
            guard count > 0 else { return nil }
            return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        }
    }

    private static func resolved(_ path: String, original: String) throws -> String {
        guard let pointer = realpath(path, nil) else {
            throw ExternalRecordError(path: original, reason: "folder \(path) does not exist")
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
