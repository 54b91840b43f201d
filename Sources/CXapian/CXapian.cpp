// The only C++ in Limelight: a thin, exception-free C API over libxapian.
#include "CXapian.h"
#include "StemTable.hpp"

#include <xapian.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>

struct cx_doc {
    Xapian::Document document;
    Xapian::TermGenerator generator;
    // The prefixes the document's free text went under, for the writer's stem table.
    std::vector<std::string> text_prefixes;
};

struct cx_built {
    Xapian::Document document;
    std::string unique_term;
    std::vector<std::string> text_prefixes;
};

namespace {

char *copy_string(const std::string &text) {
    char *result = static_cast<char *>(std::malloc(text.size() + 1));
    if (result) {
        std::memcpy(result, text.data(), text.size());
        result[text.size()] = '\0';
    }
    return result;
}

void set_error(cx_error *error, int code, const std::string &message) {
    if (!error) return;
    std::free(error->message);
    error->code = code;
    error->message = copy_string(message);
}

// Runs body, turning every exception into an error code and message.
template <typename Body> int guarded(cx_error *error, Body body) {
    try {
        body();
        return CX_OK;
    } catch (const Xapian::DatabaseLockError &e) {
        set_error(error, CX_ERR_LOCK, e.get_description());
        return CX_ERR_LOCK;
    } catch (const Xapian::DatabaseModifiedError &e) {
        set_error(error, CX_ERR_MODIFIED, e.get_description());
        return CX_ERR_MODIFIED;
    } catch (const Xapian::QueryParserError &e) {
        set_error(error, CX_ERR_QUERY, e.get_description());
        return CX_ERR_QUERY;
    } catch (const Xapian::DatabaseOpeningError &e) {
        set_error(error, CX_ERR_OPENING, e.get_description());
        return CX_ERR_OPENING;
    } catch (const Xapian::DatabaseCorruptError &e) {
        set_error(error, CX_ERR_CORRUPT, e.get_description());
        return CX_ERR_CORRUPT;
    } catch (const Xapian::Error &e) {
        set_error(error, CX_ERR_OTHER, e.get_description());
        return CX_ERR_OTHER;
    } catch (const std::exception &e) {
        set_error(error, CX_ERR_OTHER, e.what());
        return CX_ERR_OTHER;
    } catch (...) {
        set_error(error, CX_ERR_OTHER, "unknown C++ exception");
        return CX_ERR_OTHER;
    }
}

Xapian::Stem make_stemmer(const char *language) {
    if (!language || !*language || std::strcmp(language, "none") == 0) return Xapian::Stem();
    return Xapian::Stem(language);
}

}  // namespace

struct cx_writer {
    Xapian::WritableDatabase db;
    cx::StemTable stems;
};
struct cx_reader { Xapian::Database db; };

namespace {

// Runs a read; when a writer has moved the database on far enough that this reader's revision is
// gone (DatabaseModifiedError), reopens at the newest revision and runs it once more.
template <typename Body> int reader_guarded(cx_reader *reader, cx_error *error, Body body) {
    int rc = guarded(error, body);
    if (rc != CX_ERR_MODIFIED) return rc;
    cx_error_clear(error);
    rc = guarded(error, [&] { reader->db.reopen(); });
    return rc == CX_OK ? guarded(error, body) : rc;
}

}  // namespace

extern "C" {

void cx_error_clear(cx_error *error) {
    if (!error) return;
    std::free(error->message);
    error->message = nullptr;
    error->code = CX_OK;
}

void cx_free(void *pointer) { std::free(pointer); }

cx_writer *cx_writer_open(const char *path, double lock_timeout, cx_error *error) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(lock_timeout);
    while (true) {
        cx_writer *writer = nullptr;
        int rc = guarded(error, [&] { writer = new cx_writer{Xapian::WritableDatabase(path, Xapian::DB_CREATE_OR_OPEN)}; });
        if (rc == CX_OK) return writer;
        if (rc != CX_ERR_LOCK || std::chrono::steady_clock::now() >= deadline) return nullptr;
        // Only the last attempt's error counts: a writer that gets the lock on a retry succeeded.
        cx_error_clear(error);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

int cx_writer_merge(cx_writer *writer, const char *path, const char *const *shards, int count, const char *merged,
                    cx_error *error) {
    int rc = guarded(error, [&] {
        writer->db.commit();
        Xapian::Database sources(path);
        for (int i = 0; i < count; ++i) sources.add_database(Xapian::Database(shards[i]));
        // Document numbers are given afresh: each shard counts from 1.
        sources.compact(merged);
        sources.close();
        if (renameat2(AT_FDCWD, merged, AT_FDCWD, path, RENAME_EXCHANGE) != 0) {
            // A file system without the atomic exchange: two renames, and a moment in which a
            // reader opening the index finds none.
            if (errno != EINVAL && errno != ENOSYS) {
                throw Xapian::DatabaseError(std::string("cannot swap in the merged index: ") + std::strerror(errno));
            }
            std::string aside = std::string(merged) + ".old";
            if (std::rename(path, aside.c_str()) != 0) {
                throw Xapian::DatabaseError(std::string("cannot move the index aside: ") + std::strerror(errno));
            }
            if (std::rename(merged, path) != 0) {
                int failure = errno;
                std::rename(aside.c_str(), path);  // the old index back where it was
                throw Xapian::DatabaseError(std::string("cannot move the merged index into place: ") + std::strerror(failure));
            }
            std::rename(aside.c_str(), merged);
        }
        // The writer's lock was on the database now at `merged`; it takes the new one's. Another
        // writer that got in between makes this fail with a lock error, the documents in place.
        writer->db.close();
        writer->db = Xapian::WritableDatabase(path, Xapian::DB_OPEN);
    });
    // The merge commits first; when anything failed, stems recorded since the last commit may be lost.
    if (rc != CX_OK) writer->stems.forget();
    return rc;
}

int cx_writer_close_database(cx_writer *writer, cx_error *error) {
    return guarded(error, [&] { writer->db.close(); });
}

void cx_writer_close(cx_writer *writer) {
    if (!writer) return;
    cx_error ignored{0, nullptr};
    guarded(&ignored, [&] { writer->db.close(); });
    cx_error_clear(&ignored);
    delete writer;
}

int cx_writer_set_language(cx_writer *writer, const char *language, cx_error *error) {
    return guarded(error, [&] { writer->stems.set_stemmer(make_stemmer(language)); });
}

int cx_writer_replace(cx_writer *writer, const cx_built *built, cx_error *error) {
    return guarded(error, [&] {
        writer->db.replace_document(built->unique_term, built->document);
        writer->stems.record(writer->db, built->document, built->text_prefixes);
    });
}

int cx_writer_delete(cx_writer *writer, const char *unique_term, cx_error *error) {
    return guarded(error, [&] { writer->db.delete_document(unique_term); });
}

int cx_writer_contains(cx_writer *writer, const char *term, cx_error *error) {
    bool found = false;
    int rc = guarded(error, [&] { found = writer->db.term_exists(term); });
    return rc == CX_OK ? (found ? 1 : 0) : -1;
}

int cx_writer_commit(cx_writer *writer, cx_error *error) {
    int rc = guarded(error, [&] { writer->db.commit(); });
    if (rc != CX_OK) writer->stems.forget();
    return rc;
}

int cx_writer_begin_transaction(cx_writer *writer, cx_error *error) {
    return guarded(error, [&] { writer->db.begin_transaction(); });
}

int cx_writer_commit_transaction(cx_writer *writer, cx_error *error) {
    int rc = guarded(error, [&] { writer->db.commit_transaction(); });
    if (rc != CX_OK) writer->stems.forget();
    return rc;
}

int cx_writer_set_metadata(cx_writer *writer, const char *key, const char *value, cx_error *error) {
    return guarded(error, [&] { writer->db.set_metadata(key, value); });
}

char *cx_writer_get_metadata(cx_writer *writer, const char *key, cx_error *error) {
    std::string value;
    if (guarded(error, [&] { value = writer->db.get_metadata(key); }) != CX_OK) return nullptr;
    return copy_string(value);
}

unsigned cx_writer_doccount(cx_writer *writer, cx_error *error) {
    unsigned count = 0;
    guarded(error, [&] { count = writer->db.get_doccount(); });
    return count;
}

int cx_writer_terms(cx_writer *writer, const char *prefix, unsigned slot, cx_term_callback callback, void *context,
                    cx_error *error) {
    return guarded(error, [&] {
        for (auto term = writer->db.allterms_begin(prefix); term != writer->db.allterms_end(prefix); ++term) {
            std::string name = *term;
            auto posting = writer->db.postlist_begin(name);
            if (posting == writer->db.postlist_end(name)) continue;
            std::string value = writer->db.get_document(*posting).get_value(slot);
            callback(context, name.data(), name.size(), value.data(), value.size(), value.empty() ? 0 : 1);
        }
    });
}

cx_doc *cx_doc_new(const char *language, cx_error *error) {
    cx_doc *doc = nullptr;
    guarded(error, [&] {
        // Words are written unstemmed (StemTable); the language is checked here all the same, so
        // an unknown one is refused before any document is built.
        make_stemmer(language);
        doc = new cx_doc();
        doc->generator.set_stemming_strategy(Xapian::TermGenerator::STEM_NONE);
        doc->generator.set_document(doc->document);
    });
    return doc;
}

void cx_doc_free(cx_doc *doc) { delete doc; }

void cx_doc_clear(cx_doc *doc) {
    cx_error ignored{0, nullptr};
    guarded(&ignored, [&] {
        doc->document = Xapian::Document();
        doc->generator.set_document(doc->document);
        doc->text_prefixes.clear();
    });
    cx_error_clear(&ignored);
}

void cx_doc_set_data(cx_doc *doc, const char *data, size_t length) {
    cx_error ignored{0, nullptr};
    guarded(&ignored, [&] { doc->document.set_data(std::string(data, length)); });
    cx_error_clear(&ignored);
}

int cx_doc_add_boolean_term(cx_doc *doc, const char *term, cx_error *error) {
    return guarded(error, [&] { doc->document.add_boolean_term(term); });
}

int cx_doc_add_value(cx_doc *doc, unsigned slot, const char *value, size_t length, cx_error *error) {
    return guarded(error, [&] { doc->document.add_value(slot, std::string(value, length)); });
}

cx_built *cx_doc_finish(cx_doc *doc, const char *unique_term, cx_error *error) {
    cx_built *built = nullptr;
    guarded(error, [&] {
        doc->document.add_boolean_term(unique_term);
        std::unique_ptr<cx_built> result(new cx_built{doc->document, unique_term, std::move(doc->text_prefixes)});
        doc->text_prefixes.clear();
        // Xapian's documents share their contents by a count that is not atomic: the builder lets
        // go of this one now, so the thread that writes it holds the only reference.
        doc->document = Xapian::Document();
        doc->generator.set_document(doc->document);
        built = result.release();
    });
    return built;
}

void cx_built_free(cx_built *built) { delete built; }

int cx_doc_index_text(cx_doc *doc, const char *text, const char *prefix, cx_error *error) {
    return guarded(error, [&] {
        std::string field = prefix ? prefix : "";
        if (field.empty()) {
            doc->generator.index_text(text);
        } else {
            doc->generator.index_text(text, 1, field);
        }
        auto &known = doc->text_prefixes;
        if (std::find(known.begin(), known.end(), field) == known.end()) known.push_back(std::move(field));
        doc->generator.increase_termpos();
    });
}

cx_reader *cx_reader_open(const char *path, cx_error *error) {
    cx_reader *reader = nullptr;
    guarded(error, [&] { reader = new cx_reader{Xapian::Database(path)}; });
    return reader;
}

void cx_reader_close(cx_reader *reader) { delete reader; }

int cx_reader_reopen(cx_reader *reader, cx_error *error) {
    return guarded(error, [&] { reader->db.reopen(); });
}

unsigned cx_reader_doccount(cx_reader *reader, cx_error *error) {
    unsigned count = 0;
    reader_guarded(reader, error, [&] { count = reader->db.get_doccount(); });
    return count;
}

char *cx_reader_get_metadata(cx_reader *reader, const char *key, cx_error *error) {
    std::string value;
    if (reader_guarded(reader, error, [&] { value = reader->db.get_metadata(key); }) != CX_OK) return nullptr;
    return copy_string(value);
}

int cx_reader_search(cx_reader *reader, const cx_query *query, cx_hit_callback callback, void *context,
                     unsigned *estimated, cx_error *error) {
    auto run = [&] {
        Xapian::QueryParser parser;
        Xapian::Stem stemmer = make_stemmer(query->language);
        parser.set_database(reader->db);
        parser.set_stemmer(stemmer);
        parser.set_stemming_strategy(stemmer.is_none() ? Xapian::QueryParser::STEM_NONE : Xapian::QueryParser::STEM_SOME);
        parser.set_default_op(Xapian::Query::OP_AND);
        for (int i = 0; i < query->field_count; ++i) parser.add_prefix(query->field_names[i], query->field_prefixes[i]);
        // Unprefixed terms stay in the query: an importer's plain text and indexes written before
        // fields were indexed once have them, and snippets mark the query's unprefixed words.
        parser.add_prefix("", "");
        for (int i = 0; i < query->default_count; ++i) {
            const char *prefix = query->default_prefixes[i];
            if (prefix && *prefix) parser.add_prefix("", prefix);
        }
        for (int i = 0; i < query->boolean_count; ++i) parser.add_boolean_prefix(query->boolean_names[i], query->boolean_prefixes[i]);
        unsigned flags = Xapian::QueryParser::FLAG_BOOLEAN | Xapian::QueryParser::FLAG_PHRASE |
                         Xapian::QueryParser::FLAG_LOVEHATE | Xapian::QueryParser::FLAG_WILDCARD |
                         Xapian::QueryParser::FLAG_BOOLEAN_ANY_CASE | Xapian::QueryParser::FLAG_PURE_NOT;
        std::string text = query->text ? query->text : "";
        Xapian::Query parsed = text.empty() ? Xapian::Query::MatchAll : parser.parse_query(text, flags);
        // A stemmed word reaches the words that have its stem through the stem table.
        if (!stemmer.is_none()) parsed = cx::StemTable::expand(reader->db, parsed);
        Xapian::Enquire enquire(reader->db);
        enquire.set_query(parsed);
        if (query->sort_slot >= 0) {
            enquire.set_sort_by_value_then_relevance(static_cast<Xapian::valueno>(query->sort_slot), query->sort_reverse != 0);
        }
        // With no hits asked for, count exactly rather than estimate (used by search --count).
        Xapian::doccount check = query->limit == 0 ? reader->db.get_doccount() : 0;
        Xapian::MSet matches = enquire.get_mset(query->offset, query->limit, check);
        if (estimated) *estimated = matches.get_matches_estimated();
        for (auto hit = matches.begin(); hit != matches.end(); ++hit) {
            Xapian::Document document = hit.get_document();
            std::string data = document.get_data();
            std::string snippet;
            if (query->snippet_slot >= 0) {
                std::string source = document.get_value(static_cast<Xapian::valueno>(query->snippet_slot));
                // No SNIPPET_BACKGROUND_MODEL: it looks up the frequency of every word of every
                // hit's text in the index (hundreds of B-tree reads a page), only to rank the
                // words that are not in the query; the window is chosen by the query's words.
                snippet = matches.snippet(source, query->snippet_length, stemmer, Xapian::MSet::SNIPPET_EXHAUSTIVE,
                                          "[", "]", "…");
            }
            callback(context, *hit, hit.get_rank(), hit.get_percent(), data.data(), data.size(), snippet.data(), snippet.size());
        }
    };
    return reader_guarded(reader, error, run);
}

char *cx_sortable_serialise(double value, size_t *length) {
    std::string text;
    try {
        text = Xapian::sortable_serialise(value);
    } catch (...) {
        text.clear();
    }
    if (length) *length = text.size();
    return copy_string(text);
}

double cx_sortable_unserialise(const char *value, size_t length) {
    try {
        return Xapian::sortable_unserialise(std::string(value, length));
    } catch (...) {
        return 0;
    }
}

}  // extern "C"
