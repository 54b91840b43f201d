#include "StemTable.hpp"

namespace cx {

namespace {

bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }

// The free-text prefix `term` was written under, the longest that fits: a prefix is followed by
// the word, which TermGenerator lower-cases, so "XPNAMESsalsa" is not a word of "XPNAME". Terms
// that start with a capital and match none are filters (boolean terms), never words.
const std::string *prefix_of(const std::string &term, const std::vector<std::string> &prefixes) {
    const std::string *best = nullptr;
    for (const auto &prefix : prefixes) {
        if (best && prefix.size() <= best->size()) continue;
        if (term.size() <= prefix.size() || term.compare(0, prefix.size(), prefix) != 0) continue;
        if (is_ascii_upper(term[prefix.size()])) continue;
        best = &prefix;
    }
    return best;
}

}  // namespace

void StemTable::record(Xapian::WritableDatabase &db, const Xapian::Document &document,
                       const std::vector<std::string> &prefixes) {
    if (stemmer.is_none() || prefixes.empty()) return;
    if (written.size() > limit) forget();
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        const std::string *prefix = prefix_of(name, prefixes);
        if (!prefix || written.count(name)) continue;
        std::string stem = stemmer(name.substr(prefix->size()));
        if (stem.empty()) continue;
        db.add_synonym("Z" + *prefix + stem, name);
        // Only once it is in the database's pending changes: a failure leaves it to the next time.
        written.insert(name);
    }
}

Xapian::Query StemTable::expand(const Xapian::Database &db, const Xapian::Query &query) {
    Xapian::Query result = query;
    expand_into(db, query, result);
    return result;
}

bool StemTable::expand_into(const Xapian::Database &db, const Xapian::Query &query, Xapian::Query &result) {
    auto op = query.get_type();
    if (op == Xapian::Query::LEAF_TERM) {
        auto term = query.get_terms_begin();
        // Only a stemming parser makes terms that start with "Z": words are lower-cased, and
        // filter and field prefixes start with another capital.
        if (term == query.get_terms_end() || (*term).empty() || (*term)[0] != 'Z') return false;
        const std::string name = *term;
        std::vector<Xapian::Query> forms{query};
        for (auto form = db.synonyms_begin(name); form != db.synonyms_end(name); ++form) forms.emplace_back(*form);
        if (forms.size() == 1) return false;
        result = Xapian::Query(Xapian::Query::OP_SYNONYM, forms.begin(), forms.end());
        return true;
    }
    switch (op) {
    // The operators a parsed query joins words with, none of which carries a parameter, so each
    // is made again from its parts. Stemmed terms never stand in a phrase or NEAR (those take
    // the words as written), and any other operator is kept as it is.
    case Xapian::Query::OP_AND:
    case Xapian::Query::OP_OR:
    case Xapian::Query::OP_AND_NOT:
    case Xapian::Query::OP_XOR:
    case Xapian::Query::OP_AND_MAYBE:
    case Xapian::Query::OP_FILTER:
    case Xapian::Query::OP_SYNONYM:
    case Xapian::Query::OP_MAX: {
        std::vector<Xapian::Query> parts;
        bool changed = false;
        for (size_t index = 0; index < query.get_num_subqueries(); ++index) {
            Xapian::Query part = query.get_subquery(index);
            Xapian::Query expanded = part;
            if (expand_into(db, part, expanded)) changed = true;
            parts.push_back(std::move(expanded));
        }
        if (changed) result = Xapian::Query(op, parts.begin(), parts.end());
        return changed;
    }
    default:
        return false;
    }
}

}  // namespace cx
