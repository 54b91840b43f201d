import Foundation
import LimelightData

/// How records are laid out in the Xapian database: term prefixes, value slots and document data.
/// The indexer writes with it and search reads with it, so both always agree.
public enum IndexLayout {
    /// Unique term: `Q` + object URI (one document per object, replaced on change).
    public static let uniquePrefix = "Q"
    /// Boolean filter `entity:Recipe`.
    public static let entityPrefix = "XE"
    /// Boolean filter `store:<UUID>`.
    public static let storePrefix = "XS"
    /// Boolean term of a document that only remembers an object kept out of the index (its
    /// application's Core Spotlight delegate or importer said so): it holds the marker's time
    /// for reconcile, and searches and counts leave it out. Upper-case, so no word of a text and
    /// no field's term can be it.
    public static let excludedTerm = "XK"
    /// Marker modification time (seconds since 1970), compared by reconcile.
    public static let markerTimeSlot: UInt32 = 0
    /// Display name, for `--sort name` without knowing the property.
    public static let displayNameSlot: UInt32 = 1
    /// The indexed text, which snippets are cut from.
    public static let snippetSlot: UInt32 = 2
    /// First slot for per-property sortable values; assigned in metadata `slots`.
    public static let firstPropertySlot: UInt32 = 10
    /// Metadata keys.
    public static let fieldsKey = "limelight.fields"
    public static let slotsKey = "limelight.slots"
    public static let lastCommitKey = "limelight.lastCommit"
    /// The stemming language the indexer wrote with; searches default to it.
    public static let languageKey = "limelight.language"

    /// A boolean term as Xapian's QueryParser forms it for `field:Value`: multi-letter prefixes
    /// get a colon before a value that starts with a capital letter.
    public static func booleanTerm(_ prefix: String, _ value: String) -> String {
        prefix.count > 1 && (value.first?.isUppercase ?? false) ? prefix + ":" + value : prefix + value
    }

    /// The free-text prefix of a property: `XP` + its upper-cased name (`name:` → `XPNAME`).
    public static func fieldPrefix(_ property: String) -> String { "XP" + property.uppercased() }

    /// The field names a `fieldsKey` metadata value lists.
    static func fieldNames(inMetadata value: String?) -> [String] {
        (value ?? "").split(separator: ",").map(String.init)
    }

    /// What a document carries for showing a hit without opening the store.
    public struct DocumentData: Codable, Sendable, Equatable {
        public var marker: String
        public var uri: String
        public var entity: String
        public var store: String
        public var displayName: String

        public init(marker: String, uri: String, entity: String, store: String, displayName: String) {
            self.marker = marker
            self.uri = uri
            self.entity = entity
            self.store = store
            self.displayName = displayName
        }
    }

    /// The object URI a marker path stands for, from the path alone:
    /// `<records root = …/STORE-UUID>/<Entity>/<pk>.<ext>` → `x-coredata://STORE-UUID/Entity/p<pk>`.
    public static func objectURI(forMarker path: String) -> String? {
        let parts = MarkerParts(path)
        guard let pk = Int64(parts.key), pk > 0, !parts.entity.isEmpty, !parts.store.isEmpty, !parts.entity.hasPrefix(".") else { return nil }
        return ManagedObjectID.uriString(storeIdentifier: parts.store, entityName: parts.entity, primaryKey: pk)
    }

    /// A marker's extension (`note` for `…/Note/7.note`), or "" when it has none.
    public static func fileExtension(ofMarker path: String) -> String {
        String(splitFileName(MarkerParts(path).fileName).fileExtension)
    }

    /// A marker file's name taken apart at its last dot: the object's key before it and the
    /// extension after it; the whole name and no extension when it has no dot but a leading one.
    static func splitFileName(_ name: String) -> (key: Substring, fileExtension: Substring) {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return (name[...], "") }
        return (name[..<dot], name[name.utf8.index(after: dot)...])
    }

    /// The last three components of a marker path, taken apart as text. (Foundation's file URLs
    /// would do the same, but on Linux each one asks the file system whether the path is a
    /// folder, which is a system call per marker and per component.)
    public struct MarkerParts {
        /// The store UUID (the records root's name), the entity's folder and the file's name.
        public var store: String
        public var entity: String
        public var fileName: String
        /// The file's name without its extension.
        public var key: String

        public init(_ path: String) {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            // Walked from the end over UTF-8 bytes: `/` is ASCII, so every cut is a valid index.
            let slash = UInt8(ascii: "/")
            var rest = Substring(absolute)
            var names: [Substring] = []
            while names.count < 3, let cut = rest.utf8.lastIndex(of: slash) {
                let name = rest[rest.utf8.index(after: cut)...]
                if !name.isEmpty { names.append(name) }
                rest = rest[..<cut]
            }
            fileName = names.count > 0 ? String(names[0]) : ""
            entity = names.count > 1 ? String(names[1]) : ""
            store = names.count > 2 ? String(names[2]) : ""
            key = String(IndexLayout.splitFileName(fileName).key)
        }
    }
}
