import Foundation
import LimelightData

extension Indexer {
    /// Takes every document of the store with UUID `store` out of searches, in one transaction,
    /// and returns how many were searchable: each becomes a kept-out stand-in holding its
    /// marker's time (`keptOutDocument`), so that a reconcile does not bring it back while the
    /// marker is unchanged, and a later change to the object indexes it again. What a Core
    /// Spotlight delegate's `deleteSpotlightIndex()` asks limelightd for.
    public func removeDocuments(ofStore store: String) throws -> Int {
        guard !store.isEmpty, !store.contains("/") else {
            throw SearchIndexError(kind: .other, message: "'\(store)' is no store UUID", path: index.path)
        }
        let uriPrefix = "x-coredata://" + store + "/"
        let entries = try index.uniqueTerms(prefix: IndexLayout.uniquePrefix + uriPrefix, valueSlot: IndexLayout.markerTimeSlot)
        let keptOutBefore = index.keptOutCount
        try index.beginTransaction()
        do {
            let storeTerm = IndexLayout.booleanTerm(IndexLayout.storePrefix, store)
            for entry in entries {
                let uri = String(entry.term.dropFirst(IndexLayout.uniquePrefix.count))
                let entity = uri.dropFirst(uriPrefix.count).split(separator: "/").first.map(String.init) ?? ""
                let markerTime = entry.value.map(SearchIndex.sortableUnserialise) ?? 0
                try index.replaceDocument(Self.keptOutDocument(uri: uri, booleanTerms: [IndexLayout.booleanTerm(IndexLayout.entityPrefix, entity), storeTerm],
                                                               markerTime: markerTime))
            }
            try index.setMetadata(ISO8601Timestamp.string(from: Date()), forKey: IndexLayout.lastCommitKey)
            try index.commitTransaction()
        } catch {
            // What was done stays done: a stand-in is as good as the document it replaced, and
            // asking again finishes the job.
            try? index.commitTransaction()
            throw error
        }
        return index.keptOutCount - keptOutBefore
    }
}
