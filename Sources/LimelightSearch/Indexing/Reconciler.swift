import Foundation
import LimelightData

/// Brings the index in line with the marker files: what changed while nobody watched (daemon
/// start, inotify overflow, a root that could not be watched) is found by comparing each marker's
/// modification time with the one stored in its document.
public struct Reconciler {
    public struct Plan: Sendable, Equatable {
        public var changed: [String] = []
        /// Object URIs whose documents go.
        public var removedURIs: [String] = []
        public var unchanged = 0
    }

    /// Every marker under `root` (`<root>/<Entity>/<pk>.<ext>`), by entity and then by key.
    ///
    /// In key order rather than the directory's (hash) order, the importer reads the store's rows
    /// in the order they lie in its table, and the index gets its documents in the order of their
    /// objects.
    public static func markers(in root: URL) -> [String] {
        markerEntries(in: root).map(\.path)
    }

    /// Every marker under `root` with its object's URI, in the order of `markers(in:)`.
    ///
    /// The root's name is the store and each folder's the entity, so only file names are taken
    /// apart here: a reconcile lists every marker, and parsing each whole path again (twice, for
    /// the list and for the URI) was most of the time it took before indexing could start.
    static func markerEntries(in root: URL) -> [(path: String, uri: String)] {
        let fileManager = FileManager.default
        let store = root.lastPathComponent
        guard !store.isEmpty, store != "/", let entities = try? fileManager.contentsOfDirectory(atPath: root.path) else { return [] }
        var result: [(path: String, uri: String)] = []
        for entity in entities.sorted() where !entity.hasPrefix(".") {
            let folder = root.path + "/" + entity
            guard let files = try? fileManager.contentsOfDirectory(atPath: folder) else { continue }
            var keyed: [(key: Int64, path: String)] = []
            keyed.reserveCapacity(files.count)
            for file in files where !file.hasPrefix(".") {
                if let pk = Int64(IndexLayout.splitFileName(file).key), pk > 0 { keyed.append((pk, folder + "/" + file)) }
            }
            keyed.sort { $0.key < $1.key || ($0.key == $1.key && $0.path < $1.path) }
            for entry in keyed {
                result.append((entry.path, ManagedObjectID.uriString(storeIdentifier: store, entityName: entity, primaryKey: entry.key)))
            }
        }
        return result
    }

    /// What to index and remove so the index matches the markers of `roots` (store UUID → root).
    ///
    /// Documents of the stores in `roots` whose markers are gone are removed, and so are those of
    /// stores not in `registered` (every registered store; default: the stores of `roots`).
    /// Documents of other registered stores are left alone, so one root can be reconciled alone.
    public static func plan(index: SearchIndex, roots: [String: URL], registered: Set<String>? = nil) throws -> Plan {
        var indexed: [String: Double] = [:]
        for entry in try index.uniqueTerms(prefix: IndexLayout.uniquePrefix, valueSlot: IndexLayout.markerTimeSlot) {
            let uri = String(entry.term.dropFirst(IndexLayout.uniquePrefix.count))
            indexed[uri] = entry.value.map { SearchIndex.sortableUnserialise($0) } ?? 0
        }
        var plan = Plan()
        var seen: Set<String> = []
        for root in roots.values {
            for (marker, uri) in markerEntries(in: root) {
                guard let mtime = AtomicFileTime.modificationTime(marker) else { continue }
                seen.insert(uri)
                if let stored = indexed[uri], abs(stored - mtime) < 1e-6 {
                    plan.unchanged += 1
                } else {
                    plan.changed.append(marker)
                }
            }
        }
        let stores = Set(roots.keys)
        let known = registered ?? stores
        for uri in indexed.keys.sorted() where !seen.contains(uri) {
            guard let store = uri.dropFirst("x-coredata://".count).split(separator: "/").first.map(String.init) else { continue }
            if stores.contains(store) || !known.contains(store) { plan.removedURIs.append(uri) }
        }
        return plan
    }
}
