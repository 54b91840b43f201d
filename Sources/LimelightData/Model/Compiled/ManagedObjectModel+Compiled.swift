import Foundation

extension ManagedObjectModel {
    /// Reads a compiled model: a `.mom` file, as Xcode compiles a model version, or a `.momd`
    /// bundle, as apps ship their models (the version its `VersionInfo.plist` names current).
    public convenience init(compiledModelAt url: URL) throws {
        let file = try Self.compiledModelFile(for: url)
        try self.init(archiveData: ModelError.contents(of: file, what: "the compiled model"), source: file.path)
    }

    /// The model a Core Data SQLite store keeps of itself (`Z_MODELCACHE`): what opens a store
    /// made by an app whose model is not at hand. Core Data writes it with every store it creates
    /// or migrates; a store without one throws, naming the store.
    public convenience init(cachedInStoreAt url: URL) throws {
        let blob = try SQLiteStore.readModelCache(at: url)
        let archive: Data
        do {
            archive = try Deflate.decompress(blob)
        } catch {
            throw ModelError("the model cache (Z_MODELCACHE) cannot be decompressed: \(error)", at: url.path)
        }
        try self.init(archiveData: archive, source: "\(url.path) (Z_MODELCACHE)")
    }

    /// Reads a keyed archive of a model, the contents of a `.mom` file; `source` names it in errors.
    public convenience init(archiveData data: Data, source: String) throws {
        self.init()
        let archive = try KeyedArchive(data, source: source)
        try CompiledModelReader(archive: archive).read(into: self)
        do {
            try resolve()
        } catch let error as ModelError {
            throw ModelError(error.reason, at: "\(source): \(error.location)")
        }
    }

    /// Whether `url` names a compiled model rather than a model Xcode edits.
    public static func isCompiledModel(_ url: URL) -> Bool {
        ["mom", "momd"].contains(url.pathExtension)
    }

    /// The `.mom` file to read for `url`: itself, or a `.momd` bundle's current version.
    static func compiledModelFile(for url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError("no such compiled model", at: url.path)
        }
        guard isDirectory.boolValue else { return url }
        let info = url.appendingPathComponent("VersionInfo.plist")
        if let data = try? Data(contentsOf: info),
           let plist = try? PropertyListReader.read(data) as? [String: Any],
           let name = plist["NSManagedObjectModel_CurrentVersionName"] as? String {
            let file = url.appendingPathComponent(name + ".mom")
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw ModelError("VersionInfo.plist names \(name) as the current version, but there is no \(name).mom", at: url.path)
            }
            return file
        }
        // No version information: a bundle of one version is unambiguous.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".mom") }.sorted()
        guard names.count == 1, let only = names.first else {
            throw ModelError(names.isEmpty ? "no .mom file in the bundle"
                             : "\(names.count) versions and no VersionInfo.plist naming the current one", at: url.path)
        }
        return url.appendingPathComponent(only)
    }
}

extension SQLiteStore {
    /// The compressed model archive a store keeps in `Z_MODELCACHE`.
    static func readModelCache(at url: URL) throws -> Data {
        try checkHeader(url.path)
        let db = try SQLiteConnection(path: url.path, readOnly: true)
        defer { db.close() }
        let hasTable = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") ?? 0
        guard hasTable > 0 else { throw ModelError("the store keeps no model (it has no Z_MODELCACHE table)", at: url.path) }
        var blob: Data?
        try db.query("SELECT Z_CONTENT FROM Z_MODELCACHE", cached: false) { row in
            if blob == nil, case .blob(let data) = SQLiteValue(statement: row, column: 0) { blob = data }
        }
        guard let blob, !blob.isEmpty else { throw ModelError("the store keeps no model (Z_MODELCACHE is empty)", at: url.path) }
        return blob
    }

    /// Keeps `model` in the store's `Z_MODELCACHE`, as Core Data does when it creates or migrates a
    /// store: the store then describes itself to any reader, this framework's or Core Data's.
    /// A model with composite attributes is not kept: how Core Data archives a composite is not
    /// known here, and a guess could mislead Core Data reading the store. The cache is left
    /// empty, as stores Core Data made before it kept one have it.
    static func writeModelCache(_ model: ManagedObjectModel, to db: SQLiteConnection, schema: String = "main") throws {
        try db.execute("DELETE FROM \(schema).Z_MODELCACHE")
        guard !model.hasCompositeAttributes else { return }
        try db.run("INSERT INTO \(schema).Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(try CompiledModelWriter.modelCache(for: model))])
    }
}
