import Foundation

extension ManagedObjectModel {
    /// Loads every version of an `.xcdatamodeld` bundle, in the order Xcode numbers them, with its version name
    /// (the `.xcdatamodel` folder's name): the candidates a migration picks its source from.
    public static func loadVersions(inBundle url: URL) throws -> [(name: String, model: ManagedObjectModel)] {
        try versions(inBundle: url).map { ($0.name, try ManagedObjectModel(contentsOf: $0.url)) }
    }
}

extension ManagedObjectModel {
    /// The name of the bundle's current version (named by `.xccurrentversion`, else the last).
    public static func currentVersionName(inBundle url: URL) throws -> String {
        try contentsFile(for: url).deletingLastPathComponent().deletingPathExtension().lastPathComponent
    }
}
