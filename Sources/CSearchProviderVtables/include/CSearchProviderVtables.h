#ifndef C_SEARCH_PROVIDER_VTABLES_H
#define C_SEARCH_PROVIDER_VTABLES_H

#include <systemd/sd-bus.h>

/* sd-bus describes an object's methods with a vtable built by C macros, which Swift cannot
   import. This target holds the two vtables the search provider serves and one trampoline per
   method; each trampoline hands the call to a single function of the caller's, naming the method.
   Reading the arguments and writing the reply is the caller's business. */

typedef enum {
    SP_METHOD_GET_INITIAL_RESULT_SET,
    SP_METHOD_GET_SUBSEARCH_RESULT_SET,
    SP_METHOD_GET_RESULT_METAS,
    SP_METHOD_ACTIVATE_RESULT,
    SP_METHOD_LAUNCH_SEARCH,
    SP_METHOD_KRUNNER_ACTIONS,
    SP_METHOD_KRUNNER_MATCH,
    SP_METHOD_KRUNNER_RUN,
    SP_METHOD_KRUNNER_TEARDOWN,
} sp_method;

/* Answers one method call: replies to `message` itself and returns 1, or sets `error` and
   returns a negative errno-style value (sd-bus then sends the error as the reply). */
typedef int (*sp_method_handler)(void *context, sp_method method, sd_bus_message *message, sd_bus_error *error);

/* What the trampolines call. It must outlive the objects it is registered for. */
typedef struct {
    sp_method_handler handler;
    void *context;
} sp_target;

/* Serves org.gnome.Shell.SearchProvider2 at `path`. Returns sd-bus's result (negative on error). */
int sp_add_gnome_search_provider(sd_bus *bus, const char *path, sp_target *target);

/* Serves org.kde.krunner1 at `path`. Returns sd-bus's result (negative on error). */
int sp_add_krunner_runner(sd_bus *bus, const char *path, sp_target *target);

#endif
