// What every function of the C API shares: exceptions turned into error codes and messages,
// strings handed to the caller, and the stemmer a language names.
#pragma once
#include "CXapian.h"

#include <xapian.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace cx {

inline char *copy_string(const std::string &text) {
    char *result = static_cast<char *>(std::malloc(text.size() + 1));
    if (result) {
        std::memcpy(result, text.data(), text.size());
        result[text.size()] = '\0';
    }
    return result;
}

// Fills in `error` (when given) and returns `code`, so a handler says both in one line.
inline int set_error(cx_error *error, int code, const std::string &message) {
    if (!error) return code;
    std::free(error->message);
    error->code = code;
    error->message = copy_string(message);
    return code;
}

// Runs body, turning every exception into an error code and message.
template <typename Body> int guarded(cx_error *error, Body body) {
    try {
        body();
        return CX_OK;
    } catch (const Xapian::DatabaseLockError &e) {
        return set_error(error, CX_ERR_LOCK, e.get_description());
    } catch (const Xapian::DatabaseModifiedError &e) {
        return set_error(error, CX_ERR_MODIFIED, e.get_description());
    } catch (const Xapian::QueryParserError &e) {
        return set_error(error, CX_ERR_QUERY, e.get_description());
    } catch (const Xapian::DatabaseOpeningError &e) {
        return set_error(error, CX_ERR_OPENING, e.get_description());
    } catch (const Xapian::DatabaseCorruptError &e) {
        return set_error(error, CX_ERR_CORRUPT, e.get_description());
    } catch (const Xapian::Error &e) {
        return set_error(error, CX_ERR_OTHER, e.get_description());
    } catch (const std::exception &e) {
        return set_error(error, CX_ERR_OTHER, e.what());
    } catch (...) {
        return set_error(error, CX_ERR_OTHER, "unknown C++ exception");
    }
}

inline Xapian::Stem make_stemmer(const char *language) {
    if (!language || !*language || std::strcmp(language, "none") == 0) return Xapian::Stem();
    return Xapian::Stem(language);
}

}  // namespace cx
