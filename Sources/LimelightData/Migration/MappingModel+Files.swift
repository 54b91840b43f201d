import Foundation

/// Mapping models read from files, in either form an application has them: compiled (`.cdm`, as
/// Xcode puts them in an app's bundle) or as an Xcode project keeps them (an `.xcmappingmodel`
/// folder holding `xcmapping.xml`), which is compiled here as Xcode would compile it.
extension MappingModel {
    /// Reads a mapping model file, Core Data's `NSMappingModel(contentsOf:)`: a compiled `.cdm`,
    /// an `.xcmappingmodel` folder, or the `xcmapping.xml` inside one.
    ///
    /// An Xcode mapping model is compiled against the two model versions it records
    /// (`sourcemodelpath`, `destinationmodelpath`, relative to the Xcode project), looked for from
    /// the mapping model's folder upwards; when they are elsewhere, give them with
    /// `init(contentsOf:sourceModel:destinationModel:policies:)`. `policies` are the entity
    /// migration policy classes the file names (by class name, with or without the module
    /// prefix); one it names that is not given throws `MissingMigrationPolicyError`.
    public init(contentsOf url: URL, policies: [EntityMigrationPolicy.Type] = []) throws {
        let file = try MappingModelFile(url)
        guard file.isXcodeSource else {
            try self.init(archiveData: file.data, source: file.path, policies: policies)
            return
        }
        let document = try XcodeMappingDocument(data: file.data, source: file.path)
        let recorded = try Self.recordedModels(of: document, mappingAt: url)
        guard let sourceURL = recorded.source.url, let destinationURL = recorded.destination.url else {
            let missing = [recorded.source, recorded.destination].filter { $0.url == nil }
                .map { $0.path.map { "\($0) (looked for from \(Self.projectFolder(ofMappingAt: url).path) upwards)" } ?? "none recorded" }
            throw ModelError("the model versions the mapping model maps between cannot be found: \(missing.joined(separator: "; ")); "
                             + "give them with MappingModel(contentsOf:sourceModel:destinationModel:)", at: file.path)
        }
        self = try XcodeMappingModelReader(document: document, sourceModel: ManagedObjectModel(contentsOf: sourceURL),
                                           destinationModel: ManagedObjectModel(contentsOf: destinationURL), policies: policies).read()
    }

    /// Reads a mapping model file (as `init(contentsOf:policies:)`), compiling an Xcode mapping
    /// model against the two model versions given rather than those it records. A compiled
    /// `.cdm` is read as it is: it holds what it was compiled against.
    public init(contentsOf url: URL, sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel,
                policies: [EntityMigrationPolicy.Type] = []) throws {
        let file = try MappingModelFile(url)
        guard file.isXcodeSource else {
            try self.init(archiveData: file.data, source: file.path, policies: policies)
            return
        }
        try self.init(xcmappingData: file.data, source: file.path, sourceModel: sourceModel, destinationModel: destinationModel,
                      policies: policies)
    }

    /// Compiles the text of an `xcmapping.xml` against the two model versions; `source` names it
    /// in errors.
    public init(xcmappingData data: Data, source: String, sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel,
                policies: [EntityMigrationPolicy.Type] = []) throws {
        self = try XcodeMappingModelReader(document: XcodeMappingDocument(data: data, source: source), sourceModel: sourceModel,
                                           destinationModel: destinationModel, policies: policies).read()
    }

    /// The model versions an Xcode mapping model at `url` records, where they are on disk (`nil`
    /// for one not recorded or not found); both `nil` for a compiled `.cdm`, which records
    /// hashes instead.
    public static func recordedModelURLs(ofMappingModelAt url: URL) throws -> (source: URL?, destination: URL?) {
        let file = try MappingModelFile(url)
        guard file.isXcodeSource else { return (nil, nil) }
        let recorded = try recordedModels(of: XcodeMappingDocument(data: file.data, source: file.path), mappingAt: url)
        return (recorded.source.url, recorded.destination.url)
    }

    /// The mapping model among the files in `folders` that fits the two model versions, Core
    /// Data's `NSMappingModel(from:forSourceModel:destinationModel:)` over folders rather than
    /// bundles: every `.cdm` and `.xcmappingmodel` directly in each folder, in name order. A
    /// mapping model fits when its entities have the version hashes of the two models' (a
    /// `.cdm` records them; an `.xcmappingmodel` is compiled against the versions it records).
    /// `nil` when none fits; an error when one there cannot be read.
    public init?(from folders: [URL], forSourceModel source: ManagedObjectModel?, destinationModel destination: ManagedObjectModel?,
                 policies: [EntityMigrationPolicy.Type] = []) throws {
        guard let source, let destination else { return nil }
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".cdm") || name.hasSuffix(".xcmappingmodel") {
                let mapping = try MappingModel(contentsOf: folder.appendingPathComponent(name), policies: policies)
                if mapping.fits(sourceModel: source, destinationModel: destination) {
                    self = mapping
                    return
                }
            }
        }
        return nil
    }

    /// The mapping model among the bundles' resources that fits the two model versions, Core
    /// Data's `NSMappingModel(from:forSourceModel:destinationModel:)`: compiled `.cdm` files (as
    /// Xcode builds them into an app), and `.xcmappingmodel` folders (as a port keeps them),
    /// matched as `init?(from:forSourceModel:destinationModel:policies:)` with folders does. `nil`
    /// when none fits; an error when a mapping model there cannot be read. `nil` bundles: the
    /// main bundle.
    public init?(from bundles: [Bundle]?, forSourceModel source: ManagedObjectModel?, destinationModel destination: ManagedObjectModel?,
                 policies: [EntityMigrationPolicy.Type] = []) throws {
        let folders = (bundles ?? [Bundle.main]).map { $0.resourceURL ?? $0.bundleURL }
        guard let found = try MappingModel(from: folders, forSourceModel: source, destinationModel: destination, policies: policies) else {
            return nil
        }
        self = found
    }

    /// A recorded model path and where it was found.
    struct RecordedModel {
        let path: String?
        let url: URL?
    }

    static func recordedModels(of document: XcodeMappingDocument, mappingAt url: URL) throws -> (source: RecordedModel, destination: RecordedModel) {
        let root = try document.mappingModel()
        func find(_ attribute: String) -> RecordedModel {
            guard let path = root.string(attribute)?.trimmingCharacters(in: .whitespacesAndNewlines), !path.isEmpty else {
                return RecordedModel(path: nil, url: nil)
            }
            return RecordedModel(path: path, url: modelURL(recorded: path, mappingAt: url))
        }
        return (find("sourcemodelpath"), find("destinationmodelpath"))
    }

    /// The folder holding the `.xcmappingmodel` at `url` (or holding a bare `xcmapping.xml`).
    static func projectFolder(ofMappingAt url: URL) -> URL {
        var folder = url.standardizedFileURL
        if folder.pathExtension != "xcmappingmodel" { folder = folder.deletingLastPathComponent() }
        if folder.pathExtension == "xcmappingmodel" { folder = folder.deletingLastPathComponent() }
        return folder
    }

    /// Where a model path an Xcode mapping model records is: Xcode records it relative to the
    /// project's folder (`App/Model.xcdatamodeld/Model 2.xcdatamodel`), which is the mapping
    /// model's folder or one above it. Tried there and above, then by the bundle and version
    /// names alone (a port that moved the files), then by the version's name alone.
    static func modelURL(recorded path: String, mappingAt url: URL) -> URL? {
        let manager = FileManager.default
        if path.hasPrefix("/") { return manager.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil }
        var folders: [URL] = []
        var folder = projectFolder(ofMappingAt: url)
        for _ in 0..<16 {
            folders.append(folder)
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        let components = path.split(separator: "/").map(String.init)
        let tails = [components, Array(components.suffix(2)), Array(components.suffix(1))].filter { !$0.isEmpty }
        for tail in tails {
            for folder in folders {
                let candidate = tail.reduce(folder) { $0.appendingPathComponent($1) }
                if manager.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }
}

/// The bytes of a mapping model file and which form they are in.
struct MappingModelFile {
    let data: Data
    /// The file read (the `xcmapping.xml` of an `.xcmappingmodel` folder), for errors.
    let path: String
    /// An Xcode mapping model's XML rather than a compiled keyed archive.
    let isXcodeSource: Bool

    init(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError("no such mapping model", at: url.path)
        }
        let file = isDirectory.boolValue ? url.appendingPathComponent("xcmapping.xml") : url
        if isDirectory.boolValue, !FileManager.default.fileExists(atPath: file.path) {
            throw ModelError("a folder without an xcmapping.xml: not an Xcode mapping model", at: url.path)
        }
        path = file.path
        data = try ModelError.contents(of: file, what: "the mapping model")
        // A compiled model is a binary property list; Xcode's source form is XML.
        let first = data.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }
        isXcodeSource = isDirectory.boolValue || first == UInt8(ascii: "<")
    }
}
