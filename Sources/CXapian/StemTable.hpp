// Stems looked up at search time: words go into the index as they are, and the database's synonym
// table leads from each stem to the words that have it.
#pragma once
#include <xapian.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace cx {

// Writing a stemmed copy of every word (TermGenerator's STEM_SOME) nearly doubles what indexing
// costs: the Snowball stemmer runs on every word of every document, and each document gets a
// second set of postings. Instead each distinct word is stemmed once, when a writer first meets
// it, and recorded as a synonym of its stem's term, the term a stemming QueryParser makes
// ("Z" + prefix + stem); a search puts those words in place of that term (`expand`). This is how
// recoll stems too. Indexes that still hold stemmed terms keep working: the stem's own term stays
// in the query.
class StemTable {
public:
    // No stemmer (language "none"): nothing is recorded, and searches do not stem.
    void set_stemmer(const Xapian::Stem &stemmer) { this->stemmer = stemmer; written.clear(); }

    // Records the stems of the words of `document` indexed under `prefixes` (the free-text
    // prefixes its text went under; "" for unprefixed text) that this writer has not recorded yet.
    void record(Xapian::WritableDatabase &db, const Xapian::Document &document, const std::vector<std::string> &prefixes);

    // Lets go of the words recorded so far (and the memory they take), so that each is recorded
    // again when next met, which changes nothing in the database. After a commit that failed,
    // since what was recorded after the last good one may be lost; and when an idle daemon gives
    // its memory back.
    void forget() { std::unordered_set<std::string>().swap(written); }

    // `query` (as a stemming QueryParser made it) with each stemmed term replaced by a synonym
    // group of that term and the words the table records for it, so each field's words weigh as
    // its stemmed term did. (QueryParser's FLAG_AUTO_SYNONYMS would do the look-up, but it folds
    // the forms of every default prefix into one group, and a match in a short field such as a
    // name would no longer outrank one in a long text.)
    static Xapian::Query expand(const Xapian::Database &db, const Xapian::Query &query);

private:
    // Sets `result` and returns true when `query` has a stemmed term with recorded words.
    static bool expand_into(const Xapian::Database &db, const Xapian::Query &query, Xapian::Query &result);

    Xapian::Stem stemmer;
    // Terms whose stem is recorded in the database or pending in this writer's changes, about
    // 100 bytes each: cleared past `limit` (some 50 MB), which only means recording words again.
    std::unordered_set<std::string> written;
    static constexpr size_t limit = 500000;
};

}  // namespace cx
