import CXapian
import Foundation

/// Turns an `IndexDocument` into Xapian's form: its free text broken into terms, written as they
/// are (the index's writer records each new word's stem, where searches find it).
///
/// Generating terms is about a third of what indexing a document costs, and needs nothing from
/// the database, so a bulk run builds documents on the thread that imports records while the
/// writer's thread only writes them. One builder per thread: it reuses one term generator for
/// all its documents.
public final class DocumentBuilder {
    private let scratch: OpaquePointer

    /// For documents in `language`; refuses a language Xapian has no stemmer for.
    public init(language: String) throws {
        scratch = try xapianObject(path: "stemming language '\(language)'", { cx_doc_new(language, $0) })
    }

    deinit { cx_doc_free(scratch) }

    public func build(_ document: IndexDocument) throws -> BuiltDocument {
        let doc = scratch
        let name = document.uniqueTerm
        do {
            document.data.withUnsafeBytes { cx_doc_set_data(doc, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
            for term in document.booleanTerms where !term.isEmpty {
                try xapianCall(path: name, { cx_doc_add_boolean_term(doc, term, $0) }, failed: { $0 != 0 })
            }
            for (slot, value) in document.values {
                try xapianCall(path: name, { error in
                    value.withUnsafeBytes { cx_doc_add_value(doc, slot, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, error) }
                }, failed: { $0 != 0 })
            }
            // Each text is indexed once, under its field's prefix: a word without a field searches
            // every field's prefix instead (`SearchQuery.defaultPrefixes`). A second, unprefixed
            // copy would double the postings, and writing postings is most of what indexing costs.
            for field in document.fields where !field.text.isEmpty {
                try xapianCall(path: name, { cx_doc_index_text(doc, field.text, field.prefix, $0) }, failed: { $0 != 0 })
            }
            // Finishing leaves the builder empty for the next document.
            return BuiltDocument(handle: try xapianObject(path: name, { cx_doc_finish(doc, name, $0) }), uniqueTerm: name)
        } catch {
            // Only a build that failed half way leaves terms behind.
            cx_doc_clear(doc)
            throw error
        }
    }
}

/// A document ready to write, found again and replaced by its unique term. It is owned whole:
/// made on one thread, it can be handed to the writer's.
public final class BuiltDocument: @unchecked Sendable {
    let handle: OpaquePointer
    public let uniqueTerm: String

    fileprivate init(handle: OpaquePointer, uniqueTerm: String) {
        self.handle = handle
        self.uniqueTerm = uniqueTerm
    }

    deinit { cx_built_free(handle) }
}
