import Foundation
import LimelightData

/// A search of the Spotlight index for an application's own objects: what a Core Data app on the
/// Mac ran as a metadata query over its store's records, then turned back into objects with the
/// coordinator. Here `context.search(_:)` does both: it searches the index `limelightd` keeps
/// and hands back the context's own objects.
///
/// The query string is the one `limelight search` takes: words (every indexed property),
/// `property:word` for one property, `"phrases"`, `wild*cards`, `AND`/`OR`/`NOT`, and the
/// filters `entity:Name` and `store:UUID`.
public struct SpotlightQuery: Sendable, Equatable {
    /// What to search for; an empty string matches every indexed object.
    public var queryString: String
    /// Only objects of these entities and their sub-entities; `nil`: every entity.
    public var entityNames: [String]?
    /// The most hits to return.
    public var fetchLimit = 20
    /// Hits to skip, for paging.
    public var fetchOffset = 0
    /// An indexed property to sort by, or `displayName`; `nil` sorts by relevance.
    public var sortKey: String?
    /// With `sortKey`, whether the smallest value comes first.
    public var ascending = true
    /// The stemming language of the query's words; `nil`: the one the index was written with,
    /// `"none"`: words only as written.
    public var language: String?
    /// The index to search; `nil`: the user's, which `limelightd` writes.
    public var indexURL: URL?

    public init(_ queryString: String, entityNames: [String]? = nil) {
        self.queryString = queryString
        self.entityNames = entityNames
    }
}

/// One object a `SpotlightQuery` found.
public struct SpotlightHit {
    /// The object, registered in the context that searched.
    public var object: ManagedObject
    /// How well it matched, from 0 to 100.
    public var relevance: Int
    /// Text around the matching words, which are marked `[like this]`.
    public var snippet: String
    /// The name the index shows the object by.
    public var displayName: String
    /// The object's marker file, which `limelight open` opens.
    public var markerURL: URL
}

/// What a `SpotlightQuery` found in a context.
public struct SpotlightResults {
    /// The objects found, best first (or in the query's sort order).
    public var hits: [SpotlightHit]
    /// How many indexed objects match in all, ignoring the fetch limit and offset; an estimate for
    /// large results.
    public var estimatedTotal: Int
    /// Hits whose object is gone from the store or deleted in the context, with why: the index
    /// catches up with saves a moment after them.
    public var skipped: [(objectURI: String, reason: String)]
}

extension ManagedObjectContext {
    /// Searches the Spotlight index for objects of this context's stores and returns them as this
    /// context's objects, with its unsaved changes; objects it deleted are skipped. Objects not
    /// yet saved are not in the index. Runs on the context's queue; safe to call from any thread.
    ///
    /// Throws `SearchIndexError` when there is no index yet (the daemon has not run), the query
    /// does not parse, or `sortKey` names no indexed property.
    public func search(_ query: SpotlightQuery) throws -> SpotlightResults {
        let indexURL = query.indexURL ?? ExternalRecordsRegistryPaths.defaultIndexURL
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw SearchIndexError(kind: .other, message: "the context has no persistent store coordinator", path: indexURL.path)
        }
        var options = SearchService.Options(query: query.queryString)
        options.language = query.language
        options.limit = max(0, query.fetchLimit)
        options.offset = max(0, query.fetchOffset)
        options.sort = query.sortKey.map { query.ascending ? $0 : "-" + $0 }
        if let names = query.entityNames {
            var entities: [String] = []
            for name in names {
                guard let entity = model.entitiesByName[name] else {
                    throw SearchIndexError(kind: .other, message: "the context's model has no entity named '\(name)' to search for",
                                           path: indexURL.path)
                }
                entities += entity.selfAndDescendants.map(\.name)
            }
            options.entityNames = entities
        }
        let outcome = try SharedSearchServices.shared.withService(for: indexURL) { service in
            try service.search(options, in: self)
        }
        return SpotlightResults(
            hits: outcome.hits.map { hit in
                SpotlightHit(object: hit.object, relevance: hit.percent, snippet: hit.snippet, displayName: hit.document.displayName,
                             markerURL: URL(fileURLWithPath: hit.document.marker))
            },
            estimatedTotal: outcome.estimatedTotal,
            skipped: outcome.dropped.map { (objectURI: $0.document.uri, reason: $0.reason) })
    }
}

/// Search services kept for the whole process, so a search does not open the index anew each
/// time. A Xapian database is for one thread at a time, so each search takes a service of its own
/// out of the pool and puts it back after; no lock is held while it searches, since resolving hits
/// waits for contexts' queues (a child's for its parent's), whose blocks may be searching too.
final class SharedSearchServices: @unchecked Sendable {
    static let shared = SharedSearchServices()
    /// Services kept idle per index; more searches at once open more, and the extra ones go.
    private static let keptPerIndex = 4
    private let lock = NSLock()
    private var idle: [String: [SearchService]] = [:]

    func withService<T>(for indexURL: URL, _ body: (SearchService) throws -> T) throws -> T {
        let path = indexURL.standardizedFileURL.path
        lock.lock()
        let kept = idle[path]?.popLast()
        lock.unlock()
        let service: SearchService
        // The daemon commits while the application runs: a kept service reads its newest
        // revision, and one that cannot (the index was removed or rebuilt) is replaced.
        if let kept, (try? kept.reader.reopen()) != nil {
            service = kept
        } else {
            service = try SearchService(indexPath: URL(fileURLWithPath: path, isDirectory: true))
        }
        let result = try body(service)
        lock.lock()
        if idle[path, default: []].count < Self.keptPerIndex { idle[path, default: []].append(service) }
        lock.unlock()
        return result
    }
}
