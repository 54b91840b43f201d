// The C API's read side: opening an index, its metadata, and searching it.
#include "CXapian.h"
#include "Guarded.hpp"
#include "StemTable.hpp"

#include <xapian.h>

#include <string>
#include <vector>

using cx::copy_string;
using cx::guarded;
using cx::make_stemmer;

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

// The query's filter groups as one query: each group's terms ORed, the groups ANDed.
Xapian::Query filter_of(const cx_query *query) {
    std::vector<Xapian::Query> groups;
    std::vector<std::string> terms;
    for (int i = 0; i < query->filter_count; ++i) {
        terms.emplace_back(query->filter_terms[i] ? query->filter_terms[i] : "");
        bool last = i + 1 == query->filter_count || query->filter_groups[i + 1] != query->filter_groups[i];
        if (last) {
            groups.emplace_back(Xapian::Query::OP_OR, terms.begin(), terms.end());
            terms.clear();
        }
    }
    return Xapian::Query(Xapian::Query::OP_AND, groups.begin(), groups.end());
}

}  // namespace

extern "C" {

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

unsigned cx_reader_termfreq(cx_reader *reader, const char *term, cx_error *error) {
    unsigned count = 0;
    reader_guarded(reader, error, [&] { count = reader->db.get_termfreq(term); });
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
        if (query->filter_count > 0) parsed = Xapian::Query(Xapian::Query::OP_FILTER, parsed, filter_of(query));
        // Documents that only remember a marker (an object kept out of the index) are never hits.
        if (query->hidden_term && *query->hidden_term) {
            parsed = Xapian::Query(Xapian::Query::OP_AND_NOT, parsed, Xapian::Query(query->hidden_term));
        }
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

}  // extern "C"
