import Foundation
import LimelightData

/// Searches the index and resolves every hit to its live managed object, reading current values
/// from the store; hits whose object is gone are dropped and reported.
public final class SearchService {
    public struct Options: Sendable {
        public var query: String
        public var language = "english"
        public var limit = 20
        public var offset = 0
        /// A property name, or `name` for the display name; `-` in front sorts descending.
        public var sort: String?
        public init(query: String) { self.query = query }
    }

    public struct Hit {
        public var document: IndexLayout.DocumentData
        public var percent: Int
        public var snippet: String
        public var object: ManagedObject
        public var values: [String: Any?]
    }

    public struct Outcome {
        public var estimatedTotal: Int
        public var hits: [Hit]
        /// Hits whose object no longer exists (or whose store cannot be opened), and why.
        public var dropped: [(document: IndexLayout.DocumentData, reason: String)]
    }

    public let reader: SearchIndexReader
    private var contexts: [String: ManagedObjectContext] = [:]

    public init(indexPath: URL) throws {
        guard FileManager.default.fileExists(atPath: indexPath.path) else {
            throw SearchIndexError(kind: .opening, message: "no index yet (start limelightd, or run limelight index)", path: indexPath.path)
        }
        reader = try SearchIndexReader(path: indexPath.path)
    }

    /// The Xapian query for `options`, with every indexed property as a field prefix.
    public func query(for options: Options) throws -> SearchQuery {
        var query = SearchQuery(text: options.query)
        query.language = options.language
        let fields = (try reader.metadata(forKey: IndexLayout.fieldsKey) ?? "").split(separator: ",").map(String.init)
        query.fieldPrefixes = Dictionary(uniqueKeysWithValues: fields.map { ($0, IndexLayout.fieldPrefix($0)) })
        query.booleanPrefixes = ["entity": IndexLayout.entityPrefix, "store": IndexLayout.storePrefix]
        query.offset = options.offset
        query.limit = options.limit
        query.snippetSlot = IndexLayout.snippetSlot
        if var sort = options.sort {
            if sort.hasPrefix("-") { query.sortDescending = true; sort.removeFirst() }
            if sort.hasSuffix(":desc") { query.sortDescending = true; sort.removeLast(5) }
            if sort == "name" || sort == "displayName" {
                query.sortSlot = IndexLayout.displayNameSlot
            } else {
                guard let slot = try propertySlots()[sort] else {
                    throw SearchIndexError(kind: .other, message: "no indexed property '\(sort)' to sort by", path: reader.path)
                }
                query.sortSlot = slot
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

    public func search(_ options: Options) throws -> Outcome {
        let results = try reader.search(try query(for: options))
        var outcome = Outcome(estimatedTotal: results.estimatedTotal, hits: [], dropped: [])
        for hit in results.hits {
            guard let document = try? JSONDecoder().decode(IndexLayout.DocumentData.self, from: hit.data) else { continue }
            do {
                let object = try resolve(document)
                var values: [String: Any?] = [:]
                for property in object.entity.properties where property is AttributeDescription {
                    values[property.name] = object.value(forKey: property.name)
                }
                outcome.hits.append(Hit(document: document, percent: hit.percent, snippet: hit.snippet, object: object, values: values))
            } catch {
                outcome.dropped.append((document, "\(error)"))
            }
        }
        return outcome
    }

    private func resolve(_ document: IndexLayout.DocumentData) throws -> ManagedObject {
        let context: ManagedObjectContext
        if let cached = contexts[document.store] {
            context = cached
        } else {
            context = try ExternalRecordReader(markerPath: document.marker).context
            contexts[document.store] = context
        }
        guard let uri = URL(string: document.uri),
              let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri) else {
            throw ExternalRecordError(path: document.marker, reason: "the object URI \(document.uri) does not belong to the store")
        }
        return try context.existingObject(with: id)
    }
}
