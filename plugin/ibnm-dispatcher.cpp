// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm-dispatcher: what NetworkManager's dispatcher runs (installed as
// dispatcher.d/90-ibnm with pre-up.d/ and pre-down.d/ links to it).
//
//   $1 = interface, $2 = action; CONNECTION_UUID, CONNECTION_ID,
//   CONNECTION_FILENAME, DEVICE_IFACE in the environment.
//
// On pre-up of a profile that carries ibnm keys ([user] rdma.* / ipoib.*) it
// loads the kernel modules the profile needs and provisions what
// NetworkManager does not: the soft RDMA link, RoCE defaults, traffic class
// and TTL, umcast, and the connected-mode probe. On pre-down and down it
// removes what it created.
//
// It runs as root with NetworkManager's environment: it works on this
// machine and takes nothing else from the environment (IBNM_SIMULATE,
// IBNM_SYSFS_ROOT, IBNM_FAKE_FAIL, IBNM_MODULE_PATH are removed before
// anything reads them).
// Tests name a simulated host, fault rules, a log file and the time-out in
// a key file given as `--test-config FILE` before the arguments.
//
// pre-up blocks activation, so the apply runs under a deadline (5 s): once
// it has passed, the next change is refused and what was done is undone
// (ibnm_host_set_deadline()), so a time-out never leaves the host half-done.
//
// A dispatcher script cannot veto activation: NetworkManager logs a
// non-zero exit and goes on. So when pre-up fails, the hook asks
// NetworkManager over D-Bus to disconnect the device it failed to provision
// (the README's "Using ibnm with NetworkManager" says why this way), and
// `nmcli connection up` fails; the reason goes to syslog and stderr.
#include "config.h"

#include "libcore/ibnm.h"
#include "plugin/test-config.hpp"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include <glib/gi18n.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

namespace {

std::string gUuid = "-";

// g_strescape()'s exceptions: every byte from 0x80 (UTF-8 text stays) and
// the double quote.
const char *const kKeepUnescaped =
    "\"\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b"
    "\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7"
    "\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3"
    "\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef"
    "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff";
FILE *gLog = nullptr;

// One line per event, tagged with the profile's UUID: to syslog, to stderr
// (the dispatcher's own log), and to the test configuration's log file.
void logLine(int priority, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void logLine(int priority, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *raw = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    // A profile id or interface name with a newline or an escape sequence
    // must not forge a log line or drive a terminal: control characters
    // (and backslashes) are escaped, UTF-8 text is kept.
    char *msg = g_strescape(raw, kKeepUnescaped);
    g_free(raw);
    syslog(priority, "%s: %s", gUuid.c_str(), msg);
    std::fprintf(stderr, "ibnm-dispatcher: %s: %s\n", gUuid.c_str(), msg);
    if (gLog) {
        std::fprintf(gLog, "%s: %s\n", gUuid.c_str(), msg);
        std::fflush(gLog);
    }
    g_free(msg);
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

// The keyfile CONNECTION_FILENAME names, if it may be trusted: owned by
// root with no access for group or others (NetworkManager's rule, and the
// CLI's), a regular file of at most IBNM_KEYFILE_MAX_SIZE bytes, holding
// the profile `uuid`. Anything else is logged and nullptr returned: the
// profile then comes from NetworkManager, which checked the file it read.
NMConnection *loadTrustedKeyfile(const char *filename, const char *uuid)
{
    int fd = open(filename, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return nullptr;
    struct stat st {};
    std::string data;
    const char *refused = nullptr;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        refused = _("not a regular file");
    else if (st.st_uid != 0)
        refused = _("not owned by root");
    else if ((st.st_mode & 0077) != 0)
        refused = _("group or others have access (0600 is required)");
    else if (st.st_size > IBNM_KEYFILE_MAX_SIZE)
        refused = _("larger than a keyfile may be");
    if (refused == nullptr) {
        char buf[8192];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0 && data.size() <= size_t(IBNM_KEYFILE_MAX_SIZE))
            data.append(buf, size_t(n));
        if (n < 0 || data.size() > size_t(IBNM_KEYFILE_MAX_SIZE))
            refused = _("cannot be read whole");
    }
    close(fd);
    if (refused) {
        logLine(LOG_WARNING, _("%s: %s; ignored, the profile comes from NetworkManager"), filename, refused);
        return nullptr;
    }
    GError *error = nullptr;
    NMConnection *c = ibnm_keyfile_from_data(data.c_str(), filename, &error);
    if (c == nullptr) {
        logLine(LOG_WARNING, "%s", error->message);
        g_error_free(error);
        return nullptr;
    }
    if (g_strcmp0(nm_connection_get_uuid(c), uuid) != 0) {
        logLine(LOG_WARNING, _("%s holds profile %s, not %s (CONNECTION_UUID); ignored"), filename,
                nm_connection_get_uuid(c), uuid);
        g_object_unref(c);
        return nullptr;
    }
    return c;
}

// The profile: from its keyfile when NetworkManager says where it is (no
// D-Bus round trip) and the file may be trusted, else from NetworkManager
// over D-Bus.
NMConnection *loadProfile(const char *uuid, GError **error)
{
    const char *filename = g_getenv("CONNECTION_FILENAME");
    if (filename && g_str_has_suffix(filename, ".nmconnection"))
        if (NMConnection *c = loadTrustedKeyfile(filename, uuid))
            return c;
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

void onDisconnected(GObject *device, GAsyncResult *result, gpointer data)
{
    auto *error = static_cast<GError **>(data);
    nm_device_disconnect_finish(NM_DEVICE(device), result, error);
    if (*error == nullptr)
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NONE, "");
}

// A failed pre-up: asks NetworkManager to disconnect `iface` while it is
// activating the profile `uuid`, so the activation fails instead of going
// on as if provisioning had worked. Disconnect (not deactivating the
// active connection) also stops autoconnect from retrying the profile on
// that device until it is activated by hand.
void disconnectDevice(const char *iface, const char *uuid)
{
    GError *error = nullptr;
    NMClient *client = nm_client_new(nullptr, &error);
    if (client == nullptr) {
        logLine(LOG_ERR, _("cannot ask NetworkManager to stop the activation: %s"), error->message);
        g_error_free(error);
        return;
    }
    NMDevice *device = nm_client_get_device_by_iface(client, iface);
    NMActiveConnection *ac = device ? nm_device_get_active_connection(device) : nullptr;
    if (ac == nullptr || g_strcmp0(nm_active_connection_get_uuid(ac), uuid) != 0) {
        logLine(LOG_ERR, _("NetworkManager is not activating %s on %s: nothing to stop"), uuid, iface);
        g_object_unref(client);
        return;
    }
    nm_device_disconnect_async(device, nullptr, onDisconnected, &error);
    while (error == nullptr)
        g_main_context_iteration(nullptr, TRUE);
    if (error->domain == G_IO_ERROR && error->code == G_IO_ERROR_NONE)
        logLine(LOG_ERR, _("asked NetworkManager to disconnect %s: the activation fails"), iface);
    else
        logLine(LOG_ERR, _("cannot ask NetworkManager to stop the activation: %s"), error->message);
    g_error_free(error);
    g_object_unref(client);
}

} // namespace

int main(int argc, char **argv)
{
    // NetworkManager's environment could carry these: never let the library
    // see them.
    ibnm::plugin::dropTestEnvironment();
    std::setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    openlog("ibnm-dispatcher", LOG_PID, LOG_DAEMON);

    ibnm::plugin::TestConfig config;
    {
        GError *error = nullptr;
        if (!ibnm::plugin::takeTestConfig(argc, argv, config, &error)) {
            std::fprintf(stderr, "ibnm-dispatcher: %s: %s\n", argv[2], error->message);
            g_error_free(error);
            return 2;
        }
    }
    if (!config.log.empty())
        gLog = std::fopen(config.log.c_str(), "ae");
    gint64 deadline = g_get_monotonic_time() + gint64(config.timeoutMs ? config.timeoutMs : 5000) * 1000;

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
    {
        // The log prefix is escaped as the messages are.
        char *escaped = g_strescape(uuid, kKeepUnescaped);
        gUuid = escaped;
        g_free(escaped);
    }

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
    IbnmHost *host = ibnm::plugin::hostFor(config, &error);
    if (host == nullptr) {
        logLine(LOG_ERR, _("%s: %s"), action, error->message);
        g_clear_error(&error);
        g_object_unref(profile);
        return 1;
    }
    ibnm_host_set_deadline(host, deadline);
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
        if (up)
            disconnectDevice(argv[1], uuid);
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
