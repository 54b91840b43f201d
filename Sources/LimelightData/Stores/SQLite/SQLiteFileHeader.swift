import Foundation

/// What the first 100 bytes of an SQLite database say about the file's length, read before
/// SQLite opens it: a store cut short (a copy that stopped, a full disk) is refused naming how
/// much is missing, before SQLite reports a malformed image on some later read, and before a
/// read-only opening makes a `-wal` and `-shm` beside a file that is no use.
enum SQLiteFileHeader {
    /// The length of SQLite's database header.
    static let length = 100

    /// Why a file whose header is `header` cannot be whole at `fileSize` bytes; nil when it can be.
    ///
    /// The page count (offset 28) is only trusted when its "version valid for" number (offset 92)
    /// matches the change counter (offset 24), as SQLite itself trusts it; files written by old
    /// versions of SQLite that do not keep it are left for SQLite to judge. The main file holds
    /// at least that many pages whether or not a `-wal` holds newer ones: checkpoints write
    /// pages and header together.
    static func shortfall(_ header: Data, fileSize: Int) -> String? {
        guard header.count >= length else {
            return "truncated: \(fileSize) bytes, shorter than the \(length)-byte header of an SQLite database"
        }
        let bytes = [UInt8](header.prefix(length))
        func number(at offset: Int, _ count: Int) -> Int { bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) } }
        let rawPageSize = number(at: 16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = number(at: 28, 4)
        guard pageSize >= 512, pageCount > 0, number(at: 92, 4) == number(at: 24, 4) else { return nil }
        let expected = pageSize * pageCount
        guard fileSize < expected else { return nil }
        return "truncated: its header says \(pageCount) pages of \(pageSize) bytes (\(expected) bytes), the file has \(fileSize)"
    }
}
