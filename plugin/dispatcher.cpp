// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook's work (dispatcher.hpp): what plugin/ibnm-dispatcher.cpp
// runs for NetworkManager and tests/plugin/ibnm-dispatcher-test.cpp for the
// tests, on the host each gives.
//
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
// IBNM_SYSFS_ROOT and IBNM_FAKE_FAIL are removed before
// anything reads them).
// The tests run the same code in their own program, on a simulated host.
//
// pre-up blocks activation, so the apply runs under a deadline (5 s): once
// it has passed, the next change is refused and what was done is undone
// (ibnm_host_set_deadline()), so a time-out never leaves the host half-done.
//
// A dispatcher script cannot veto activation: NetworkManager logs a
// non-zero exit and goes on. So when pre-up fails, the hook asks
// NetworkManager over D-Bus to disconnect the device it failed to provision
// (the README's "Using ibnm with NetworkManager" says why this way), and
// `nmcli connection up` fails; the reason goes to syslog and stderr. That
// conversation with NetworkManager is bounded (kNetworkManagerTimeoutMs, well
// under the dispatcher's 600 s limit for a script): a NetworkManager that
// does not answer is logged and the hook exits.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "plugin/dispatcher.hpp"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

using ibnm::GCharPtr;
using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::outPtr;

namespace {

// How long the hook waits for NetworkManager over D-Bus (connecting and
// asking it to disconnect a device) before it gives up: NetworkManager's
// dispatcher kills a script after 600 s (nm-dispatcher.c, SCRIPT_TIMEOUT),
// and pre-up holds the activation meanwhile.
constexpr unsigned kNetworkManagerTimeoutMs = 10000;

std::string gUuid = "-";

FILE *gLog = nullptr;

// One line per event, tagged with the profile's UUID: to syslog, to stderr
// (the dispatcher's own log), and to the test configuration's log file.
void logLine(int priority, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void logLine(int priority, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    GCharPtr raw(g_strdup_vprintf(fmt, ap));
    va_end(ap);
    std::string msg = ibnm::plugin::escapeLogText(raw.get());
    syslog(priority, "%s: %s", gUuid.c_str(), msg.c_str());
    std::fprintf(stderr, "ibnm-dispatcher: %s: %s\n", gUuid.c_str(), msg.c_str());
    if (gLog) {
        std::fprintf(gLog, "%s: %s\n", gUuid.c_str(), msg.c_str());
        std::fflush(gLog);
    }
}

// The keyfile CONNECTION_FILENAME names, if it may be trusted
// (ibnm_keyfile_read(): root's, no access for group or others, NetworkManager's
// rule and the store's) and holds the profile `uuid`. Anything else is
// logged and nullptr returned: the profile then comes from NetworkManager,
// which checked the file it read.
GObjectPtr<NMConnection> loadTrustedKeyfile(const char *filename, const char *uuid)
{
    GErrorPtr error;
    auto c = GObjectPtr<NMConnection>::adopt(ibnm_keyfile_read(filename, 0, outPtr(error)));
    if (!c) {
        if (!g_error_matches(error.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND))
            logLine(LOG_WARNING, _("%s; the profile comes from NetworkManager"), error->message);
        return nullptr;
    }
    if (g_strcmp0(nm_connection_get_uuid(c.get()), uuid) != 0) {
        logLine(LOG_WARNING, _("%s holds profile %s, not %s (CONNECTION_UUID); ignored"), filename,
                nm_connection_get_uuid(c.get()), uuid);
        return nullptr;
    }
    return c;
}

// The profile: from its keyfile when NetworkManager says where it is (no
// D-Bus round trip) and the file may be trusted, else from NetworkManager
// over D-Bus.
GObjectPtr<NMConnection> loadProfile(const char *uuid, GError **error)
{
    const char *filename = g_getenv("CONNECTION_FILENAME");
    if (filename && g_str_has_suffix(filename, ".nmconnection"))
        if (auto c = loadTrustedKeyfile(filename, uuid))
            return c;
    auto settings = GObjectPtr<IbnmSettings>::adopt(ibnm_settings_new_networkmanager(error));
    if (!settings || !ibnm_settings_load(settings.get(), error))
        return nullptr;
    auto c = GObjectPtr<NMConnection>::retain(ibnm_settings_find(settings.get(), uuid));
    if (!c)
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_NOT_FOUND, _("NetworkManager has no profile %s"), uuid);
    return c;
}

void logReport(IbnmApplyReport *report)
{
    if (report == nullptr)
        return;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    ibnm::CPtr<GEnumClass, g_type_class_unref> k(static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_STATE)));
    for (guint i = 0; i < steps->len; i++) {
        auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
        GEnumValue *v = g_enum_get_value(k.get(), ibnm_step_get_state(s));
        logLine(ibnm_step_get_state(s) == IBNM_STEP_STATE_FAILED ? LOG_ERR : LOG_INFO, "%s %s %s: %s%s%s",
                v ? v->value_nick : "?", ibnm_step_action_to_string(ibnm_step_get_action(s)), ibnm_step_get_object(s), ibnm_step_get_detail(s),
                ibnm_step_get_error(s) ? ": " : "", ibnm_step_get_error(s) ? ibnm_step_get_error(s) : "");
    }
    for (const char *const *n = ibnm_apply_report_get_notes(report); *n; n++)
        logLine(LOG_NOTICE, "%s", *n);
}

// One asynchronous D-Bus call's outcome. Shared with its callback, which
// may come after the hook gave up waiting (and then finds nobody waiting).
struct Call {
    bool done = false;
    GObjectPtr<GObject> result;
    GErrorPtr error;
};
using CallPtr = std::shared_ptr<Call>;

void onClientReady(GObject *, GAsyncResult *result, gpointer data)
{
    std::unique_ptr<CallPtr> call(static_cast<CallPtr *>(data));
    (*call)->result = GObjectPtr<GObject>::adopt(G_OBJECT(nm_client_new_finish(result, outPtr((*call)->error))));
    (*call)->done = true;
}

void onDisconnected(GObject *device, GAsyncResult *result, gpointer data)
{
    std::unique_ptr<CallPtr> call(static_cast<CallPtr *>(data));
    nm_device_disconnect_finish(NM_DEVICE(device), result, outPtr((*call)->error));
    (*call)->done = true;
}

gboolean onDeadline(gpointer)
{
    return G_SOURCE_REMOVE;
}

// Runs `context` until `call` is done, or until `deadline` (monotonic
// microseconds): false then, the call cancelled and left to its callback.
bool waitFor(GMainContext *context, const Call &call, GCancellable *cancellable, gint64 deadline)
{
    while (!call.done) {
        gint64 left = deadline - g_get_monotonic_time();
        if (left <= 0) {
            g_cancellable_cancel(cancellable);
            return false;
        }
        ibnm::CPtr<GSource, g_source_unref> timer(g_timeout_source_new(guint(left / 1000 + 1)));
        g_source_set_callback(timer.get(), onDeadline, nullptr, nullptr);
        g_source_attach(timer.get(), context);
        g_main_context_iteration(context, TRUE);
        g_source_destroy(timer.get());
    }
    return true;
}

// A failed pre-up: asks NetworkManager to disconnect `iface` while it is
// activating the profile `uuid`, so the activation fails instead of going
// on as if provisioning had worked. Disconnect (not deactivating the
// active connection) also stops autoconnect from retrying the profile on
// that device until it is activated by hand. Connecting to NetworkManager
// and its answer together take at most `timeoutMs`.
void disconnectDevice(const char *iface, const char *uuid, unsigned timeoutMs)
{
    gint64 deadline = g_get_monotonic_time() + gint64(timeoutMs) * 1000;
    ibnm::GMainContextPtr context(g_main_context_new());
    g_main_context_push_thread_default(context.get());
    auto cancellable = GObjectPtr<GCancellable>::adopt(g_cancellable_new());
    auto connected = std::make_shared<Call>();
    nm_client_new_async(cancellable.get(), onClientReady, new CallPtr(connected));
    bool answered = waitFor(context.get(), *connected, cancellable.get(), deadline);
    auto *client = connected->result ? NM_CLIENT(connected->result.get()) : nullptr;
    NMDevice *device = client ? nm_client_get_device_by_iface(client, iface) : nullptr;
    NMActiveConnection *ac = device ? nm_device_get_active_connection(device) : nullptr;
    auto disconnected = std::make_shared<Call>();
    if (!answered) {
        logLine(LOG_ERR, _("NetworkManager did not answer within %u ms: the activation could not be stopped"),
                timeoutMs);
    } else if (client == nullptr) {
        logLine(LOG_ERR, _("cannot ask NetworkManager to stop the activation: %s"), connected->error->message);
    } else if (ac == nullptr || g_strcmp0(nm_active_connection_get_uuid(ac), uuid) != 0) {
        logLine(LOG_ERR, _("NetworkManager is not activating %s on %s: nothing to stop"), uuid, iface);
    } else {
        nm_device_disconnect_async(device, cancellable.get(), onDisconnected, new CallPtr(disconnected));
        if (!waitFor(context.get(), *disconnected, cancellable.get(), deadline))
            logLine(LOG_ERR, _("NetworkManager did not answer within %u ms: the activation could not be stopped"),
                    timeoutMs);
        else if (disconnected->error)
            logLine(LOG_ERR, _("cannot ask NetworkManager to stop the activation: %s"),
                    disconnected->error->message);
        else
            logLine(LOG_ERR, _("asked NetworkManager to disconnect %s: the activation fails"), iface);
    }
    g_main_context_pop_thread_default(context.get());
}

// pre-up or pre-down of `profile` on `iface`: the apply, its report in the
// log, and on a failed pre-up the request that NetworkManager stop.
int provision(const ibnm::plugin::HostSetup &setup, NMConnection *profile, const char *iface,
              const char *action, bool up, const char *uuid)
{
    unsigned timeoutMs = setup.timeoutMs ? setup.timeoutMs : 5000;
    gint64 deadline = g_get_monotonic_time() + gint64(timeoutMs) * 1000;
    GErrorPtr error;
    auto host = GObjectPtr<IbnmHost>::adopt(setup.newHost(setup.data, outPtr(error)));
    if (!host) {
        logLine(LOG_ERR, _("%s: %s"), action, error->message);
        return 1;
    }
    ibnm_host_set_deadline(host.get(), deadline);
    ibnm::GPtrArrayPtr profiles(g_ptr_array_new());
    g_ptr_array_add(profiles.get(), profile);
    auto flags = IbnmApplyFlags(IBNM_APPLY_FLAGS_RDMA_ONLY | IBNM_APPLY_FLAGS_NO_IP);
    logLine(LOG_INFO, _("%s of %s (%s) on %s"), action, nm_connection_get_id(profile), uuid, iface);
    auto report = GObjectPtr<IbnmApplyReport>::adopt(up ? ibnm_apply_up(host.get(), profiles.get(), nullptr, flags)
                                                        : ibnm_apply_down(host.get(), profiles.get(), nullptr, flags));
    gboolean ok = ibnm_apply_report_propagate_error(report.get(), outPtr(error));
    logReport(report.get());
    if (ok) {
        logLine(LOG_INFO, _("%s done: %u operations"), action, ibnm_apply_report_get_operations(report.get()));
        return 0;
    }
    logLine(LOG_ERR, _("%s failed: %s"), action, error->message);
    if (up)
        disconnectDevice(iface, uuid, setup.timeoutMs ? setup.timeoutMs : kNetworkManagerTimeoutMs);
    return 1;
}

} // namespace

namespace ibnm::plugin {

int runDispatcher(int argc, char **argv, const HostSetup &setup)
{
    LogCopy logCopy(setup, gLog);
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
    // The log prefix is escaped as the messages are.
    gUuid = ibnm::plugin::escapeLogText(uuid);

    GErrorPtr error;
    auto profile = loadProfile(uuid, outPtr(error));
    if (!profile) {
        logLine(LOG_ERR, _("%s: cannot read the profile: %s"), action, error ? error->message : "?");
        return 1;
    }
    if (!ibnm_connection_has_ibnm_keys(profile.get()))
        return 0;
    return provision(setup, profile.get(), argv[1], action, up, uuid);
}

} // namespace ibnm::plugin
