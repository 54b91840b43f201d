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
        if json {
            try printJSON(["store": store, "entities": counts, "writable": writable])
        } else {
            print("store: \(store)")
            print("objects: \(counts.values.reduce(0, +)) (every row reads as the model allows)")
            for (entity, count) in counts.sorted(by: { $0.key < $1.key }) { print("  \(entity): \(count)") }
        }
        guard writable else {
            throw CommandError("\(store): the store file cannot be written by this user (uid \(getuid())): "
                + "its application's saves would fail; it can only be read")
        }
    }

    /// Whether this user may write the store file (a save writes it, or its `-wal` beside it).
    static func isWritable(_ store: String) -> Bool {
        access(store, W_OK) == 0
    }
}
