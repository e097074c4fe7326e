// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli 1.42's `connection up` and `connection down` (src/nmcli/connections.c:
// nmc_activate_connection, activate_connection_cb, check_activated;
// do_connection_down, down_active_connection_state_cb), on ibnm's NMClient.
#include "config.h"

#include "settings/nm-activation.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "settings/nm-client-util.hpp"
#include "settings/nm-reasons.hpp"

#include <algorithm>
#include <cerrno>

namespace ibnm::settings {

namespace {

// nmcli does not translate this one (nm-client-utils.c).
constexpr const char *kWaitingForPorts = "master waiting for slaves";

// Iterates `ctx` until done() or the monotonic `deadline` (microseconds;
// negative: no limit); returns done().
template <typename Pred>
bool waitUntil(GMainContext *ctx, Pred done, gint64 deadline)
{
    if (deadline < 0)
        return iterateUntil(ctx, done, -1);
    gint64 left = deadline - g_get_monotonic_time();
    return iterateUntil(ctx, done, left > 0 ? int(std::min<gint64>(left / 1000, G_MAXINT)) : 0);
}

gint64 deadlineIn(unsigned seconds)
{
    return seconds == 0 ? -1 : g_get_monotonic_time() + gint64(seconds) * G_USEC_PER_SEC;
}

Error notRunning()
{
    return Error(IBNM_ERROR_NOT_RUNNING, _("NetworkManager is not running"));
}

Error timedOut(unsigned seconds)
{
    // nmcli's words and its "%d seconds" for every count.
    return Error(IBNM_ERROR_TIMED_OUT, strprintf(_("Timeout expired (%u seconds)"), seconds), ETIMEDOUT);
}

// Waits for the async call `w` until `deadline`; cancels it when that
// passes (and waits for its callback, which GIO always runs). False when
// cancelled.
bool waitForCall(GMainContext *ctx, AsyncWait &w, GCancellable *cancel, gint64 deadline)
{
    if (waitUntil(ctx, [&] { return bool(w.result); }, deadline))
        return true;
    g_cancellable_cancel(cancel);
    waitFor(ctx, w);
    return false;
}

// nmcli's find_device_for_connection() for a device named by `ifname`
// (`nmcli connection up ID ifname IF`): the device of that name, which must
// be compatible with the profile.
Result<NMDevice *> deviceNamed(NMClient *client, NMConnection *connection, const char *ifname)
{
    const GPtrArray *devices = nm_client_get_devices(client);
    for (guint i = 0; devices && i < devices->len; i++) {
        auto *dev = NM_DEVICE(devices->pdata[i]);
        if (g_strcmp0(nm_device_get_iface(dev), ifname) != 0)
            continue;
        GErrorPtr err;
        if (!nm_device_connection_compatible(dev, connection, outPtr(err)))
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("device '%s' not compatible with connection '%s': %s"), ifname,
                                   nm_connection_get_id(connection), err ? err->message : ""));
        return dev;
    }
    return Error(IBNM_ERROR_NOT_FOUND,
                 strprintf(_("device '%s' not found for connection '%s'"), ifname, nm_connection_get_id(connection)));
}

// nmcli's nmc_activation_get_effective_state(): the activation's state,
// the device's where that says more. `reason` is why it failed (or why it
// counts as activated early); UNKNOWN means "wait on".
NMActiveConnectionState effectiveState(NMActiveConnection *ac, NMDevice *device, std::string &reason)
{
    reason.clear();
    NMActiveConnectionStateReason acReason = nm_active_connection_get_state_reason(ac);
    NMDeviceState devState = device ? nm_device_get_state(device) : NM_DEVICE_STATE_UNKNOWN;
    NMActiveConnectionState state = nm_active_connection_get_state(ac);
    if (state == NM_ACTIVE_CONNECTION_STATE_DEACTIVATED) {
        if (!device || acReason != NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_DISCONNECTED ||
            nm_device_get_active_connection(device) != ac) {
            reason = activeReasonText(acReason);
        } else if (devState <= NM_DEVICE_STATE_DISCONNECTED || devState >= NM_DEVICE_STATE_FAILED) {
            reason = deviceReasonText(nm_device_get_state_reason(device));
        } else {
            // The device's reason will say more once it is down.
            return NM_ACTIVE_CONNECTION_STATE_UNKNOWN;
        }
    } else if (state == NM_ACTIVE_CONNECTION_STATE_ACTIVATING && device &&
               (NM_IS_DEVICE_BOND(device) || NM_IS_DEVICE_TEAM(device) || NM_IS_DEVICE_BRIDGE(device)) &&
               devState >= NM_DEVICE_STATE_IP_CONFIG && devState <= NM_DEVICE_STATE_ACTIVATED) {
        // A controller does not activate its ports: it counts as activated
        // once it has its IP configuration.
        reason = kWaitingForPorts;
        return NM_ACTIVE_CONNECTION_STATE_ACTIVATED;
    }
    return state;
}

// Follows an activation as nmcli's check_activated() does: its effective
// state is judged when the active connection's state or the device's
// changes (at those signals, as nmcli: judged later, the device may have
// moved on and the reason be a vaguer one), until ACTIVATED or DEACTIVATED.
class Watch {
public:
    Watch(NMActiveConnection *ac, NMDevice *device) : ac_(ac), device_(device)
    {
        g_signal_connect(ac_, "state-changed", G_CALLBACK(onActiveState), this);
        if (device_)
            g_signal_connect(device_, "notify::" NM_DEVICE_STATE, G_CALLBACK(onDeviceState), this);
    }
    ~Watch()
    {
        g_signal_handlers_disconnect_by_data(ac_, this);
        if (device_)
            g_signal_handlers_disconnect_by_data(device_, this);
    }
    Watch(const Watch &) = delete;
    Watch &operator=(const Watch &) = delete;

    // Judges the state now, then at each change until it is final, `stop()`
    // or the deadline; whether it is final.
    template <typename Stop>
    bool wait(GMainContext *ctx, Stop stop, gint64 deadline)
    {
        check();
        return waitUntil(ctx, [&] { return stop() || done_; }, deadline) && done_;
    }

    NMActiveConnectionState state = NM_ACTIVE_CONNECTION_STATE_UNKNOWN;
    std::string reason;

private:
    void check()
    {
        if (done_)
            return;
        NMActiveConnectionState s = effectiveState(ac_, device_, reason);
        if (s == NM_ACTIVE_CONNECTION_STATE_ACTIVATED || s == NM_ACTIVE_CONNECTION_STATE_DEACTIVATED) {
            state = s;
            done_ = true;
        }
    }
    static void onActiveState(NMActiveConnection *, guint, guint, gpointer self) noexcept
    {
        static_cast<Watch *>(self)->check();
    }
    static void onDeviceState(GObject *, GParamSpec *, gpointer self) noexcept { static_cast<Watch *>(self)->check(); }

    NMActiveConnection *ac_;
    NMDevice *device_;
    bool done_ = false;
};

// Sends the activation request; the active connection, or the error.
Result<GObjectPtr<NMActiveConnection>> requestActivation(GMainContext *ctx, NMClient *client,
                                                          NMRemoteConnection *remote, NMDevice *device,
                                                          gint64 deadline, unsigned timeoutS)
{
    auto cancel = GObjectPtr<GCancellable>::adopt(g_cancellable_new());
    AsyncWait w;
    nm_client_activate_connection_async(client, NM_CONNECTION(remote), device, nullptr, cancel.get(), onReady, &w);
    bool answered = waitForCall(ctx, w, cancel.get(), deadline);
    GErrorPtr err;
    auto ac = GObjectPtr<NMActiveConnection>::adopt(
        nm_client_activate_connection_finish(client, w.result.get(), outPtr(err)));
    if (ac)
        return ac;
    if (!answered)
        return timedOut(timeoutS);
    if (!nm_client_get_nm_running(client))
        return notRunning();
    // NetworkManager's refusal (no compatible device, not authorized...):
    // what nmcli reports, with its exit status 4.
    Error e = fromNmError(err.get(), "");
    IbnmError code = e.code() == IBNM_ERROR_PERMISSION_DENIED ? e.code() : IBNM_ERROR_ACTIVATION_FAILED;
    return Error(code, strprintf(_("Connection activation failed: %s"), e.message().c_str()));
}

} // namespace

ActivationResult activateProfile(GMainContext *ctx, NMClient *client, const std::string &uuid, const char *ifname,
                                 unsigned timeoutS)
{
    ContextScope scope(ctx);
    ActivationResult out;
    gint64 deadline = deadlineIn(timeoutS);
    if (!nm_client_get_nm_running(client)) {
        out.error = notRunning();
        return out;
    }
    NMRemoteConnection *remote = nm_client_get_connection_by_uuid(client, uuid.c_str());
    if (!remote) {
        out.error = Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));
        return out;
    }
    NMDevice *device = nullptr;
    if (ifname) {
        auto named = deviceNamed(client, NM_CONNECTION(remote), ifname);
        if (!named) {
            out.error = std::move(named).error();
            return out;
        }
        device = *named;
        out.device = ifname;
    }
    auto ac = requestActivation(ctx, client, remote, device, deadline, timeoutS);
    if (!ac) {
        out.error = std::move(ac).error();
        return out;
    }
    NMActiveConnection *active = ac->get();
    out.activePath = nm_object_get_path(NM_OBJECT(active));
    // As nmcli: without a device named, the one NetworkManager chose (a
    // software device may have none yet).
    const GPtrArray *devices = nm_active_connection_get_devices(active);
    if (!device && !nm_active_connection_get_vpn(active) && devices && devices->len > 0)
        device = NM_DEVICE(devices->pdata[0]);
    auto deviceRef = GObjectPtr<NMDevice>::retain(device);
    if (device)
        out.device = nm_device_get_iface(device);
    if (timeoutS == 0)
        return out;
    Watch watch{active, device};
    bool running = true;
    bool done = watch.wait(ctx, [&] { return !(running = nm_client_get_nm_running(client)); }, deadline);
    if (!running)
        out.error = notRunning();
    else if (!done)
        out.error = timedOut(timeoutS);
    else if (watch.state == NM_ACTIVE_CONNECTION_STATE_DEACTIVATED)
        out.error =
            Error(IBNM_ERROR_ACTIVATION_FAILED, strprintf(_("Connection activation failed: %s"), watch.reason.c_str()));
    else
        out.note = watch.reason;
    return out;
}

Result<std::vector<std::string>> deactivateProfile(GMainContext *ctx, NMClient *client, const std::string &uuid,
                                                   unsigned timeoutS)
{
    ContextScope scope(ctx);
    gint64 deadline = deadlineIn(timeoutS);
    if (!nm_client_get_nm_running(client))
        return notRunning();
    std::vector<GObjectPtr<NMActiveConnection>> found;
    const GPtrArray *active = nm_client_get_active_connections(client);
    for (guint i = 0; active && i < active->len; i++) {
        auto *ac = NM_ACTIVE_CONNECTION(active->pdata[i]);
        if (uuid == (nm_active_connection_get_uuid(ac) ? nm_active_connection_get_uuid(ac) : ""))
            found.push_back(GObjectPtr<NMActiveConnection>::retain(ac));
    }
    if (found.empty())
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("profile %s is not active"), uuid.c_str()));
    std::vector<std::string> paths;
    for (auto &ac : found) {
        auto cancel = GObjectPtr<GCancellable>::adopt(g_cancellable_new());
        AsyncWait w;
        nm_client_deactivate_connection_async(client, ac.get(), cancel.get(), onReady, &w);
        bool answered = waitForCall(ctx, w, cancel.get(), deadline);
        GErrorPtr err;
        if (!nm_client_deactivate_connection_finish(client, w.result.get(), outPtr(err))) {
            if (!answered)
                return timedOut(timeoutS);
            if (!nm_client_get_nm_running(client))
                return notRunning();
            Error e = fromNmError(err.get(), "");
            return Error(e.code(), strprintf(_("Connection '%s' deactivation failed: %s"),
                                             nm_active_connection_get_id(ac.get()), e.message().c_str()));
        }
        paths.push_back(nm_object_get_path(NM_OBJECT(ac.get())));
    }
    if (timeoutS == 0)
        return paths;
    // Done when each is DEACTIVATED, or gone from NetworkManager's list.
    auto gone = [&](NMActiveConnection *ac) {
        if (nm_active_connection_get_state(ac) >= NM_ACTIVE_CONNECTION_STATE_DEACTIVATED)
            return true;
        const GPtrArray *now = nm_client_get_active_connections(client);
        for (guint i = 0; now && i < now->len; i++)
            if (now->pdata[i] == ac)
                return false;
        return true;
    };
    bool running = true;
    bool done = waitUntil(
        ctx,
        [&] {
            running = nm_client_get_nm_running(client);
            return !running || std::all_of(found.begin(), found.end(), [&](auto &ac) { return gone(ac.get()); });
        },
        deadline);
    if (!running)
        return notRunning();
    if (!done)
        return timedOut(timeoutS);
    return paths;
}

} // namespace ibnm::settings
