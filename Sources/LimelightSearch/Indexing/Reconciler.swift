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
        let fileManager = FileManager.default
        guard let entities = try? fileManager.contentsOfDirectory(atPath: root.path) else { return [] }
        var result: [String] = []
        for entity in entities.sorted() where !entity.hasPrefix(".") {
            let folder = root.appendingPathComponent(entity).path
            guard let files = try? fileManager.contentsOfDirectory(atPath: folder) else { continue }
            var keyed: [(key: Int64, path: String)] = []
            for file in files where !file.hasPrefix(".") {
                let path = folder + "/" + file
                if IndexLayout.objectURI(forMarker: path) != nil, let key = Int64(IndexLayout.MarkerParts(path).key) {
                    keyed.append((key, path))
                }
            }
            result += keyed.sorted { $0.key < $1.key || ($0.key == $1.key && $0.path < $1.path) }.map(\.path)
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
            for marker in markers(in: root) {
                guard let uri = IndexLayout.objectURI(forMarker: marker), let mtime = AtomicFileTime.modificationTime(marker) else { continue }
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
