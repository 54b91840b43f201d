// The raw Xapian peer of the benchmarks, two modes:
//
//   xapian-peer index <db> <corpus.tsv>
//     Indexes every line `id<TAB>name<TAB>text` the way a Xapian program would that offers what
//     Limelight offers, so both write the same documents: a field per property (XPNAME, XPTEXT),
//     each text once (a plain word searches both prefixes: `quest -p :XPNAME -p :XPTEXT`),
//     stemming as Limelight does it (words written unstemmed, each distinct word's stem recorded
//     once in the synonym table, where `quest -f default,auto_synonyms` finds it), a unique `Q` term (the object URI) used with
//     replace_document, entity and store filter terms, sortable values (modification time,
//     display name, each property, lower-cased) and the snippet text, and document data naming
//     the record — all in one transaction. Prints the number of documents and the seconds taken.
//
//   xapian-peer watch <db>
//     Reads terms from stdin, one per line, and prints `<term> <CLOCK_MONOTONIC ns>` as soon as each
//     term is in the database (reopened every millisecond while terms are pending). The database may
//     not exist yet. Used to tell when a save became searchable, in Limelight's index and in recoll's.
#include <xapian.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace {

long long monotonic_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int index_corpus(const std::string &db_path, const std::string &corpus_path) {
    std::ifstream corpus(corpus_path);
    if (!corpus) {
        std::cerr << "xapian-peer: cannot read " << corpus_path << "\n";
        return 1;
    }
    auto start = std::chrono::steady_clock::now();
    Xapian::WritableDatabase db(db_path, Xapian::DB_CREATE_OR_OVERWRITE);
    Xapian::TermGenerator generator;
    generator.set_stemming_strategy(Xapian::TermGenerator::STEM_NONE);
    Xapian::Stem stemmer("english");
    std::unordered_set<std::string> stemmed;
    // A store UUID and records folder as long as Limelight's (the text of terms and data is
    // what costs, not what it says).
    const std::string store = "5EBAEA45-0A4B-43C1-894D-603D84A82BD0";
    const std::string records = corpus_path.substr(0, corpus_path.rfind('/') + 1) + "records/" + store;
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    db.begin_transaction();
    std::string line;
    long count = 0;
    while (std::getline(corpus, line)) {
        auto first = line.find('\t');
        auto second = first == std::string::npos ? first : line.find('\t', first + 1);
        if (second == std::string::npos) continue;
        std::string id = line.substr(0, first), name = line.substr(first + 1, second - first - 1), text = line.substr(second + 1);
        Xapian::Document document;
        generator.set_document(document);
        generator.index_text(name, 1, "XPNAME");
        generator.increase_termpos();
        generator.index_text(text, 1, "XPTEXT");
        generator.increase_termpos();
        // What Limelight's documents carry besides the text, with names of the same shape.
        std::string uri = "x-coredata://" + store + "/Note/p" + id;
        std::string unique = "Q" + uri;
        document.add_boolean_term(unique);
        document.add_boolean_term("XE:Note");
        document.add_boolean_term("XS:" + store);
        document.add_value(0, Xapian::sortable_serialise(now));
        document.add_value(1, Xapian::Unicode::tolower(name));
        document.add_value(2, name + " \u2014 " + text);
        document.add_value(10, Xapian::Unicode::tolower(name));
        document.add_value(11, Xapian::Unicode::tolower(text));
        document.set_data("{\"marker\":\"" + records + "/Note/" + id + ".note\",\"uri\":\"" + uri +
                          "\",\"entity\":\"Note\",\"store\":\"" + store + "\",\"displayName\":\"" + name + "\"}");
        db.replace_document(unique, document);
        for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
            const std::string &name = *term;
            for (const char *prefix : {"XPNAME", "XPTEXT"}) {
                size_t length = std::strlen(prefix);
                if (name.size() <= length || name.compare(0, length, prefix) != 0 || (name[length] >= 'A' && name[length] <= 'Z')) continue;
                if (stemmed.insert(name).second) db.add_synonym("Z" + std::string(prefix) + stemmer(name.substr(length)), name);
                break;
            }
        }
        ++count;
    }
    db.commit_transaction();
    db.close();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%ld %.6f\n", count, seconds);
    return 0;
}

int watch(const std::string &db_path) {
    std::mutex lock;
    std::set<std::string> pending;
    bool input_open = true;
    std::thread reader([&] {
        std::string term;
        while (std::getline(std::cin, term)) {
            std::lock_guard<std::mutex> guard(lock);
            pending.insert(term);
        }
        std::lock_guard<std::mutex> guard(lock);
        input_open = false;
    });
    Xapian::Database db;
    bool opened = false;
    while (true) {
        std::vector<std::string> terms;
        {
            std::lock_guard<std::mutex> guard(lock);
            if (pending.empty() && !input_open) break;
            terms.assign(pending.begin(), pending.end());
        }
        if (!terms.empty()) {
            try {
                if (opened) {
                    db.reopen();
                } else {
                    db = Xapian::Database(db_path);
                    opened = true;
                }
                for (const auto &term : terms) {
                    if (db.term_exists(term)) {
                        std::printf("%s %lld\n", term.c_str(), monotonic_ns());
                        std::fflush(stdout);
                        std::lock_guard<std::mutex> guard(lock);
                        pending.erase(term);
                    }
                }
            } catch (const Xapian::DatabaseOpeningError &) {
                opened = false;  // not created yet, or replaced: open again on the next round
            } catch (const Xapian::DatabaseModifiedError &) {
                opened = false;
            } catch (const Xapian::Error &error) {
                std::cerr << "xapian-peer: " << error.get_description() << "\n";
                opened = false;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    reader.join();
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 3 && args[0] == "index") return index_corpus(args[1], args[2]);
        if (args.size() == 2 && args[0] == "watch") return watch(args[1]);
    } catch (const Xapian::Error &error) {
        std::cerr << "xapian-peer: " << error.get_description() << "\n";
        return 1;
    }
    std::cerr << "usage: xapian-peer index <db> <corpus.tsv> | xapian-peer watch <db>\n";
    return 2;
}
