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
    ///
    /// To decode many markers, use one `ExternalRecordPathDecoder`: it reads what the markers of a
    /// folder share once.
    public static func decode(_ path: String, roots: [String: URL] = ExternalRecordsRegistry.registeredRoots()) throws -> ExternalRecordElements {
        try ExternalRecordPathDecoder(roots: roots).decode(path)
    }
}
