import Foundation
import LimelightData

/// One body of searchable records in the three shapes its indexers read: a Limelight store with
/// marker files (entity `Note`, `name` and `text` indexed), a tab-separated file for the raw Xapian
/// peer, and one text file per record for recoll.
struct SearchCorpus {
    let workspace: Workspace
    let count: Int
    /// Holds `home/` (Limelight's XDG folders), the store, its records, `corpus.tsv` and `files-N/`.
    let folder: URL
    /// The folders of files recoll indexes.
    let fileFolders: [URL]

    var home: URL { folder.appendingPathComponent("home") }
    var storeURL: URL { folder.appendingPathComponent("notes.sqlite") }
    var recordsURL: URL { folder.appendingPathComponent("records") }
    var registryURL: URL { home.appendingPathComponent("state/limelight/roots") }
    var tsvURL: URL { folder.appendingPathComponent("corpus.tsv") }
    var environment: [String: String] { workspace.environment(home: home) }

    static let model: ManagedObjectModel = {
        let name = AttributeDescription(name: "name", type: .string)
        name.isIndexedBySpotlight = true
        let text = AttributeDescription(name: "text", type: .string)
        text.isIndexedBySpotlight = true
        return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: [name, text])])
    }()

    var storeOptions: [String: any Sendable] {
        [StoreOption.externalRecordExtension: "note", StoreOption.externalRecordsDirectory: recordsURL.path,
         StoreOption.recordsRegistryDirectory: registryURL.path]
    }

    func context() throws -> ManagedObjectContext { try StoreBench.context(storeURL, model: Self.model, options: storeOptions) }

    /// Writes all three shapes for records `0 ..< count`.
    static func make(_ workspace: Workspace, name: String, count: Int, files: Bool) throws -> SearchCorpus {
        let folder = try workspace.folder(name)
        let empty = SearchCorpus(workspace: workspace, count: 0, folder: folder, fileFolders: [])
        try FileManager.default.createDirectory(at: empty.registryURL, withIntermediateDirectories: true)
        return try empty.grown(by: count, files: files)
    }

    /// The same corpus with `extra` more records, added to the same store (saved in chunks, as an
    /// importing app would), to the text file, and as files in a folder of their own. One store,
    /// not two: a second registered store would make this daemon's startup reconcile drop and
    /// re-index the first one's documents.
    func grown(by extra: Int, files: Bool) throws -> SearchCorpus {
        let records = count..<(count + extra)
        let context = try context()
        for record in records {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue(workspace.corpus.name(record), forKey: "name")
            note.setValue(workspace.corpus.text(record), forKey: "text")
            if record % 20_000 == 19_999 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
        // Markers are written after save() returns; the indexers below need them all.
        try context.persistentStoreCoordinator?.flushExternalRecords()
        context.reset()
        var tsv = Data()
        for record in records {
            tsv.append(Data("\(record + 1)\t\(workspace.corpus.name(record))\t\(workspace.corpus.text(record))\n".utf8))
        }
        if let handle = FileHandle(forWritingAtPath: tsvURL.path) {
            try handle.seekToEnd()
            try handle.write(contentsOf: tsv)
            try handle.close()
        } else {
            try tsv.write(to: tsvURL)
        }
        var folders = fileFolders
        if files {
            let filesURL = folder.appendingPathComponent("files-\(fileFolders.count)")
            for record in records {
                let shard = filesURL.appendingPathComponent("\(record / 1000)")
                if record == records.lowerBound || record % 1000 == 0 {
                    try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
                }
                let url = shard.appendingPathComponent("note-\(record + 1).txt")
                try Data("\(workspace.corpus.name(record))\n\(workspace.corpus.text(record))\n".utf8).write(to: url)
            }
            folders.append(filesURL)
        }
        return SearchCorpus(workspace: workspace, count: count + extra, folder: folder, fileFolders: folders)
    }

    /// `limelight index` into `index`; returns its wall time (process start included).
    func limelightIndex(into index: URL) throws -> Double {
        let outcome = try run(workspace.limelight, ["index", "--index", index.path], environment: environment)
        guard outcome.output.hasPrefix("indexed \(count),") else {
            throw BenchError("limelight index did not index all \(count) records: \(outcome.output.prefix(400))")
        }
        return outcome.seconds
    }

    /// The raw Xapian peer over the same text; returns its wall time (process start included).
    func xapianIndex(into index: URL) throws -> Double {
        let outcome = try run(workspace.xapianPeer, ["index", index.path, tsvURL.path])
        guard outcome.output.hasPrefix("\(count) ") else { throw BenchError("xapian-peer indexed \(outcome.output)") }
        return outcome.seconds
    }
}
