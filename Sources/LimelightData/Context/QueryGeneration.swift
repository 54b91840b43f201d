import Foundation

/// A version of the stores a context reads at, Core Data's `NSQueryGenerationToken`: a context
/// pinned to one sees the stores as they were when it was taken, in every fetch, fault and count,
/// however other contexts and processes save meanwhile, until it moves on. A screen showing a list
/// and its details from one snapshot, while a background import saves, reads consistently.
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)      // pin at the next read
/// let token = context.queryGenerationToken          // share it: other.setQueryGenerationFrom(token)
/// try context.setQueryGenerationFrom(nil)           // read the newest data again
/// ```
///
/// A context pinned with `.current` moves on to the newest generation when it saves, is reset,
/// refreshes all objects or merges another save; one given another context's token stays where it
/// is. Only SQLite stores in WAL mode (as this framework makes them) have generations: other stores
/// are read as they are. A generation keeps a read transaction open on each store, so SQLite cannot
/// checkpoint its log past it: let contexts move on rather than hold one for hours.
public final class QueryGenerationToken: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The generation current at the context's next read.
    public static let current = QueryGenerationToken(generation: nil)

    let generation: QueryGeneration?

    init(generation: QueryGeneration?) { self.generation = generation }

    public static func == (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool {
        lhs === rhs || (lhs.generation != nil && lhs.generation === rhs.generation)
    }

    public var description: String {
        generation.map { "QueryGenerationToken(\($0.number))" } ?? "QueryGenerationToken(current)"
    }
}

/// One snapshot of a coordinator's SQLite stores: per store, a connection of its own holding a
/// read transaction open, which SQLite keeps at the database as it was when the transaction began.
/// Used only under the coordinator's lock, as the stores' own connections are.
final class QueryGeneration: @unchecked Sendable {
    private static let counter = NSLock()
    nonisolated(unsafe) private static var taken = 0

    let number: Int
    let coordinator: ObjectIdentifier
    private var connections: [ObjectIdentifier: SQLiteConnection] = [:]

    /// Takes a snapshot of every SQLite store of `coordinator`; call under its lock.
    init(coordinator: PersistentStoreCoordinator) throws {
        number = Self.counter.withLock {
            Self.taken += 1
            return Self.taken
        }
        self.coordinator = ObjectIdentifier(coordinator)
        for case let store as SQLiteStore in coordinator.persistentStores {
            let reader = try store.openReadConnection()
            do {
                var mode = ""
                try reader.query("PRAGMA journal_mode", cached: false) { row in if case .text(let text) = SQLiteValue(statement: row, column: 0) { mode = text } }
                guard mode.lowercased() == "wal" else {
                    throw PersistenceError.store(path: store.path, reason: "query generations need a store in WAL mode; this one is in \(mode) mode")
                }
                try reader.execute("BEGIN")
                // A transaction reads from its first statement on; this one fixes the snapshot now.
                _ = try reader.scalarInt("SELECT count(*) FROM sqlite_master")
            } catch {
                reader.close()
                throw error
            }
            connections[ObjectIdentifier(store)] = reader
        }
    }

    deinit {
        for reader in connections.values {
            try? reader.execute("COMMIT")
            reader.close()
        }
    }

    /// Runs `body` with the stores reading through this generation's connections; call under the
    /// coordinator's lock.
    func reading<T>(_ coordinator: PersistentStoreCoordinator, _ body: () throws -> T) rethrows -> T {
        var pinned: [SQLiteStore] = []
        for case let store as SQLiteStore in coordinator.persistentStores {
            guard let reader = connections[ObjectIdentifier(store)] else { continue }
            store.generationConnection = reader
            pinned.append(store)
        }
        defer { for store in pinned { store.generationConnection = nil } }
        return try body()
    }
}

extension ManagedObjectContext {
    /// The generation the context reads at; `nil` when it reads the newest data. A context set to
    /// `.current` that has not read since is pinned now, to hand out a token others can share.
    public var queryGenerationToken: QueryGenerationToken? {
        guard requestedGeneration != nil, let coordinator = persistentStoreCoordinator else { return nil }
        guard let generation = try? coordinator.withStores({ try pinnedGeneration(coordinator) }) else { return nil }
        return QueryGenerationToken(generation: generation)
    }

    /// Pins the context to a query generation: `.current` (the stores as they are at the next
    /// read, moving on with saves, resets, refreshes and merges), another context's token (that
    /// context's snapshot, kept), or `nil` (read the newest data). Throws for a token of another
    /// coordinator's context.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        if let generation = token?.generation {
            guard let coordinator = persistentStoreCoordinator, generation.coordinator == ObjectIdentifier(coordinator) else {
                throw PersistenceError.invalidRequest("the query generation token belongs to another coordinator's stores")
            }
        }
        requestedGeneration = token
        pinnedGeneration = token?.generation
    }

    /// Lets a context pinned with `.current` read at the newest generation from its next read on.
    func advanceQueryGeneration() {
        if requestedGeneration === QueryGenerationToken.current { pinnedGeneration = nil }
    }

    /// The context's snapshot, taken now if due; call under the coordinator's lock.
    private func pinnedGeneration(_ coordinator: PersistentStoreCoordinator) throws -> QueryGeneration? {
        guard requestedGeneration != nil else { return nil }
        if let pinnedGeneration { return pinnedGeneration }
        let generation = try QueryGeneration(coordinator: coordinator)
        pinnedGeneration = generation
        return generation
    }

    /// Reads the stores as this context's request (`askingStores`), at the context's query
    /// generation when it has one.
    func readingStores<T>(_ coordinator: PersistentStoreCoordinator, _ body: () throws -> T) throws -> T {
        guard requestedGeneration != nil else { return try askingStores(coordinator, body) }
        return try askingStores(coordinator) {
            guard let generation = try pinnedGeneration(coordinator) else { return try body() }
            return try generation.reading(coordinator, body)
        }
    }
}
