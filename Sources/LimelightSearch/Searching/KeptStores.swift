import Foundation
import LimelightData
#if canImport(Glibc)
import Glibc
#endif

/// The stores a long-running searcher (limelightd) keeps open between searches.
///
/// Each is kept with the identity of its files as they were when opened, and opened afresh
/// when they changed: a store file replaced (restored, or migrated into place) or the model copy
/// rewritten must not be read with what was loaded before. Rows are always current, since every
/// search reads through a context of its own.
final class KeptStores {
    private struct Entry {
        var coordinator: PersistentStoreCoordinator
        var storePath: String
        var identity: [FileIdentity]
    }

    private var entries: [String: Entry] = [:]

    func coordinator(for elements: ExternalRecordElements) throws -> PersistentStoreCoordinator {
        let identity = [FileIdentity(path: elements.storeURL.path), FileIdentity(path: elements.modelURL.path)].compactMap { $0 }
        if let entry = entries[elements.storeIdentifier], entry.storePath == elements.storeURL.path, entry.identity == identity,
           identity.count == 2 {
            return entry.coordinator
        }
        entries[elements.storeIdentifier] = nil
        let coordinator = try ExternalRecordReader.openStore(of: elements)
        entries[elements.storeIdentifier] = Entry(coordinator: coordinator, storePath: elements.storeURL.path, identity: identity)
        return coordinator
    }
}

/// Which file a path names and when it last changed: a file replaced by a rename gets a new
/// inode, and a folder's modification time moves when a file is renamed into it.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modifiedSeconds = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
