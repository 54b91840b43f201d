// A thin, exception-free C API over libxapian, the only C++ in Limelight: errors, writers and the
// documents they are given. The read side is in CXapianReader.cpp, stems in StemTable.cpp.
#include "CXapian.h"
#include "Guarded.hpp"
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

using cx::copy_string;
using cx::guarded;
using cx::make_stemmer;

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

struct cx_writer {
    Xapian::WritableDatabase db;
    cx::StemTable stems;
};

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

void cx_writer_forget_stems(cx_writer *writer) { writer->stems.forget(); }

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

unsigned cx_writer_termfreq(cx_writer *writer, const char *term, cx_error *error) {
    unsigned count = 0;
    guarded(error, [&] { count = writer->db.get_termfreq(term); });
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
