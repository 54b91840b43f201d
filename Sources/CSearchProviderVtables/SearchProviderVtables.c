#include "CSearchProviderVtables.h"

#include <errno.h>
#include <stddef.h>

static int dispatch(sp_method method, sd_bus_message *message, void *userdata, sd_bus_error *error) {
    sp_target *target = userdata;
    if (target == NULL || target->handler == NULL) {
        return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "the search provider is not ready");
    }
    return target->handler(target->context, method, message, error);
}

#define TRAMPOLINE(name, method) \
    static int name(sd_bus_message *message, void *userdata, sd_bus_error *error) { \
        return dispatch(method, message, userdata, error); \
    }

TRAMPOLINE(get_initial_result_set, SP_METHOD_GET_INITIAL_RESULT_SET)
TRAMPOLINE(get_subsearch_result_set, SP_METHOD_GET_SUBSEARCH_RESULT_SET)
TRAMPOLINE(get_result_metas, SP_METHOD_GET_RESULT_METAS)
TRAMPOLINE(activate_result, SP_METHOD_ACTIVATE_RESULT)
TRAMPOLINE(launch_search, SP_METHOD_LAUNCH_SEARCH)
TRAMPOLINE(krunner_actions, SP_METHOD_KRUNNER_ACTIONS)
TRAMPOLINE(krunner_match, SP_METHOD_KRUNNER_MATCH)
TRAMPOLINE(krunner_run, SP_METHOD_KRUNNER_RUN)
TRAMPOLINE(krunner_teardown, SP_METHOD_KRUNNER_TEARDOWN)

/* The signatures are GNOME Shell's and KRunner's; sd-bus answers a call whose arguments do not
   match them with org.freedesktop.DBus.Error.InvalidArgs before any of it reaches the handler. */
static const sd_bus_vtable gnome_search_provider_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("GetInitialResultSet", "as", "as", get_initial_result_set, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetSubsearchResultSet", "asas", "as", get_subsearch_result_set, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetResultMetas", "as", "aa{sv}", get_result_metas, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ActivateResult", "sasu", "", activate_result, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("LaunchSearch", "asu", "", launch_search, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable krunner_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Actions", "", "a(sss)", krunner_actions, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Match", "s", "a(sssida{sv})", krunner_match, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Run", "ss", "", krunner_run, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Teardown", "", "", krunner_teardown, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static int add(sd_bus *bus, const char *path, const char *interface, const sd_bus_vtable *vtable, sp_target *target) {
    if (bus == NULL || path == NULL || target == NULL) {
        return -EINVAL;
    }
    /* No slot: the objects live as long as the connection. */
    return sd_bus_add_object_vtable(bus, NULL, path, interface, vtable, target);
}

int sp_add_gnome_search_provider(sd_bus *bus, const char *path, sp_target *target) {
    return add(bus, path, "org.gnome.Shell.SearchProvider2", gnome_search_provider_vtable, target);
}

int sp_add_krunner_runner(sd_bus *bus, const char *path, sp_target *target) {
    return add(bus, path, "org.kde.krunner1", krunner_vtable, target);
}
