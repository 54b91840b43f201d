import Foundation

/// One version of a model as a migration stage names it, Core Data's `NSManagedObjectModelReference`:
/// a model in hand, or one read from a file or a bundle, with the checksum it must have.
///
/// Why a reference and not the model: a stage names the versions it migrates between, and the
/// checksum makes sure the version loaded is the one meant (a model file edited after the stage
/// was written is refused instead of migrating the store to something else).
public final class ManagedObjectModelReference: @unchecked Sendable, CustomStringConvertible {
    private let model: ManagedObjectModel
    private let expectedChecksum: String?
    /// Where the model came from, for errors and descriptions.
    let source: String

    /// A reference to a model in hand. With `versionChecksum`, `resolve()` refuses the model when
    /// its checksum is another.
    public init(model: ManagedObjectModel, versionChecksum: String? = nil) {
        self.model = model
        expectedChecksum = versionChecksum
        source = "a model of \(model.entities.count) entities"
    }

    /// A reference to the model at `fileURL`: anything `ManagedObjectModel(contentsOf:)` reads, a
    /// version's `.xcdatamodel` folder or `.mom` file as well as a whole `.xcdatamodeld` or `.momd`
    /// bundle (its current version). The model is read now, so a missing file throws here.
    public convenience init(fileURL: URL, versionChecksum: String? = nil) throws {
        try self.init(model: ManagedObjectModel(contentsOf: fileURL), versionChecksum: versionChecksum, source: fileURL.path)
    }

    /// A reference to the model named `name` in `bundle`, as Core Data's `init(name:in:)` finds it:
    /// `<name>.momd`, `<name>.mom` or `<name>.xcdatamodeld` among the bundle's resources, or else a
    /// version of that name (`<name>.mom`, `<name>.xcdatamodel`) inside one of its model bundles.
    public convenience init(name: String, in bundle: Bundle = .main, versionChecksum: String? = nil) throws {
        guard let url = Self.modelURL(named: name, in: bundle) else {
            throw ModelError("no model or model version named \(name) in the bundle", at: bundle.bundlePath)
        }
        try self.init(fileURL: url, versionChecksum: versionChecksum)
    }

    private init(model: ManagedObjectModel, versionChecksum: String?, source: String) {
        self.model = model
        expectedChecksum = versionChecksum
        self.source = source
    }

    /// The checksum the reference was made with, else the model's own (`ManagedObjectModel.versionChecksum`).
    public var versionChecksum: String { expectedChecksum ?? model.versionChecksum }

    /// The model, resolved; throws when it is not the version the checksum names, or does not resolve.
    public func resolve() throws -> ManagedObjectModel {
        try MigrationManager.resolveIfEditable(model)
        if let expectedChecksum, model.versionChecksum != expectedChecksum {
            throw ModelError("the model's version checksum is \(model.versionChecksum), not \(expectedChecksum) as its migration stage expects", at: source)
        }
        return model
    }

    public var description: String { "model \(versionChecksum) (\(source))" }

    private static func modelURL(named name: String, in bundle: Bundle) -> URL? {
        for ext in ["momd", "mom", "xcdatamodeld"] {
            if let url = bundle.url(forResource: name, withExtension: ext) { return url }
        }
        let versionExtensions = ["momd": "mom", "xcdatamodeld": "xcdatamodel"]
        for (bundleExtension, versionExtension) in versionExtensions.sorted(by: { $0.key < $1.key }) {
            for modelBundle in bundle.paths(forResourcesOfType: bundleExtension, inDirectory: nil) {
                let version = URL(fileURLWithPath: modelBundle).appendingPathComponent("\(name).\(versionExtension)")
                if FileManager.default.fileExists(atPath: version.path) { return version }
            }
        }
        return nil
    }
}
