import Foundation
import Logging

/// What a rebuild changed.
public struct MarkerRebuildReport: Sendable, Equatable {
    public var created = 0
    public var rewritten = 0
    public var removed = 0
    public var unchanged = 0
    /// Markers (of any of the above) that keep the Core Spotlight delegate's description they
    /// carried: only the delegate can describe an object, so a rebuild keeps what it said.
    public var keptDescriptions = 0
    /// Whether a Core Spotlight delegate has described the store's objects (its records folder
    /// says so): markers made anew then lack a description until the application saves or
    /// describes their objects again.
    public var storeIsDescribed = false
}

extension PersistentStore {
    /// Regenerates every marker from the store: after the records folder was deleted, or for a
    /// store written without markers. Idempotent: a second run changes nothing.
    ///
    /// A marker that carries a Core Spotlight delegate's description keeps it (its values are
    /// read from the row again): the description is the application's, and only its delegate can
    /// make it anew. A marker made anew has none, and its object is indexed from its properties
    /// until it is saved with the delegate, unless a delegate indexes the store in this process:
    /// then it describes every object anew (`reindexAllObjects()`) once the markers are rebuilt.
    public func rebuildExternalRecords() throws -> MarkerRebuildReport {
        guard let store = self as? SQLiteStore, let configuration = store.externalRecords else {
            throw PersistenceError.invalidRequest("markers are not enabled for this store (set StoreOption.externalRecordExtension)")
        }
        guard !store.isReadOnly else { throw PersistenceError.store(path: store.path, reason: "the store is read-only") }
        let source = (options[StoreOption.modelSourcePath] as? String).map { URL(fileURLWithPath: $0) }
        try SupportFolderWriter.prepare(store: store, configuration: configuration, modelSource: source)
        guard let writer = store.markerJournal?.writer else { return try store.rebuildMarkers(configuration) }
        // Under the writer's lock, so no pass (of this or another process) interleaves; the pass
        // after it carries out what was saved meanwhile from the newest rows.
        let report = try writer.exclusively(store) { try store.rebuildMarkers(configuration) }
        try writer.flush(store)
        if let delegate = SpotlightEntry.describes(store) { try delegate.reindexAllObjects() }
        return report
    }
}

extension SQLiteStore {
    var markerJournal: MarkerJournal? { saveParticipants.lazy.compactMap { $0 as? MarkerJournal }.first }

    fileprivate func rebuildMarkers(_ configuration: ExternalRecordsConfiguration) throws -> MarkerRebuildReport {
        let store = self
        var report = MarkerRebuildReport()
        let root = configuration.recordsRoot(storeIdentifier: identifier)
        report.storeIsDescribed = FileManager.default.fileExists(atPath: root.appendingPathComponent(DescribedStores.flagPath).path)
        var expected: Set<String> = []
        for entity in model.entities where MarkerJournal.isMarked(entity) {
            let folder = root.appendingPathComponent(entity.name, isDirectory: true)
            try MarkerWriter.makeFolder(folder)
            var request = FetchSpecification(entityName: entity.name)
            request.includesSubentities = false
            for row in try store.fetchRows(StoreFetch(request: request, entity: entity)) {
                guard let pk = row.id.primaryKey else { continue }
                let url = configuration.markerURL(storeIdentifier: identifier, entityName: entity.name, primaryKey: pk)
                expected.insert(url.path)
                var content = MarkerContent(id: row.id, values: row.values)
                let existing = try? Data(contentsOf: url)
                if let existing, let old = try? MarkerContent.decode(existing, path: url.path), old.objectURI == content.objectURI,
                   old.spotlight != nil {
                    content.spotlight = old.spotlight
                    report.keptDescriptions += 1
                }
                let data = try content.encoded(format: configuration.fileFormat)
                if let existing {
                    if existing == data { report.unchanged += 1; continue }
                    report.rewritten += 1
                } else {
                    report.created += 1
                }
                try AtomicFile.write(data, to: url)
            }
        }
        for folderPath in configuration.entityFolderPaths(storeIdentifier: identifier) {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []
            where file.hasSuffix("." + configuration.fileExtension) {
                let path = folderPath + "/" + file
                if !expected.contains(path) {
                    try FileManager.default.removeItem(atPath: path)
                    report.removed += 1
                }
            }
        }
        return report
    }
}

extension PersistentStore {
    /// `flushExternalRecords()` for teardown, which cannot fail: the problem is logged and the
    /// work stays journaled for the next open.
    func drainExternalRecords() {
        do {
            try flushExternalRecords()
        } catch {
            Logger(label: "limelight.markers").error("markers: \(error); the work stays journaled for the next open")
        }
    }

    /// The marker settings, when markers are on for this store.
    public var externalRecordsConfiguration: ExternalRecordsConfiguration? { (self as? SQLiteStore)?.externalRecords }
}
