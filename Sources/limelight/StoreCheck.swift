import Foundation
import LimelightData

/// `limelight status STORE`: whether a store opens, whether every row reads as its model allows,
/// and whether the user running the command could save to it; read-only, so it changes nothing.
///
/// Each problem is one line naming the file and what is wrong, with exit status 1: a file that
/// is no SQLite database or is cut short, a row holding a value its model does not allow (its
/// table, entity, `Z_PK` and column), a store file this user cannot write (its application's
/// saves would fail, though reading works).
enum StoreCheck {
    /// Objects read at a time: the context is emptied between pages, so a large store is
    /// checked in the memory of one page.
    static let pageSize = 1_000

    static func run(store: String, model: String?, json: Bool) throws {
        let opened = try StoreOpener.open(store: store, model: model, readOnly: true)
        var counts: [String: Int] = [:]
        try opened.context.performAndWait {
            for entity in opened.model.entities where !entity.isAbstract {
                var offset = 0
                while true {
                    let request = FetchRequest<ManagedObject>(entityName: entity.name)
                    request.includesSubentities = false
                    request.fetchLimit = pageSize
                    request.fetchOffset = offset
                    // Every value of every row is decoded, which is where a value the model
                    // does not allow is found.
                    let page = try opened.context.fetch(request)
                    opened.context.reset()
                    offset += page.count
                    if page.count < pageSize { break }
                }
                counts[entity.name] = offset
            }
        }
        let writable = Self.isWritable(store)
        let mirroring = try CloudKitMirroring.inspect(storeAt: URL(fileURLWithPath: store))
        if json {
            var object: [String: Any] = ["store": store, "entities": counts, "writable": writable]
            if let mirroring {
                object["cloudKit"] = ["tables": mirroring.tables, "trackedObjects": mirroring.trackedObjects,
                                      "pendingUploads": mirroring.pendingUploads, "pendingDeletes": mirroring.pendingDeletes, "syncs": false]
            }
            try printJSON(object)
        } else {
            print("store: \(store)")
            print("objects: \(counts.values.reduce(0, +)) (every row reads as the model allows)")
            for (entity, count) in counts.sorted(by: { $0.key < $1.key }) { print("  \(entity): \(count)") }
            if let mirroring { print(Self.describe(mirroring)) }
        }
        guard writable else {
            throw CommandError("\(store): the store file cannot be written by this user (uid \(getuid())): "
                + "its application's saves would fail; it can only be read")
        }
    }

    /// What a mirrored store's user should know: the mirroring delegate's state, and that this
    /// framework keeps it and writes the history the delegate exports from, but does not sync.
    static func describe(_ mirroring: CloudKitMirroring) -> String {
        """
        CloudKit: mirrored by NSPersistentCloudKitContainer (\(mirroring.tables.count) mirroring tables; \(mirroring.trackedObjects) objects tracked, \
        \(mirroring.pendingUploads) waiting to upload, \(mirroring.pendingDeletes) deletions waiting to send)
          Limelight does not sync: saves here leave the mirroring tables as they are and record persistent history, \
        which the application exports to iCloud the next time it runs on a device signed in to iCloud.
        """
    }

    /// Whether this user may write the store file (a save writes it, or its `-wal` beside it).
    static func isWritable(_ store: String) -> Bool {
        access(store, W_OK) == 0
    }
}
