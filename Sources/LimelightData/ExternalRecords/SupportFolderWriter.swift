import Foundation

/// Writes the records root's `.limelight/` folder: the store's path, a copy of the model and the
/// marker settings, then registers the root for the daemon. Run at every open, so a moved store
/// re-registers and readers always find the current path.
enum SupportFolderWriter {
    static func prepare(store: SQLiteStore, configuration: ExternalRecordsConfiguration, modelSource: URL?) throws {
        let root = configuration.recordsRoot(storeIdentifier: store.identifier)
        let support = root.appendingPathComponent(SupportFolder.name, isDirectory: true)
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: support, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(configuration.recordsDirectory.path, 0o700)
        chmod(root.path, 0o700)
        let storePath = URL(fileURLWithPath: store.path).standardizedFileURL.path
        let storePathFile = support.appendingPathComponent(SupportFolder.storePathFile)
        if (try? String(contentsOf: storePathFile, encoding: .utf8)) != storePath + "\n" {
            try AtomicFile.write(Data((storePath + "\n").utf8), to: storePathFile)
        }
        let modelFolder = support.appendingPathComponent(SupportFolder.modelFolder, isDirectory: true)
        try fileManager.createDirectory(at: modelFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let contents = try modelContents(store: store, source: modelSource)
        let contentsFile = modelFolder.appendingPathComponent("contents")
        if (try? Data(contentsOf: contentsFile)) != contents { try AtomicFile.write(contents, to: contentsFile) }
        let info: [String: Any] = [
            "extension": configuration.fileExtension,
            "format": configuration.fileFormat.rawValue,
            "storeUUID": store.identifier,
            "entities": store.model.entities.filter(MarkerJournal.isMarked).map(\.name).sorted(),
        ]
        let infoData = try PropertyListWriter.data(info, format: .xml)
        let infoFile = support.appendingPathComponent(SupportFolder.infoFile)
        if (try? Data(contentsOf: infoFile)) != infoData { try AtomicFile.write(infoData, to: infoFile) }
        let registry = StoreOption.url(store.options[StoreOption.recordsRegistryDirectory])
        try ExternalRecordsRegistry.register(root: root, storeIdentifier: store.identifier, in: registry)
    }

    /// The model's XML: the file the application loaded it from when known, copied as it is (the
    /// store's model was read from it already), else written anew.
    private static func modelContents(store: SQLiteStore, source: URL?) throws -> Data {
        // A compiled model has no XML to copy: the copy is written from the model itself.
        if let source, !ManagedObjectModel.isCompiledModel(source) {
            return try ModelError.contents(of: ManagedObjectModel.contentsFile(for: source))
        }
        return try store.model.xmlData()
    }
}
