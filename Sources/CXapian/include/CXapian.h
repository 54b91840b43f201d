// A small C API over libxapian for LimelightSearch. Every C++ exception is caught inside the
// implementation and reported through cx_error; nothing here throws.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cx_code {
    CX_OK = 0,
    CX_ERR_LOCK = 1,       // another writer holds the database (DatabaseLockError)
    CX_ERR_MODIFIED = 2,   // the reader must reopen (DatabaseModifiedError)
    CX_ERR_QUERY = 3,      // the query string does not parse (QueryParserError)
    CX_ERR_OPENING = 4,    // missing or unreadable database (DatabaseOpeningError)
    CX_ERR_CORRUPT = 5,    // DatabaseCorruptError
    CX_ERR_OTHER = 6
} cx_code;

typedef struct cx_error {
    int code;
    char *message;  // malloc'd; release with cx_error_clear
} cx_error;

void cx_error_clear(cx_error *error);
void cx_free(void *pointer);

typedef struct cx_writer cx_writer;
typedef struct cx_reader cx_reader;
typedef struct cx_doc cx_doc;
typedef struct cx_built cx_built;

// Writable database, created when missing; retries a held lock for lock_timeout seconds.
cx_writer *cx_writer_open(const char *path, double lock_timeout, cx_error *error);
void cx_writer_close(cx_writer *writer);
// Commits and releases the write lock; later calls on the writer fail with an error.
int cx_writer_close_database(cx_writer *writer, cx_error *error);
// The stemming language of the documents written from now on: the writer records the stem of each
// word it has not met before in the synonym table, where searches find it ("none": no stems).
int cx_writer_set_language(cx_writer *writer, const char *language, cx_error *error);
// Lets go of the memory that remembers which words' stems the writer recorded (they are recorded
// again when next met).
void cx_writer_forget_stems(cx_writer *writer);
// Adds the built document, or replaces the one with its unique term.
int cx_writer_replace(cx_writer *writer, const cx_built *built, cx_error *error);
int cx_writer_delete(cx_writer *writer, const char *unique_term, cx_error *error);
int cx_writer_contains(cx_writer *writer, const char *term, cx_error *error);  // 1, 0, or -1 on error
int cx_writer_commit(cx_writer *writer, cx_error *error);
// Commits, merges the database at `path` (the writer's own) with the `count` databases in
// `shards` into a new one at `merged`, swaps it into `path` atomically (the replaced database is
// left at `merged`), and reopens the writer on it. Readers see the old database or the new one,
// never a mix.
int cx_writer_merge(cx_writer *writer, const char *path, const char *const *shards, int count, const char *merged,
                    cx_error *error);
// A transaction (Xapian's, flushed): nothing is committed until cx_writer_commit_transaction, not
// even by Xapian's automatic commit every XAPIAN_FLUSH_THRESHOLD changes.
int cx_writer_begin_transaction(cx_writer *writer, cx_error *error);
int cx_writer_commit_transaction(cx_writer *writer, cx_error *error);
int cx_writer_set_metadata(cx_writer *writer, const char *key, const char *value, cx_error *error);
// Returns a malloc'd string ("" when unset), or NULL on error.
char *cx_writer_get_metadata(cx_writer *writer, const char *key, cx_error *error);
unsigned cx_writer_doccount(cx_writer *writer, cx_error *error);
// How many documents have `term` (0 when none does, or on error).
unsigned cx_writer_termfreq(cx_writer *writer, const char *term, cx_error *error);

typedef void (*cx_term_callback)(void *context, const char *term, size_t term_length,
                                 const char *value, size_t value_length, int has_value);
// Calls back for every term starting with prefix, with value slot `slot` of its first document.
int cx_writer_terms(cx_writer *writer, const char *prefix, unsigned slot, cx_term_callback callback,
                    void *context, cx_error *error);

// A document being built: free text goes through a TermGenerator, its words unstemmed (the writer
// records their stems); `language` is checked, and an unknown one refused.
cx_doc *cx_doc_new(const char *language, cx_error *error);
void cx_doc_free(cx_doc *doc);
// Empties the document for reuse, keeping its TermGenerator and stemmer (made once, not per document).
void cx_doc_clear(cx_doc *doc);
void cx_doc_set_data(cx_doc *doc, const char *data, size_t length);
int cx_doc_add_boolean_term(cx_doc *doc, const char *term, cx_error *error);
int cx_doc_add_value(cx_doc *doc, unsigned slot, const char *value, size_t length, cx_error *error);
int cx_doc_index_text(cx_doc *doc, const char *text, const char *prefix, cx_error *error);
// Takes the document out of the builder, with its unique term, ready to write; the builder is
// left empty for the next. Building may happen on any thread, one builder per thread: the
// result is handed to the writer's thread whole.
cx_built *cx_doc_finish(cx_doc *doc, const char *unique_term, cx_error *error);
void cx_built_free(cx_built *built);

// Read-only database. Every read reopens once on DatabaseModifiedError and tries again.
cx_reader *cx_reader_open(const char *path, cx_error *error);
void cx_reader_close(cx_reader *reader);
int cx_reader_reopen(cx_reader *reader, cx_error *error);
unsigned cx_reader_doccount(cx_reader *reader, cx_error *error);
unsigned cx_reader_termfreq(cx_reader *reader, const char *term, cx_error *error);
char *cx_reader_get_metadata(cx_reader *reader, const char *key, cx_error *error);

typedef struct cx_query {
    const char *text;
    const char *language;        // "english", or "none"
    const char *const *field_names;     // free-text field prefixes: name → prefix
    const char *const *field_prefixes;
    int field_count;
    // Prefixes a word without a field searches (ORed), besides unprefixed terms: text is indexed
    // once, under its field's prefix, so a plain word looks in every field.
    const char *const *default_prefixes;
    int default_count;
    const char *const *boolean_names;   // boolean filters: name → prefix
    const char *const *boolean_prefixes;
    int boolean_count;
    int sort_slot;               // -1: relevance
    int sort_reverse;
    unsigned offset;
    unsigned limit;
    int snippet_slot;            // -1: no snippets
    unsigned snippet_length;
    // Exact terms the matches must have, without changing their weights: the terms of one group
    // are ORed, the groups ANDed. `filter_groups` gives each term's group, in ascending order.
    const char *const *filter_terms;
    const int *filter_groups;
    int filter_count;
    // Documents with this term never match, whatever the query (NULL: none are left out).
    const char *hidden_term;
} cx_query;

typedef void (*cx_hit_callback)(void *context, unsigned docid, unsigned rank, int percent,
                                const char *data, size_t data_length,
                                const char *snippet, size_t snippet_length);
// Runs a query; reopens once on DatabaseModifiedError. `estimated` gets the estimated total.
int cx_reader_search(cx_reader *reader, const cx_query *query, cx_hit_callback callback, void *context,
                     unsigned *estimated, cx_error *error);

// Xapian::sortable_serialise / unserialise; the buffer is malloc'd.
char *cx_sortable_serialise(double value, size_t *length);
double cx_sortable_unserialise(const char *value, size_t length);

#ifdef __cplusplus
}
#endif
