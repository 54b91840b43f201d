import Foundation
import LimelightData

/// Searches the index and resolves every hit to its live managed object, reading current values
/// from the store; hits whose object is gone are dropped and reported.
public final class SearchService {
    public struct Options: Equatable, Sendable {
        public var query: String
        /// Stemming language for the query; `nil` uses the one the index was written with.
        public var language: String?
        public var limit = 20
        public var offset = 0
        /// An indexed property, or `displayName` (also `name` when no property has that name);
        /// `-` in front or `:desc` behind sorts descending.
        public var sort: String?
        /// Only documents of these stores, by UUID; `nil`: every store.
        public var storeIdentifiers: [String]?
        /// Only documents of these entities (exact names: sub-entities are not implied); `nil`:
        /// every entity.
        public var entityNames: [String]?
        public init(query: String) { self.query = query }
    }

    public struct Hit {
        public var document: IndexLayout.DocumentData
        public var percent: Int
        public var snippet: String
        public var object: ManagedObject
        /// The object's attribute values by name, read when asked for: printing a hit reads the
        /// object itself, and reading every attribute of every hit up front did that work twice.
        public var values: [String: Any?] {
            var values: [String: Any?] = [:]
            for property in object.entity.properties where property is AttributeDescription {
                values[property.name] = object.value(forKey: property.name)
            }
            return values
        }
    }

    public struct Outcome {
        public var estimatedTotal: Int
        public var hits: [Hit]
        /// Hits whose object no longer exists (or whose store cannot be opened), and why.
        public var dropped: [(document: IndexLayout.DocumentData, reason: String)]
    }

    public let reader: SearchIndexReader
    private let registry: URL?
    private var contexts: [String: ManagedObjectContext] = [:]
    /// Stores open between searches; `nil` opens them afresh for every search.
    private let keptStores: KeptStores?

    /// `registry` is the roots registry hits' markers must lie in (default: the user's).
    /// `keepsStoresOpen` is for a long-running searcher: stores stay open between searches,
    /// while each search still reads their rows as they are now.
    public init(indexPath: URL, registry: URL? = nil, keepsStoresOpen: Bool = false) throws {
        guard FileManager.default.fileExists(atPath: indexPath.path) else {
            throw SearchIndexError(kind: .opening, message: "no index yet (start limelightd, or run limelight index)", path: indexPath.path)
        }
        reader = try SearchIndexReader(path: indexPath.path)
        self.registry = registry
        keptStores = keepsStoresOpen ? KeptStores() : nil
    }

    /// The Xapian query for `options`: every indexed property as a field (`name:salsa`), and all
    /// of them searched by words without a field.
    public func query(for options: Options) throws -> SearchQuery {
        var query = SearchQuery(text: options.query)
        query.language = try options.language ?? reader.metadata(forKey: IndexLayout.languageKey) ?? "english"
        query.booleanPrefixes = ["entity": IndexLayout.entityPrefix, "store": IndexLayout.storePrefix]
        let fields = try reader.indexedFields()
        // Plain words search every property, one called `entity` or `store` too; such a property
        // is no field name, since Xapian refuses a name that is both a field and a filter.
        query.defaultPrefixes = fields.map(IndexLayout.fieldPrefix)
        query.fieldPrefixes = Dictionary(uniqueKeysWithValues: fields.filter { query.booleanPrefixes[$0] == nil }.map { ($0, IndexLayout.fieldPrefix($0)) })
        if let stores = options.storeIdentifiers { query.filters.append(stores.map { IndexLayout.booleanTerm(IndexLayout.storePrefix, $0) }) }
        if let entities = options.entityNames { query.filters.append(entities.map { IndexLayout.booleanTerm(IndexLayout.entityPrefix, $0) }) }
        query.offset = options.offset
        query.limit = options.limit
        query.snippetSlot = IndexLayout.snippetSlot
        if var sort = options.sort {
            if sort.hasPrefix("-") { query.sortDescending = true; sort.removeFirst() }
            if sort.hasSuffix(":desc") { query.sortDescending = true; sort.removeLast(5) }
            let slots = try propertySlots()
            if let slot = slots[sort] {
                query.sortSlot = slot
            } else if sort == "displayName" || sort == "name" {
                query.sortSlot = IndexLayout.displayNameSlot
            } else {
                let known = (["displayName"] + slots.keys.sorted()).joined(separator: ", ")
                throw SearchIndexError(kind: .other, message: "no indexed property '\(sort)' to sort by (known: \(known))", path: reader.path)
            }
        }
        return query
    }

    /// Value slots of sortable properties, as the indexer assigned them.
    func propertySlots() throws -> [String: UInt32] {
        var result: [String: UInt32] = [:]
        for pair in (try reader.metadata(forKey: IndexLayout.slotsKey) ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let slot = UInt32(parts[1]) { result[String(parts[0])] = slot }
        }
        return result
    }

    /// The number of matching documents (an estimate from Xapian for large results).
    public func count(_ options: Options) throws -> Int {
        var query = try query(for: options)
        query.limit = 0
        query.snippetSlot = nil
        return try reader.search(query).estimatedTotal
    }

    /// Runs the query and resolves its hits. Every search reads through contexts of its own (and,
    /// unless stores are kept open, opens the stores afresh), so a long-running caller (`--live`,
    /// limelightd) shows values as they are now, not as first read.
    public func search(_ options: Options) throws -> Outcome {
        contexts = [:]
        return try search(options) { documents in
            FaultBatch.load(documents.map { document in Result { try fault(for: document) } })
        }
    }

    /// Runs the query over the documents of `context`'s stores only and resolves its hits to
    /// `context`'s own objects, as an application shows them: with the context's unsaved
    /// changes, and without the objects it deleted. Runs on the context's queue.
    public func search(_ options: Options, in context: ManagedObjectContext) throws -> Outcome {
        try context.performAndWait {
            guard let coordinator = context.persistentStoreCoordinator else {
                throw SearchIndexError(kind: .other, message: "the context has no persistent store coordinator", path: reader.path)
            }
            var options = options
            let stores = coordinator.persistentStores.map(\.identifier)
            options.storeIdentifiers = options.storeIdentifiers.map { $0.filter(stores.contains) } ?? stores
            return try search(options) { documents in
                FaultBatch.load(documents.map { document in
                    Result {
                        guard let id = coordinator.managedObjectID(forURIString: document.uri) else {
                            throw ExternalRecordError(path: document.marker, reason: "the object URI \(document.uri) does not belong to the context's stores")
                        }
                        let object = context.object(with: id)
                        if object.isDeleted {
                            throw ExternalRecordError(path: document.marker, reason: "the object \(document.uri) is deleted in the context")
                        }
                        return FaultBatch.Item(context: context, object: object)
                    }
                })
            }
        }
    }

    /// Runs the query; `resolve` turns the hits' documents into their objects, in order.
    private func search(_ options: Options, resolve: ([IndexLayout.DocumentData]) -> [Result<ManagedObject, any Error>]) throws -> Outcome {
        let results = try reader.search(try query(for: options))
        var outcome = Outcome(estimatedTotal: results.estimatedTotal, hits: [], dropped: [])
        let decoded = results.hits.compactMap { hit in
            (try? IndexLayout.DocumentData.read(hit.data)).map { (hit: hit, document: $0) }
        }
        let objects = resolve(decoded.map(\.document))
        for ((hit, document), object) in zip(decoded, objects) {
            do {
                outcome.hits.append(Hit(document: document, percent: hit.percent, snippet: hit.snippet, object: try object.get()))
            } catch {
                outcome.dropped.append((document, "\(error)"))
            }
        }
        return outcome
    }

    /// Lets go of the last search's objects (and, unless stores are kept open, its stores).
    public func releaseObjects() {
        contexts = [:]
        keptStores?.emptyContexts()
    }

    /// Closes kept stores whose files were deleted or replaced (see `keepsStoresOpen`).
    public func closeStaleStores() { keptStores?.closeStale() }

    /// The hit's object as a fault in its store's context, the store opened on first use.
    private func fault(for document: IndexLayout.DocumentData) throws -> FaultBatch.Item {
        let context: ManagedObjectContext
        if let cached = contexts[document.store] {
            context = cached
        } else {
            let roots = registry.map(ExternalRecordsRegistry.registeredRoots(in:)) ?? ExternalRecordsRegistry.registeredRoots()
            let elements = try ExternalRecordPath.decode(document.marker, roots: roots)
            if let keptStores {
                context = try keptStores.context(for: elements)
            } else {
                context = try ExternalRecordReader(elements: elements).context
            }
            contexts[document.store] = context
        }
        guard let id = context.persistentStoreCoordinator?.managedObjectID(forURIString: document.uri) else {
            throw ExternalRecordError(path: document.marker, reason: "the object URI \(document.uri) does not belong to the store")
        }
        return FaultBatch.Item(context: context, object: context.object(with: id))
    }
}
