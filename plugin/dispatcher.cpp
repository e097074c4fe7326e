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
// removes what it created: what pre-up applied, from its record of the
// activation (plugin/hook-record.hpp), whatever the stored profile says now.
// On reapply (`nmcli device reapply`: NetworkManager changes the active
// connection in place and runs no pre-down or pre-up) it asks NetworkManager
// what it applied now and replaces its part to match.
//
// It runs as root with NetworkManager's environment: it works on this
// machine and takes nothing else from the environment (IBNM_SIMULATE,
// IBNM_SYSFS_ROOT and IBNM_FAKE_FAIL are removed before
// anything reads them).
// The tests run the same code in their own program, on a simulated host.
//
// pre-up blocks activation, so the hook runs under a deadline (5 s): once
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
#include "plugin/hook-filter.h"
#include "plugin/hook-record.hpp"
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
using ibnm::plugin::readHookRecord;

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

// The connection NetworkManager has applied to `iface` (its D-Bus
// Device.GetAppliedConnection): after a reapply (`nmcli device reapply`,
// which takes [user] changes), what the device runs now, whatever the
// stored profile says. Each call bounded by `timeoutMs`.
GObjectPtr<NMConnection> appliedConnection(const char *iface, unsigned timeoutMs, GError **error)
{
    auto bus = GObjectPtr<GDBusConnection>::adopt(g_bus_get_sync(G_BUS_TYPE_SYSTEM, nullptr, error));
    if (!bus)
        return nullptr;
    ibnm::GVariantPtr device(g_dbus_connection_call_sync(
        bus.get(), NM_DBUS_SERVICE, NM_DBUS_PATH, NM_DBUS_INTERFACE, "GetDeviceByIpIface", g_variant_new("(s)", iface),
        G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, int(timeoutMs), nullptr, error));
    if (!device)
        return nullptr;
    const char *path = nullptr;
    g_variant_get(device.get(), "(&o)", &path);
    ibnm::GVariantPtr applied(g_dbus_connection_call_sync(
        bus.get(), NM_DBUS_SERVICE, path, NM_DBUS_INTERFACE_DEVICE, "GetAppliedConnection", g_variant_new("(u)", 0u),
        G_VARIANT_TYPE("(a{sa{sv}}t)"), G_DBUS_CALL_FLAGS_NONE, int(timeoutMs), nullptr, error));
    if (!applied)
        return nullptr;
    ibnm::GVariantPtr settings(g_variant_get_child_value(applied.get(), 0));
    return GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_from_dbus(settings.get(), error));
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

// What an apply left: done, failed with every change undone, or failed
// with some change still on the host (its report names them).
enum class Outcome { Done, Undone, Left };

// Whether a failed apply's report shows a change it did not undo.
bool leftChanges(IbnmApplyReport *report)
{
    if (report == nullptr)
        return false;
    if (*ibnm_apply_report_get_not_restored(report) != nullptr)
        return true;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    for (guint i = 0; i < steps->len; i++)
        switch (ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, i)))) {
        case IBNM_STEP_STATE_DONE:
        case IBNM_STEP_STATE_UNDO_FAILED:
            return true;
        default:
            break;
        }
    return false;
}

// pre-up or pre-down of `profile` on `iface`: the apply and its report in
// the log. `action` names it in the log.
Outcome provision(IbnmHost *host, NMConnection *profile, const char *iface, const char *action, bool up,
                  const char *uuid)
{
    GErrorPtr error;
    ibnm::GPtrArrayPtr profiles(g_ptr_array_new());
    g_ptr_array_add(profiles.get(), profile);
    auto flags = IbnmApplyFlags(IBNM_APPLY_FLAGS_RDMA_ONLY | IBNM_APPLY_FLAGS_NO_IP);
    logLine(LOG_INFO, _("%s of %s (%s) on %s"), action, nm_connection_get_id(profile), uuid, iface);
    auto report = GObjectPtr<IbnmApplyReport>::adopt(up ? ibnm_apply_up(host, profiles.get(), nullptr, flags)
                                                        : ibnm_apply_down(host, profiles.get(), nullptr, flags));
    gboolean ok = ibnm_apply_report_propagate_error(report.get(), outPtr(error));
    logReport(report.get());
    if (ok) {
        logLine(LOG_INFO, _("%s done: %u operations"), action, ibnm_apply_report_get_operations(report.get()));
        return Outcome::Done;
    }
    logLine(LOG_ERR, _("%s failed: %s"), action, error->message);
    return leftChanges(report.get()) ? Outcome::Left : Outcome::Undone;
}

// pre-down or down: takes down what the activation's record says pre-up
// applied (the profile as it was then, whatever it is now), and forgets the
// record once that is done. A failure keeps it for the next try (down
// follows pre-down; NetworkManager goes on either way).
int takeDown(IbnmHost *host, NMConnection *record, const char *iface, const char *action, const char *uuid)
{
    if (provision(host, record, iface, action, false, uuid) != Outcome::Done)
        return 1;
    GErrorPtr error;
    if (!ibnm::plugin::removeHookRecord(host, uuid, outPtr(error))) {
        logLine(LOG_ERR, _("%s: %s"), action, error->message);
        return 1;
    }
    return 0;
}

// pre-up, or reapply: an earlier activation of other settings (one that
// NetworkManager never took down, or the settings a reapply replaced) is
// taken down first (a changed profile's re-activation replaces the old
// one); then the profile is recorded and provisioned. The record is
// written before the first change, so that nothing is ever provisioned that
// no record describes; a failure that was undone removes it again. On a
// failure NetworkManager is asked to stop the activation.
int bringUp(const ibnm::plugin::HostSetup &setup, IbnmHost *host, NMConnection *record, NMConnection *profile,
            const char *iface, const char *action, const char *uuid)
{
    bool keys = ibnm_connection_has_ibnm_keys(profile);
    bool ok = true;
    GErrorPtr error;
    if (record && (!keys || !ibnm::plugin::sameSettings(record, profile))) {
        if (std::strcmp(action, "reapply") == 0)
            logLine(LOG_NOTICE, _("reapply: NetworkManager applied other settings of %s: the earlier ones are taken "
                                  "down first"),
                    uuid);
        else
            logLine(LOG_NOTICE, _("pre-up: an earlier activation of %s with other settings was not taken down: "
                                  "taking it down first"),
                    uuid);
        ok = takeDown(host, record, iface, action, uuid) == 0;
    }
    if (ok && !keys)
        return 0;
    if (ok && !ibnm::plugin::writeHookRecord(host, profile, outPtr(error))) {
        logLine(LOG_ERR, _("%s: cannot record the activation: %s"), action, error->message);
        ok = false;
    }
    if (ok) {
        Outcome o = provision(host, profile, iface, action, true, uuid);
        ok = o == Outcome::Done;
        // Undone (the apply is one transaction): nothing left to take down.
        // A change left on the host keeps the record, for down to remove it.
        if (o == Outcome::Undone && !ibnm::plugin::removeHookRecord(host, uuid, outPtr(error)))
            logLine(LOG_ERR, _("%s: %s"), action, error->message);
    }
    if (ok)
        return 0;
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
    // reapply: NetworkManager changed an active connection in place
    // (`nmcli device reapply`; no pre-down or pre-up is run).
    bool reapply = std::strcmp(action, "reapply") == 0;
    IbnmHookAction kind = ibnm_hook_action(action);
    bool up = kind == IBNM_HOOK_ACTION_UP;
    bool down = kind == IBNM_HOOK_ACTION_DOWN;
    const char *uuid = g_getenv("CONNECTION_UUID");
    if ((!up && !down) || uuid == nullptr || *uuid == '\0')
        return 0;
    // The log prefix is escaped as the messages are.
    gUuid = ibnm::plugin::escapeLogText(uuid);

    // The hook works under a deadline (5 s): pre-up blocks the activation;
    // once it has passed, the next change is refused and what was done is
    // undone (ibnm_host_set_deadline()).
    unsigned timeoutMs = setup.timeoutMs ? setup.timeoutMs : 5000;
    GErrorPtr error;
    auto host = GObjectPtr<IbnmHost>::adopt(setup.newHost(setup.data, outPtr(error)));
    if (!host) {
        logLine(LOG_ERR, _("%s: %s"), action, error->message);
        return 1;
    }
    ibnm_host_set_deadline(host.get(), g_get_monotonic_time() + gint64(timeoutMs) * 1000);
    auto record = readHookRecord(host.get(), uuid, outPtr(error));
    if (error) {
        logLine(LOG_ERR, _("%s: cannot read the record of the activation: %s"), action, error->message);
        return 1;
    }
    // Deactivation undoes the activation NetworkManager applied, as the
    // record says, never the profile as it is stored now; without a record
    // the hook did nothing to undo.
    if (down)
        return record ? takeDown(host.get(), record.get(), argv[1], action, uuid) : 0;
    // pre-up: the profile NetworkManager is activating; reapply: what it has
    // applied now, which the stored profile need not be.
    auto profile = reapply ? appliedConnection(argv[1], setup.timeoutMs ? setup.timeoutMs : kNetworkManagerTimeoutMs,
                                               outPtr(error))
                           : loadProfile(uuid, outPtr(error));
    if (profile && g_strcmp0(nm_connection_get_uuid(profile.get()), uuid) != 0) {
        logLine(LOG_ERR, _("%s: NetworkManager has applied profile %s to %s, not %s"), action,
                nm_connection_get_uuid(profile.get()), argv[1], uuid);
        return 1;
    }
    if (!profile) {
        logLine(LOG_ERR, _("%s: cannot read the profile: %s"), action, error ? error->message : "?");
        return 1;
    }
    return bringUp(setup, host.get(), record.get(), profile.get(), argv[1], action, uuid);
}

} // namespace ibnm::plugin
