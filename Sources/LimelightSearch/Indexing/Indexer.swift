import Foundation
import LimelightData
import Logging

/// Turns markers into index documents: imports each record (through its registered importer
/// program, else the generic importer), writes the documents, and commits once per batch.
///
/// Used by the daemon for live changes and by `limelight index` for one-shot bulk indexing.
public final class Indexer {
    public let index: SearchIndex
    public let language: String
    private let generic: GenericImporter
    private var programs: [String: ImporterProcess] = [:]
    private let manifests: [String: ImporterManifest]
    private var fields: Set<String>
    private var slots: [String: UInt32]
    /// Fields or value slots first seen since the index last recorded them in its metadata.
    private var layoutChanged = false
    /// Generates the terms of imported records, on the thread that imports them.
    private let builder: DocumentBuilder
    private let logger = Logger(label: "limelight.indexer")
    /// Recent failures, marker → reason, for `limelight status`.
    public private(set) var failures: [String: String] = [:]

    public struct BatchReport: Sendable, Equatable {
        public var indexed = 0
        public var removed = 0
        public var failed = 0
        /// Objects kept out of the index by their application: their documents went, and the
        /// index remembers their markers so that a reconcile leaves them alone.
        public var keptOut = 0
    }

    /// Opens (or creates) the index. `registry` is the roots registry markers must lie in and
    /// `importerDirectories` the folders searched for importer manifests (defaults: the user's).
    public init(indexPath: URL, language: String = "english", lockTimeout: TimeInterval = 2, registry: URL? = nil,
                importerDirectories: [URL] = ImporterManifest.searchDirectories()) throws {
        try FileManager.default.createDirectory(at: indexPath.deletingLastPathComponent(), withIntermediateDirectories: true)
        index = try SearchIndex(path: indexPath.path, language: language, lockTimeout: lockTimeout)
        builder = try DocumentBuilder(language: language)
        self.language = language
        generic = GenericImporter(registry: registry)
        let discovered = ImporterManifest.discover(in: importerDirectories)
        manifests = discovered.byExtension
        for problem in discovered.problems { logger.warning("importer manifest: \(problem)") }
        // Searches stem their words the way the index was written unless told otherwise.
        let stored = try index.metadata(forKey: IndexLayout.languageKey)
        if let stored, stored != language {
            logger.warning("the index was written with stemming '\(stored)'; now writing with '\(language)' (reindex for consistent results)")
        }
        if stored != language {
            try index.setMetadata(language, forKey: IndexLayout.languageKey)
            try index.commit()
        }
        fields = Set(IndexLayout.fieldNames(inMetadata: try index.metadata(forKey: IndexLayout.fieldsKey)))
        let storedSlots = try index.metadata(forKey: IndexLayout.slotsKey) ?? ""
        slots = [:]
        for pair in storedSlots.split(separator: ",") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let slot = UInt32(parts[1]) { slots[String(parts[0])] = slot }
        }
    }

    deinit { for program in programs.values { program.stop() } }

    /// Imports one marker into a record, through its program or the generic importer.
    public func importRecord(markerPath: String) throws -> IndexRecord {
        let ext = IndexLayout.fileExtension(ofMarker: markerPath)
        if let manifest = manifests[ext] {
            let program = programs[ext] ?? ImporterProcess(manifest: manifest)
            programs[ext] = program
            let record = try program.importRecord(markerPath: markerPath)
            if let error = record.error { throw ExternalImporterError(importer: manifest.name, reason: error) }
            return record
        }
        return try generic.importRecord(markerPath: markerPath)
    }

    /// Markers imported per chunk: the generic importer reads a chunk's objects with a query per
    /// 500, and the writer works on one chunk while the next is read.
    static let importChunkSize = 1000

    /// One marker as imported: its modification time (nil when it is gone) and its document,
    /// built and ready to write.
    struct ImportedMarker {
        var marker: String
        var markerTime: Double?
        var outcome: Result<BuiltDocument, any Error>
        /// The document only remembers that the object is kept out of the index.
        var keptOut = false
    }

    /// Imports a chunk of markers (those with an importer program through it, one by one, the
    /// rest through the generic importer together) and builds their documents.
    private func importChunk(_ markers: [String]) -> [ImportedMarker] {
        let times = markers.map(AtomicFileTime.modificationTime)
        var outcomes = [Result<IndexRecord, any Error>?](repeating: nil, count: markers.count)
        var genericPositions: [Int] = []
        for (position, marker) in markers.enumerated() where times[position] != nil {
            if manifests[IndexLayout.fileExtension(ofMarker: marker)] != nil {
                outcomes[position] = Result { try importRecord(markerPath: marker) }
            } else {
                genericPositions.append(position)
            }
        }
        let imported = generic.importRecords(markerPaths: genericPositions.map { markers[$0] })
        for (position, outcome) in zip(genericPositions, imported) { outcomes[position] = outcome }
        return markers.indices.map { position in
            let marker = markers[position]
            guard let markerTime = times[position], let imported = outcomes[position] else {
                return ImportedMarker(marker: marker, markerTime: nil, outcome: .failure(ExternalRecordError(path: marker, reason: "the marker is gone")))
            }
            return ImportedMarker(marker: marker, markerTime: markerTime, outcome: Result {
                try builder.build(document(for: imported.get(), markerTime: markerTime))
            }, keptOut: (try? imported.get())?.excluded == true)
        }
    }

    /// Indexes `changed` markers and removes the documents of `removedURIs`, then commits once.
    /// `progress` is called after each marker with the number done so far.
    ///
    /// Records are imported and their documents built on a second thread while this one writes
    /// them to the index. A bulk run at least as large as the index writes two shards at once
    /// instead (see `applyInShards`), where a marker counts as done when a shard's writer has it.
    @discardableResult
    public func apply(changed: [String], removedURIs: [String], progress: ((Int) -> Void)? = nil) -> BatchReport {
        // Merging copies the whole index: worth it only when the batch is at least as large.
        if changed.count >= 2 * Self.importChunkSize, changed.count >= index.documentCount, ProcessInfo.processInfo.activeProcessorCount > 1,
           let report = applyInShards(changed: changed, removedURIs: removedURIs, progress: progress) {
            return report
        }
        var report = BatchReport()
        // One transaction per batch: however large, the batch is written to the index once.
        var inTransaction = true
        do {
            try index.beginTransaction()
        } catch {
            inTransaction = false
            logger.error("cannot start a transaction, committing as Xapian sees fit: \(error)")
        }
        report.removed = removeDocuments(of: removedURIs)
        let pipeline = ImportPipeline(markers: changed, chunkSize: Self.importChunkSize) { [unowned self] in importChunk($0) }
        var done = 0
        while let chunk = pipeline.next() {
            for item in chunk {
                done += 1
                Self.write(item, to: index, report: &report, failures: &failures, logger: logger)
                progress?(done)
            }
        }
        trimFailures()
        do {
            try writeBatchMetadata()
            if inTransaction { try index.commitTransaction() } else { try index.commit() }
        } catch {
            logger.error("commit failed: \(error)")
        }
        generic.closeStores()
        return report
    }

    /// Writes one imported marker's document, counting it in `report` and `failures`.
    static func write(_ item: ImportedMarker, to index: SearchIndex, report: inout BatchReport, failures: inout [String: String],
                      logger: Logger) {
        // A marker removed since it was listed is the removal's business, not a failure.
        guard item.markerTime != nil else { return }
        do {
            // A kept-out object's document is replaced by one that only remembers its marker.
            try index.replaceDocument(item.outcome.get())
            if item.keptOut { report.keptOut += 1 } else { report.indexed += 1 }
            failures[item.marker] = nil
        } catch {
            report.failed += 1
            failures[item.marker] = "\(error)"
            logger.error("cannot index \(item.marker): \(error)")
        }
    }

    /// A bulk run: the import thread builds documents as usual, two shard writers take chunks as
    /// they are ready, and the index merges the shards at the end and swaps the result in.
    /// Writing, most of indexing, then uses two cores where one database takes one writer. The
    /// index itself only loses, in one transaction, the documents the batch replaces or removes.
    /// Nil, having written nothing, when the shards cannot be made.
    private func applyInShards(changed: [String], removedURIs: [String], progress: ((Int) -> Void)?) -> BatchReport? {
        let work = index.path + ".bulk-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        defer { try? FileManager.default.removeItem(atPath: work) }
        var shards: [ShardWriter] = []
        // Two chunks waiting at most, as in `ImportPipeline`: enough that neither shard idles.
        let chunks = HandOffQueue<[ImportedMarker]>(capacity: 2)
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            for number in 0..<2 { shards.append(try ShardWriter(path: "\(work)/shard-\(number)", language: language, chunks: chunks)) }
            try index.beginTransaction()
        } catch {
            logger.warning("writing in one database: cannot make shards in \(work): \(error)")
            chunks.close()
            for shard in shards { try? shard.finish() }
            return nil
        }
        // Markers listed twice would be written to both shards and merged as two documents.
        var seen: Set<String> = []
        let markers = changed.filter { seen.insert($0).inserted }
        var report = BatchReport()
        report.removed = removeDocuments(of: removedURIs)
        let replacing = index.documentCount > 0
        let pipeline = ImportPipeline(markers: markers, chunkSize: Self.importChunkSize) { [unowned self] in importChunk($0) }
        var done = 0
        while let chunk = pipeline.next() {
            // A document the batch brings anew leaves the index now; its new version comes with
            // the merge. One that fails to import keeps its old version, as in a plain batch.
            if replacing {
                for item in chunk {
                    if case .success(let document) = item.outcome { try? index.deleteDocument(uniqueTerm: document.uniqueTerm) }
                }
            }
            chunks.put(chunk)
            for _ in chunk {
                done += 1
                progress?(done)
            }
        }
        generic.closeStores()
        chunks.close()
        // Every shard is finished, whatever happens to the others: each holds a thread.
        var finishing: (any Error)?
        for shard in shards {
            do { try shard.finish() } catch { finishing = finishing ?? error }
        }
        do {
            if let finishing { throw finishing }
            for shard in shards {
                report.indexed += shard.report.indexed
                report.failed += shard.report.failed
                report.keptOut += shard.report.keptOut
                failures.merge(shard.failures) { $1 }
            }
            trimFailures()
            try writeBatchMetadata()
            try index.commitTransaction()
            try index.merge(shards: shards.map(\.path), scratch: "\(work)/replaced")
        } catch {
            // The markers are what counts: the next reconcile finds the documents missing or
            // stale and indexes them again.
            logger.error("cannot merge the shards of \(markers.count) documents into \(index.path): \(error)")
            try? index.commitTransaction()
            report = BatchReport(indexed: 0, removed: report.removed, failed: markers.count)
        }
        return report
    }

    /// Removes the documents of objects that are gone; returns how many.
    private func removeDocuments(of uris: [String]) -> Int {
        var removed = 0
        for uri in uris {
            do {
                try index.deleteDocument(uniqueTerm: IndexLayout.uniquePrefix + uri)
                removed += 1
            } catch {
                logger.error("cannot remove \(uri): \(error)")
            }
        }
        return removed
    }

    /// Before a batch's commit: the fields and slots first seen in it, and the time.
    private func writeBatchMetadata() throws {
        // Written here rather than as documents are built: building happens on the import
        // thread, and the database is this thread's.
        if layoutChanged { try writeLayout() }
        try index.setMetadata(ISO8601Timestamp.string(from: Date()), forKey: IndexLayout.lastCommitKey)
    }

    private func trimFailures() {
        if failures.count > 200 { failures = Dictionary(uniqueKeysWithValues: failures.prefix(200).map { ($0.key, $0.value) }) }
    }

    func document(for record: IndexRecord, markerTime: Double) throws -> IndexDocument {
        guard let uri = record.uri ?? IndexLayout.objectURI(forMarker: record.marker) else {
            throw ExternalRecordError(path: record.marker, reason: "cannot tell the object URI")
        }
        let parts = IndexLayout.MarkerParts(record.marker)
        let entity = record.entity ?? parts.entity
        let store = record.store ?? parts.store
        let booleanTerms = [IndexLayout.booleanTerm(IndexLayout.entityPrefix, entity), IndexLayout.booleanTerm(IndexLayout.storePrefix, store)]
        if record.excluded == true {
            return Self.keptOutDocument(uri: uri, booleanTerms: booleanTerms, markerTime: markerTime)
        }
        var fieldTexts: [(prefix: String, text: String)] = []
        for (name, text) in (record.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            fieldTexts.append((IndexLayout.fieldPrefix(name), text))
            if fields.insert(name).inserted { layoutChanged = true }
        }
        if let text = record.text, !text.isEmpty { fieldTexts.append(("", text)) }
        var values: [UInt32: Data] = [IndexLayout.markerTimeSlot: SearchIndex.sortableSerialise(markerTime)]
        let displayName = record.displayName ?? parts.fileName
        values[IndexLayout.displayNameSlot] = Self.sortKey(displayName)
        for (name, value) in record.values ?? [:] {
            let slot = slots[name] ?? {
                let next = (slots.values.max() ?? IndexLayout.firstPropertySlot - 1) + 1
                slots[name] = next
                layoutChanged = true
                return next
            }()
            switch value {
            case .number(let number): values[slot] = SearchIndex.sortableSerialise(number)
            case .text(let text): values[slot] = Self.sortKey(text)
            }
        }
        values[IndexLayout.snippetSlot] = Data(fieldTexts.map(\.text).filter { !$0.isEmpty }.joined(separator: " — ").utf8)
        let data = IndexLayout.DocumentData(marker: record.marker, uri: uri, entity: entity, store: store, displayName: displayName)
        return IndexDocument(uniqueTerm: IndexLayout.uniquePrefix + uri, booleanTerms: booleanTerms,
                             fields: fieldTexts, values: values, data: data.json())
    }

    /// What the index keeps of an object kept out of it: no text, only its unique term, its
    /// entity and store (so that removing a store's documents takes it too), the excluded term
    /// and the marker's time. A reconcile then finds the marker up to date, where with no
    /// document at all it imported the object again at every start; a later save rewrites the
    /// marker, whose document then replaces this one.
    static func keptOutDocument(uri: String, booleanTerms: [String], markerTime: Double) -> IndexDocument {
        IndexDocument(uniqueTerm: IndexLayout.uniquePrefix + uri, booleanTerms: booleanTerms + [IndexLayout.excludedTerm],
                      values: [IndexLayout.markerTimeSlot: SearchIndex.sortableSerialise(markerTime)])
    }
}

extension Indexer {
    /// Records the fields and value slots documents use, for searches to know them by name.
    private func writeLayout() throws {
        try index.setMetadata(fields.sorted().joined(separator: ","), forKey: IndexLayout.fieldsKey)
        try index.setMetadata(slots.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ","), forKey: IndexLayout.slotsKey)
        layoutChanged = false
    }

    /// A text value as sorted: lower-cased, in UTF-8. The same bytes as `text.lowercased()` (which
    /// maps every scalar through its lowercase mapping), with ASCII mapped directly: the standard
    /// library's per-scalar path makes a string per scalar, and every indexed text goes through here.
    static func sortKey(_ text: String) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(truncatingIfNeeded: scalar.value)
                bytes.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            } else {
                bytes.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
            }
        }
        return Data(bytes)
    }
}

/// Modification times of marker files, in seconds since 1970 with sub-second precision.
enum AtomicFileTime {
    static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
