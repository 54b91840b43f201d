import Foundation
import Synchronization

/// Identifies one object across contexts, threads and launches.
///
/// Temporary until the object is first saved (`x-coredata:///<Entity>/t<UUID>`), permanent after
/// (`x-coredata://<STORE-UUID>/<Entity>/p<pk>`). IDs are values: hashable and `Sendable`, so they
/// are what crosses between contexts and threads, never the objects themselves.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The object's entity (its concrete entity, never an abstract parent).
    public let entity: EntityDescription
    /// The UUID of the store the object lives in; `nil` for a temporary ID.
    public var storeIdentifier: String? { store?.identifier }
    /// The store the object lives in (Core Data's `persistentStore`): `nil` for a temporary ID,
    /// and once the store is removed from its coordinator or gone. An ID does not keep its store
    /// alive. Equal IDs read through two coordinators on one file name each its own store.
    public var persistentStore: PersistentStore? { store?.persistentStore }
    /// The store's identifier and, weakly, the store; `nil` while the ID is temporary.
    let store: StoreReference?
    let key: Key

    enum Key: Hashable, Sendable {
        case permanent(Int64)
        /// A number unique in this process; shown as a UUID made of it and a per-process random part.
        case temporary(UInt64)
    }

    /// Temporary IDs come from a counter, not a fresh random UUID each: every inserted object gets
    /// one, and the random part only has to tell processes apart.
    private static let temporaryCounter = Atomic<UInt64>(0)
    private static let processPart: UInt64 = UInt64.random(in: 1...UInt64.max)

    init(entity: EntityDescription, store: StoreReference, primaryKey: Int64) {
        self.entity = entity
        self.store = store
        self.key = .permanent(primaryKey)
    }

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.store = nil
        self.key = .temporary(Self.temporaryCounter.add(1, ordering: .relaxed).newValue)
    }

    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// Orders temporary IDs by when they were made; permanent IDs come after all of them.
    var creationOrder: UInt64 {
        if case .temporary(let number) = key { return number }
        return .max
    }

    /// The row's primary key in its store (`Z_PK`); `nil` while the ID is temporary.
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

    /// The URI form Core Data uses for archiving an ID and for marker files.
    public func uriRepresentation() -> URL {
        // Entity names are identifiers and UUIDs are hex, so the text is always a valid URL.
        URL(string: uriString) ?? URL(fileURLWithPath: "/")
    }

    /// The URI as text, without the cost of building a URL (markers write one per object).
    public var uriString: String {
        switch key {
        case .permanent(let pk): return Self.uriString(storeIdentifier: storeIdentifier ?? "", entityName: entity.name, primaryKey: pk)
        case .temporary(let number): return "x-coredata:///\(entity.name)/t\(Self.temporaryUUID(number).uuidString)"
        }
    }

    /// The URI of a saved object named by its parts (`x-coredata://<store>/<Entity>/p<pk>`), for
    /// code that knows them without an entity description, such as a marker's path.
    public static func uriString(storeIdentifier: String, entityName: String, primaryKey: Int64) -> String {
        "x-coredata://\(storeIdentifier)/\(entityName)/p\(primaryKey)"
    }

    /// The parts of an object URI, checked for form only; the coordinator resolves them.
    public struct URIParts: Equatable, Sendable {
        public var storeIdentifier: String
        public var entityName: String
        public var primaryKey: Int64
    }

    /// Splits `x-coredata://<STORE>/<Entity>/p<pk>`, or says why it cannot.
    public static func parse(uri: URL) throws -> URIParts { try parse(uriString: uri.absoluteString) }

    /// `parse(uri:)` for a URI held as text, as an index or a marker holds it: making a `URL` of it
    /// and reading its text back costs more than taking the text apart.
    public static func parse(uriString text: String) throws -> URIParts {
        let prefix = "x-coredata://"
        guard text.hasPrefix(prefix) else {
            throw ObjectIDError("not an x-coredata URI", uri: text)
        }
        // The slashes are found among the UTF-8 bytes: splitting the text walks it character by
        // character, grapheme rules and all, about twenty times the work for an ASCII URI.
        let utf8 = text.utf8, slash = UInt8(ascii: "/")
        let start = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
        guard let first = utf8[start...].firstIndex(of: slash),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: slash),
              !utf8[utf8.index(after: second)...].contains(slash),
              first > start, second > utf8.index(after: first) else {
            throw ObjectIDError("expected x-coredata://<store>/<entity>/p<key>", uri: text)
        }
        let store = text[start..<first], entity = text[utf8.index(after: first)..<second]
        let key = text[utf8.index(after: second)...]
        guard key.hasPrefix("p"), let pk = Int64(key.dropFirst()), pk > 0 else {
            throw ObjectIDError("the object key must be 'p' followed by a positive number", uri: text)
        }
        return URIParts(storeIdentifier: String(store), entityName: String(entity), primaryKey: pk)
    }

    public var description: String { uriString }

    /// A cheap hash for the context's registry: the key, with the entity tree's identity above
    /// its lowest three bits, so the same key in two tables lands apart while consecutive keys
    /// of one table stay together (`ObjectRegistry` keeps runs of eight).
    var registryHash: UInt64 {
        switch key {
        case .permanent(let pk): return UInt64(bitPattern: pk) ^ UInt64(UInt(bitPattern: entity.rootIdentity)) << 3
        case .temporary(let number): return ~number
        }
    }

    /// The UUID a temporary ID is shown as: the process's random part, then the counter, with the
    /// version 4 and RFC 4122 variant bits set so it reads as the random UUID Core Data shows.
    private static func temporaryUUID(_ number: UInt64) -> UUID {
        let high = ((processPart & ~0xF000) | 0x4000).bigEndian
        let low = ((number & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000).bigEndian
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    // IDs are dictionary keys everywhere in the graph (registry, save mappings, fault groups) and
    // the members of the sets a save's notifications carry: equality tries the cheap parts first
    // (the store by identity before its identifier's text), and the hash is one word, the row
    // number mixed with the entity tree's identity (`registryHash`), so rows of two entities with
    // the same number land apart; the store's 36-character identifier would cost more than the rest.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.key == rhs.key else { return false }
        guard lhs.entity === rhs.entity || lhs.entity.rootIdentity == rhs.entity.rootIdentity else { return false }
        return lhs.store === rhs.store || lhs.store?.identifier == rhs.store?.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(registryHash)
    }
}

/// A URI that does not name an object.
public struct ObjectIDError: Error, CustomStringConvertible {
    public var reason: String
    public var uri: String
    init(_ reason: String, uri: String) { self.reason = reason; self.uri = uri }
    public var description: String { "\(uri): \(reason)" }
}
