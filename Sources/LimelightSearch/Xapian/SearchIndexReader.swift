import CXapian
import Foundation

/// A query in Xapian's syntax (AND, OR, NOT, "phrases", wild*cards, field:word) with its options.
public struct SearchQuery: Sendable {
    public var text: String
    public var language = "english"
    /// Free-text fields: name used in queries → term prefix.
    public var fieldPrefixes: [String: String] = [:]
    /// Prefixes a word without a field searches, besides plain text: each property's text is
    /// indexed once, under its field's prefix. `nil`: the prefixes of `fieldPrefixes` and of
    /// every field the index records.
    public var defaultPrefixes: [String]?
    /// Exact filters: name used in queries → term prefix.
    public var booleanPrefixes: [String: String] = [:]
    /// Exact terms a match must have, whatever the text says (`IndexLayout.booleanTerm`): one of
    /// each group's terms, for every group. An empty group matches nothing.
    public var filters: [[String]] = []
    /// Value slot to sort by; `nil` sorts by relevance.
    public var sortSlot: UInt32?
    public var sortDescending = false
    public var offset = 0
    public var limit = 20
    /// Value slot holding the text snippets are cut from; `nil` for none.
    public var snippetSlot: UInt32?
    public var snippetLength = 160
    /// Documents with this term are never hits: those that only remember an object kept out of
    /// the index (`IndexLayout.excludedTerm`).
    public var hiddenTerm: String? = IndexLayout.excludedTerm

    public init(text: String) { self.text = text }
}

/// One match.
public struct SearchHit: Sendable {
    public var documentID: UInt32
    public var rank: Int
    public var percent: Int
    public var data: Data
    /// Matching words are marked `[like this]`.
    public var snippet: String
}

public struct SearchResults: Sendable {
    public var estimatedTotal: Int
    public var hits: [SearchHit]
}

/// A read-only view of the index; sees new commits after `reopen()` (done by itself when Xapian
/// says the database moved on).
///
/// Not `Sendable`: a Xapian database is for one thread at a time. Its owners keep it on one: a
/// `SearchService` is used by one search at a time (the process-wide pool hands each search a
/// service of its own, the daemon's search server serves one request at a time).
public final class SearchIndexReader {
    public let path: String
    private let handle: OpaquePointer

    public init(path: String) throws {
        self.path = path
        handle = try xapianObject(path: path, { cx_reader_open(path, $0) })
    }

    deinit { cx_reader_close(handle) }

    public func reopen() throws {
        try xapianCall(path: path, { cx_reader_reopen(handle, $0) }, failed: { $0 != 0 })
    }

    /// Every document in the database, those that only remember a kept-out object included.
    public var documentCount: Int {
        var error = cx_error(code: 0, message: nil)
        defer { cx_error_clear(&error) }
        return Int(cx_reader_doccount(handle, &error))
    }

    /// The documents searches can find: `documentCount` less those of objects kept out.
    public var searchableDocumentCount: Int {
        var error = cx_error(code: 0, message: nil)
        defer { cx_error_clear(&error) }
        return max(0, documentCount - Int(cx_reader_termfreq(handle, IndexLayout.excludedTerm, &error)))
    }

    public func metadata(forKey key: String) throws -> String? {
        let pointer = try xapianCall(path: path, { cx_reader_get_metadata(handle, key, $0) }, failed: { $0 == nil })
        defer { cx_free(pointer) }
        let value = pointer.map { String(cString: $0) } ?? ""
        return value.isEmpty ? nil : value
    }

    public func search(_ query: SearchQuery) throws -> SearchResults {
        final class Box { var hits: [SearchHit] = [] }
        let box = Box()
        let fields = query.fieldPrefixes.sorted { $0.key < $1.key }
        let booleans = query.booleanPrefixes.sorted { $0.key < $1.key }
        let defaults = try query.defaultPrefixes ?? Array(Set(query.fieldPrefixes.values).union(indexedFields().map(IndexLayout.fieldPrefix))).sorted()
        if query.filters.contains(where: \.isEmpty) { return SearchResults(estimatedTotal: 0, hits: []) }
        let filterTerms = query.filters.flatMap { $0 }
        let filterGroups = query.filters.enumerated().flatMap { group, terms in terms.map { _ in Int32(group) } }
        var estimated: UInt32 = 0
        try withCStringArrays([fields.map(\.key), fields.map(\.value), defaults, booleans.map(\.key), booleans.map(\.value), filterTerms]) { arrays in
            try (query.hiddenTerm ?? "").withCString { hidden in try query.text.withCString { text in
                try query.language.withCString { language in try filterGroups.withUnsafeBufferPointer { groups in
                    var cQuery = cx_query(
                        text: text, language: language,
                        field_names: arrays[0], field_prefixes: arrays[1], field_count: Int32(fields.count),
                        default_prefixes: arrays[2], default_count: Int32(defaults.count),
                        boolean_names: arrays[3], boolean_prefixes: arrays[4], boolean_count: Int32(booleans.count),
                        sort_slot: query.sortSlot.map { Int32($0) } ?? -1, sort_reverse: query.sortDescending ? 1 : 0,
                        offset: UInt32(clamping: query.offset), limit: UInt32(clamping: query.limit),
                        snippet_slot: query.snippetSlot.map { Int32($0) } ?? -1, snippet_length: UInt32(clamping: query.snippetLength),
                        filter_terms: arrays[5], filter_groups: groups.baseAddress, filter_count: Int32(filterTerms.count),
                        hidden_term: hidden)
                    try xapianCall(path: path, { error in
                        cx_reader_search(handle, &cQuery, { context, docid, rank, percent, data, dataLength, snippet, snippetLength in
                            guard let context else { return }
                            let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                            let bytes = data.map { Data(bytes: $0, count: dataLength) } ?? Data()
                            let text = snippet.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: snippetLength), as: UTF8.self) } ?? ""
                            box.hits.append(SearchHit(documentID: docid, rank: Int(rank), percent: Int(percent), data: bytes, snippet: text))
                        }, Unmanaged.passUnretained(box).toOpaque(), &estimated, error)
                    }, failed: { $0 != 0 })
                } }
            } }
        }
        return SearchResults(estimatedTotal: Int(estimated), hits: box.hits)
    }

    /// Every field the index's documents were written with (`IndexLayout.fieldsKey`).
    func indexedFields() throws -> [String] {
        IndexLayout.fieldNames(inMetadata: try metadata(forKey: IndexLayout.fieldsKey))
    }
}
