// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm-dispatcher: what NetworkManager's dispatcher runs (installed as
// dispatcher.d/90-ibnm with pre-up.d/ and pre-down.d/ links to it).
//
//   $1 = interface, $2 = action; CONNECTION_UUID, CONNECTION_ID,
//   CONNECTION_FILENAME, DEVICE_IFACE in the environment.
//
// On pre-up of a profile that carries ibnm keys ([user] rdma.* / ipoib.*) it
// provisions what NetworkManager does not: the soft RDMA link, RoCE defaults,
// traffic class and TTL, umcast, and the connected-mode probe. On pre-down
// and down it removes what it created. pre-up blocks activation, so the whole
// run is bounded (IBNM_DISPATCHER_TIMEOUT seconds, default 5); a dispatcher
// script cannot veto activation, so failures are logged clearly and end
// with a non-zero status, which NetworkManager logs too.
#include "config.h"

#include "libcore/ibnm.h"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include <glib/gi18n.h>

#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <syslog.h>
#include <unistd.h>

namespace {

std::string gUuid = "-";
FILE *gLog = nullptr;

// One line per event, tagged with the profile's UUID: to the log file named
// by IBNM_DISPATCHER_LOG if set, to syslog, and to stderr (the dispatcher's
// own log in debug mode).
void logLine(int priority, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void logLine(int priority, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    syslog(priority, "%s: %s", gUuid.c_str(), msg);
    std::fprintf(stderr, "ibnm-dispatcher: %s: %s\n", gUuid.c_str(), msg);
    if (gLog) {
        std::fprintf(gLog, "%s: %s\n", gUuid.c_str(), msg);
        std::fflush(gLog);
    }
    g_free(msg);
}

void onTimeout(int)
{
    static const char msg[] = "ibnm-dispatcher: timed out; giving up so NetworkManager is not blocked\n";
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    _exit(3);
}

bool hasIbnmKeys(NMConnection *c)
{
    auto *u = reinterpret_cast<NMSettingUser *>(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    if (u == nullptr)
        return false;
    guint n = 0;
    const char *const *keys = nm_setting_user_get_keys(u, &n);
    for (guint i = 0; i < n; i++)
        if (g_str_has_prefix(keys[i], "rdma.") || g_str_has_prefix(keys[i], "ipoib."))
            return true;
    return false;
}

// The profile: from its keyfile when NetworkManager says where it is (no
// D-Bus round trip), else from NetworkManager over D-Bus.
NMConnection *loadProfile(const char *uuid, GError **error)
{
    const char *filename = g_getenv("CONNECTION_FILENAME");
    if (filename && g_str_has_suffix(filename, ".nmconnection")) {
        char *data = nullptr;
        if (g_file_get_contents(filename, &data, nullptr, nullptr)) {
            NMConnection *c = ibnm_keyfile_from_data(data, filename, error);
            g_free(data);
            return c;
        }
    }
    IbnmSettings *settings = ibnm_settings_new_networkmanager(error);
    if (settings == nullptr)
        return nullptr;
    NMConnection *c = nullptr;
    if (ibnm_settings_load(settings, error)) {
        c = ibnm_settings_find(settings, uuid);
        if (c)
            g_object_ref(c);
        else
            g_set_error(error, IBNM_ERROR, IBNM_ERROR_NOT_FOUND, _("NetworkManager has no profile %s"), uuid);
    }
    g_object_unref(settings);
    return c;
}

void logReport(IbnmApplyReport *report)
{
    if (report == nullptr)
        return;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    for (guint i = 0; i < steps->len; i++) {
        auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
        GEnumClass *k = static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_STATE));
        GEnumValue *v = g_enum_get_value(k, ibnm_step_get_state(s));
        logLine(ibnm_step_get_state(s) == IBNM_STEP_STATE_FAILED ? LOG_ERR : LOG_INFO, "%s %s %s: %s%s%s",
                v ? v->value_nick : "?", ibnm_step_get_action(s), ibnm_step_get_object(s), ibnm_step_get_detail(s),
                ibnm_step_get_error(s) ? ": " : "", ibnm_step_get_error(s) ? ibnm_step_get_error(s) : "");
        g_type_class_unref(k);
    }
    for (const char *const *n = ibnm_apply_report_get_notes(report); *n; n++)
        logLine(LOG_NOTICE, "%s", *n);
}

} // namespace

int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    openlog("ibnm-dispatcher", LOG_PID, LOG_DAEMON);
    if (const char *path = g_getenv("IBNM_DISPATCHER_LOG"))
        gLog = std::fopen(path, "ae");

    if (argc < 3) {
        std::fprintf(stderr, _("Usage: %s INTERFACE ACTION (run by NetworkManager's dispatcher)\n"), argv[0]);
        return 2;
    }
    const char *action = argv[2];
    bool up = std::strcmp(action, "pre-up") == 0;
    bool down = std::strcmp(action, "pre-down") == 0 || std::strcmp(action, "down") == 0;
    const char *uuid = g_getenv("CONNECTION_UUID");
    if ((!up && !down) || uuid == nullptr || *uuid == '\0')
        return 0;
    gUuid = uuid;

    unsigned timeout = 5;
    if (const char *t = g_getenv("IBNM_DISPATCHER_TIMEOUT"))
        timeout = unsigned(std::strtoul(t, nullptr, 10));
    std::signal(SIGALRM, onTimeout);
    alarm(timeout ? timeout : 5);

    GError *error = nullptr;
    NMConnection *profile = loadProfile(uuid, &error);
    if (profile == nullptr) {
        logLine(LOG_ERR, _("%s: cannot read the profile: %s"), action, error ? error->message : "?");
        g_clear_error(&error);
        return 1;
    }
    if (!hasIbnmKeys(profile)) {
        g_object_unref(profile);
        return 0;
    }

    int rc = 0;
    IbnmHost *host = ibnm_host_new_from_environment(&error);
    if (host == nullptr) {
        logLine(LOG_ERR, _("%s: %s"), action, error->message);
        g_clear_error(&error);
        g_object_unref(profile);
        return 1;
    }
    GPtrArray *profiles = g_ptr_array_new();
    g_ptr_array_add(profiles, profile);
    IbnmApplyReport *report = nullptr;
    auto flags = IbnmApplyFlags(IBNM_APPLY_FLAGS_RDMA_ONLY | IBNM_APPLY_FLAGS_NO_IP);
    logLine(LOG_INFO, _("%s of %s (%s) on %s"), action, nm_connection_get_id(profile), uuid, argv[1]);
    gboolean ok = up ? ibnm_apply_up(host, profiles, nullptr, flags, &report, &error)
                     : ibnm_apply_down(host, profiles, nullptr, flags, &report, &error);
    logReport(report);
    if (!ok) {
        logLine(LOG_ERR, _("%s failed: %s"), action, error->message);
        g_clear_error(&error);
        rc = 1;
    } else {
        logLine(LOG_INFO, _("%s done: %u operations"), action,
                report ? ibnm_apply_report_get_operations(report) : 0u);
    }
    if (report)
        g_object_unref(report);
    g_ptr_array_unref(profiles);
    g_object_unref(host);
    g_object_unref(profile);
    return rc;
}
