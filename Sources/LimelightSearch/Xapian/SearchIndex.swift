import CXapian
import Foundation

/// The writable index: one Xapian database, written by one process at a time (Xapian's lock).
///
/// Not `Sendable`: a Xapian database is for one thread at a time, and its owners keep it on
/// one: the indexer of the daemon or of `limelight index` on the thread that runs it, a shard
/// writer on the thread it starts. A lock around every call would only hide a second thread's
/// use, whose interleaved documents and commits no caller wants.
public final class SearchIndex {
    public let path: String
    public let language: String
    private let handle: OpaquePointer

    /// Builds the documents `replaceDocument(_: IndexDocument)` is given.
    private let builder: DocumentBuilder

    /// Opens or creates the database, waiting up to `lockTimeout` seconds for another writer.
    public init(path: String, language: String = "english", lockTimeout: TimeInterval = 2) throws {
        self.path = path
        self.language = language
        // An unknown stemming language is refused now rather than on every document.
        builder = try DocumentBuilder(language: language)
        let handle = try xapianObject(path: path, { cx_writer_open(path, lockTimeout, $0) })
        do {
            try xapianCall(path: path, { cx_writer_set_language(handle, language, $0) }, failed: { $0 != 0 })
        } catch {
            cx_writer_close(handle)
            throw error
        }
        self.handle = handle
    }

    deinit { cx_writer_close(handle) }

    /// Commits and releases the write lock now rather than when the value goes away, so another
    /// writer can start; anything done with this index afterwards fails with an error.
    public func close() throws {
        try xapianCall(path: path, { cx_writer_close_database(handle, $0) }, failed: { $0 != 0 })
    }

    /// Adds the document, or replaces the one with the same unique term.
    public func replaceDocument(_ document: IndexDocument) throws {
        try replaceDocument(builder.build(document))
    }

    /// Adds a document built elsewhere (`DocumentBuilder`), or replaces the one with its unique term.
    public func replaceDocument(_ document: BuiltDocument) throws {
        try xapianCall(path: path, { cx_writer_replace(handle, document.handle, $0) }, failed: { $0 != 0 })
    }

    /// Lets go of the memory in which the writer remembers the words whose stems it recorded, up
    /// to tens of megabytes after a large batch: each is recorded again when next met, which
    /// changes nothing in the index. An idle daemon calls this before giving its memory back.
    public func forgetRecordedStems() { cx_writer_forget_stems(handle) }

    public func deleteDocument(uniqueTerm: String) throws {
        try xapianCall(path: path, { cx_writer_delete(handle, uniqueTerm, $0) }, failed: { $0 != 0 })
    }

    public func contains(uniqueTerm: String) throws -> Bool {
        try xapianCall(path: path, { cx_writer_contains(handle, uniqueTerm, $0) }, failed: { $0 < 0 }) == 1
    }

    /// Makes every change since the last commit durable and visible to readers.
    public func commit() throws {
        try xapianCall(path: path, { cx_writer_commit(handle, $0) }, failed: { $0 != 0 })
    }

    /// Merges the databases at `shards` into this one: commits, writes the merge next to the
    /// index (at `scratch`, which must not exist), swaps it into place atomically and reopens on
    /// it. Readers see the index before or after, never a mix. What was replaced is left at
    /// `scratch` for the caller to remove.
    public func merge(shards: [String], scratch: String) throws {
        _ = try withCStringArrays([shards]) { sources in
            try xapianCall(path: path, { cx_writer_merge(handle, path, sources[0], Int32(shards.count), scratch, $0) }, failed: { $0 != 0 })
        }
    }

    /// Starts a transaction: nothing is committed until `commitTransaction()`, not even by
    /// Xapian's own commit every 10,000 changes. A bulk run in one transaction writes each block
    /// of the index once, where commits along the way would copy the blocks they touch again.
    public func beginTransaction() throws {
        try xapianCall(path: path, { cx_writer_begin_transaction(handle, $0) }, failed: { $0 != 0 })
    }

    /// Commits the transaction's changes, durably and visibly to readers.
    public func commitTransaction() throws {
        try xapianCall(path: path, { cx_writer_commit_transaction(handle, $0) }, failed: { $0 != 0 })
    }

    /// Every document in the database, those that only remember a kept-out object included.
    public var documentCount: Int {
        var error = cx_error(code: 0, message: nil)
        defer { cx_error_clear(&error) }
        return Int(cx_writer_doccount(handle, &error))
    }

    /// How many documents have `term` (0 on an error, as `documentCount` gives on one).
    public func documentCount(withTerm term: String) -> Int {
        var error = cx_error(code: 0, message: nil)
        defer { cx_error_clear(&error) }
        return Int(cx_writer_termfreq(handle, term, &error))
    }

    /// The documents searches can find: `documentCount` less those of objects kept out.
    public var searchableDocumentCount: Int { max(0, documentCount - keptOutCount) }

    /// Objects kept out of the index whose markers it remembers (`IndexLayout.excludedTerm`).
    public var keptOutCount: Int { documentCount(withTerm: IndexLayout.excludedTerm) }

    public func metadata(forKey key: String) throws -> String? {
        let pointer = try xapianCall(path: path, { cx_writer_get_metadata(handle, key, $0) }, failed: { $0 == nil })
        defer { cx_free(pointer) }
        let value = pointer.map { String(cString: $0) } ?? ""
        return value.isEmpty ? nil : value
    }

    public func setMetadata(_ value: String, forKey key: String) throws {
        try xapianCall(path: path, { cx_writer_set_metadata(handle, key, value, $0) }, failed: { $0 != 0 })
    }

    /// Every term starting with `prefix`, with value `valueSlot` of its document.
    public func uniqueTerms(prefix: String, valueSlot: UInt32) throws -> [(term: String, value: Data?)] {
        final class Box { var items: [(term: String, value: Data?)] = [] }
        let box = Box()
        try xapianCall(path: path, { error in
            cx_writer_terms(handle, prefix, valueSlot, { context, term, termLength, value, valueLength, hasValue in
                guard let context, let term else { return }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                let name = String(decoding: UnsafeRawBufferPointer(start: term, count: termLength), as: UTF8.self)
                let data = hasValue != 0 && value != nil ? Data(bytes: value!, count: valueLength) : nil
                box.items.append((name, data))
            }, Unmanaged.passUnretained(box).toOpaque(), error)
        }, failed: { $0 != 0 })
        return box.items
    }

    /// Encodes a number so that byte order sorts like numeric order (Xapian's sortable_serialise).
    public static func sortableSerialise(_ value: Double) -> Data {
        var length = 0
        guard let pointer = cx_sortable_serialise(value, &length) else { return Data() }
        defer { cx_free(pointer) }
        return Data(bytes: pointer, count: length)
    }

    public static func sortableUnserialise(_ data: Data) -> Double {
        data.withUnsafeBytes { cx_sortable_unserialise($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
    }
}
