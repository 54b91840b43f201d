import Foundation

extension SQLiteStore {
    /// Refuses files that are not SQLite databases before SQLite touches them.
    static func checkHeader(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw PersistenceError.store(path: path, reason: "a folder, not a store file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PersistenceError.store(path: path, reason: "cannot read the file")
        }
        defer { try? handle.close() }
        // The throwing read: the older `readData(ofLength:)` stops the process on a read error.
        let header: Data
        do {
            header = try handle.read(upToCount: SQLiteFileHeader.length) ?? Data()
        } catch {
            throw PersistenceError.store(path: path, reason: "cannot read the file: \(error.localizedDescription)")
        }
        if header.isEmpty { return }
        guard header.count >= 16, header.prefix(16).elementsEqual("SQLite format 3\0".utf8) else {
            throw PersistenceError.store(path: path, reason: "not an SQLite database (bad file header)")
        }
        // The size of the file just read, and the `-wal` beside the file SQLite opens, which is
        // the one a symbolic link leads to: SQLite follows links when it names its journal.
        // (`FileManager.attributesOfItem` describes a link itself, which refused a store opened
        // through one as cut short.)
        var status = stat()
        let size = fstat(handle.fileDescriptor, &status) == 0 ? Int(status.st_size) : header.count
        let walSize = stat((realPath(path) ?? path) + "-wal", &status) == 0 ? Int(status.st_size) : 0
        // A `-wal` with frames in it is SQLite's to replay (a checkpoint cut short by a crash
        // finishes from it), so only a file standing alone is judged by its header's length.
        if walSize == 0, let problem = SQLiteFileHeader.shortfall(header, fileSize: size) {
            throw PersistenceError.store(path: path, reason: problem)
        }
    }

    /// `path` with every symbolic link resolved; `nil` when it does not resolve.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
