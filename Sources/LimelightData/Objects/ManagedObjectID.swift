import Foundation

/// Identifies one object across contexts, threads and launches.
///
/// Temporary until the object is first saved (`x-coredata:///<Entity>/t<UUID>`), permanent after
/// (`x-coredata://<STORE-UUID>/<Entity>/p<pk>`). IDs are values: hashable and `Sendable`, so they
/// are what crosses between contexts and threads, never the objects themselves.
public struct ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The object's entity (its concrete entity, never an abstract parent).
    public let entity: EntityDescription
    /// The UUID of the store the object lives in; `nil` for a temporary ID.
    public let storeIdentifier: String?
    let key: Key

    enum Key: Hashable, Sendable {
        case permanent(Int64)
        case temporary(UUID)
    }

    init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.entity = entity
        self.storeIdentifier = storeIdentifier
        self.key = .permanent(primaryKey)
    }

    init(temporaryFor entity: EntityDescription) {
        self.entity = entity
        self.storeIdentifier = nil
        self.key = .temporary(Self.randomUUID())
    }

    /// A random (version 4) UUID from the standard library's system generator. Every object
    /// starts with a temporary ID, fetched ones too, and Foundation's `UUID()` on Linux opens,
    /// reads and closes /dev/urandom each time: three system calls per object fetched.
    static func randomUUID() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bits = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bits) { bytes in
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            return UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }

    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
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
        case .permanent(let pk): return "x-coredata://\(storeIdentifier ?? "")/\(entity.name)/p\(pk)"
        case .temporary(let uuid): return "x-coredata:///\(entity.name)/t\(uuid.uuidString)"
        }
    }

    /// The parts of an object URI, checked for form only; the coordinator resolves them.
    public struct URIParts: Equatable, Sendable {
        public var storeIdentifier: String
        public var entityName: String
        public var primaryKey: Int64
    }

    /// Splits `x-coredata://<STORE>/<Entity>/p<pk>`, or says why it cannot.
    public static func parse(uri: URL) throws -> URIParts {
        let text = uri.absoluteString
        let prefix = "x-coredata://"
        guard text.hasPrefix(prefix) else {
            throw ObjectIDError("not an x-coredata URI", uri: text)
        }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ObjectIDError("expected x-coredata://<store>/<entity>/p<key>", uri: text)
        }
        guard parts[2].hasPrefix("p"), let pk = Int64(parts[2].dropFirst()), pk > 0 else {
            throw ObjectIDError("the object key must be 'p' followed by a positive number", uri: text)
        }
        return URIParts(storeIdentifier: String(parts[0]), entityName: String(parts[1]), primaryKey: pk)
    }

    public var description: String { uriString }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.key == rhs.key && lhs.storeIdentifier == rhs.storeIdentifier
            && lhs.entity.rootEntity === rhs.entity.rootEntity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(storeIdentifier)
    }
}

/// A URI that does not name an object.
public struct ObjectIDError: Error, CustomStringConvertible {
    public var reason: String
    public var uri: String
    init(_ reason: String, uri: String) { self.reason = reason; self.uri = uri }
    public var description: String { "\(uri): \(reason)" }
}
