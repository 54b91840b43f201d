import Foundation
import LimelightData
#if canImport(Glibc)
import Glibc
#endif

/// The stores a long-running searcher (limelightd) keeps open between searches, each with one
/// context that is emptied after every search, so the next reads rows as they are then.
///
/// The context is kept, not made anew per search: a context has a dispatch queue, and releasing
/// one makes libdispatch start a worker thread, which an idle daemon must not have waking up.
/// Each store is kept with the identity of its files as they were when opened, and opened
/// afresh when they changed: a store file replaced (restored, or migrated into place) or the
/// model copy rewritten must not be read with what was loaded before. Writes to the store in
/// place are read through the kept connection as they are.
final class KeptStores {
    private struct Entry {
        var context: ManagedObjectContext
        var storePath: String
        var modelPath: String
        var identity: [FileIdentity]
    }

    private var entries: [String: Entry] = [:]

    /// The store's context, empty.
    func context(for elements: ExternalRecordElements) throws -> ManagedObjectContext {
        let identity = Self.identity(store: elements.storeURL.path, model: elements.modelURL.path)
        if let entry = entries[elements.storeIdentifier], entry.storePath == elements.storeURL.path, entry.identity == identity,
           identity.count == 2 {
            entry.context.reset()
            return entry.context
        }
        entries[elements.storeIdentifier] = nil
        let context = ExternalRecordReader(elements: elements, coordinator: try ExternalRecordReader.openStore(of: elements)).context
        entries[elements.storeIdentifier] = Entry(context: context, storePath: elements.storeURL.path, modelPath: elements.modelURL.path,
                                                  identity: identity)
        return context
    }

    /// Closes the stores whose files were deleted or replaced since they were opened: a deleted
    /// store's disk space is not given back while a connection holds the file open.
    func closeStale() {
        for (store, entry) in entries where Self.identity(store: entry.storePath, model: entry.modelPath) != entry.identity {
            entries[store] = nil
        }
    }

    /// Lets go of every object the contexts hold.
    func emptyContexts() {
        for entry in entries.values { entry.context.reset() }
    }

    /// The store file by inode alone, since every checkpoint of its journal changes its
    /// modification time; the model folder by its modification time too, since the model copy
    /// is renamed into it when rewritten.
    private static func identity(store: String, model: String) -> [FileIdentity] {
        [FileIdentity(path: store, changes: false), FileIdentity(path: model, changes: true)].compactMap { $0 }
    }
}

/// Which file a path names, and with `changes` when it last changed: a file replaced by a
/// rename gets a new inode, and a folder's modification time moves when a file is renamed into it.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds = 0
    var modifiedNanoseconds = 0

    init?(path: String, changes: Bool) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        if changes {
            modifiedSeconds = status.st_mtim.tv_sec
            modifiedNanoseconds = status.st_mtim.tv_nsec
        }
    }
}
