// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection up|down` while NetworkManager runs: NetworkManager
// activates and deactivates the profiles (ibnm_settings_activate(), as
// nmcli 1.42 does), owns the activation, and its dispatcher runs ibnm's hook
// (plugin/ibnm-dispatcher.cpp) for the RDMA part. nmcli's messages and exit
// statuses (src/nmcli/connections.c: do_connection_up, do_connection_down).
// Without NetworkManager ibnm does the work itself: connection.cpp.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/connection.hpp"
#include "cli/output.hpp"
#include "plugin/hook-record.hpp"

#include <glib/gi18n.h>

#include <cstdarg>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace ibnm::cli {

namespace {

// nmcli's exit statuses (src/nmcli/nmcli.h: NMCResultCode); 3, 4 and 5
// (timeout, activation and deactivation failed) are cli.hpp's.
constexpr int kExitNotRunning = 8; // NMC_RESULT_ERROR_NM_NOT_RUNNING

// nmcli's --wait defaults: "Activation can take quite a long time, use 90
// seconds" (do_connection_up); 10 for down (do_connection_down).
constexpr guint kUpWaitSeconds = 90;
constexpr guint kDownWaitSeconds = 10;

// The profiles named on the command line, as typed (down's messages name
// the ID as typed, as nmcli's).
struct Pick {
    std::string typed;
    NMConnection *connection; // owned by the store; nullptr: names none
};

struct Selection {
    std::vector<Pick> picks;
    std::string ifname; // `up ID ifname IF`
    bool all = false;
};

std::string format(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
std::string format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    CharPtr text(g_strdup_vprintf(fmt, ap));
    va_end(ap);
    return text.get();
}

// The words of up/down: [id|uuid|filename|path] ID... (down: apath too),
// or --all; up also
// takes nmcli's `ifname IF` after a single ID. An ID naming no profile is
// an error for up (nmcli stops at it); down names it later as not active.
// -1, or the exit status after printing the error.
int parse(IbnmSettings *s, const Args &args, bool up, Selection &out)
{
    if (!args.empty() && args[0] == "--all") {
        if (args.size() > 1)
            return usageError(_(kConnectionUsage), _("'--all' takes no connection ID; '%s' not understood"),
                              args[1].c_str());
        out.all = true;
        PtrArray all = allConnections(s);
        for (guint i = 0; i < all->len; i++) {
            auto *c = NM_CONNECTION(g_ptr_array_index(all.get(), i));
            NMSettingConnection *sc = nm_connection_get_setting_connection(c);
            if (sc && nm_setting_connection_get_autoconnect(sc))
                out.picks.push_back({nm_connection_get_id(c), ibnm_settings_find(s, nm_connection_get_uuid(c))});
        }
        return -1;
    }
    for (size_t i = 0; i < args.size();) {
        if (args[i] == "--all")
            return usageError(_(kConnectionUsage), _("'--all' cannot be combined with connection IDs"));
        if (up && args[i] == "ifname") {
            if (i + 1 >= args.size())
                return usageError(_(kConnectionUsage), _("'%s' argument is missing"), "ifname");
            out.ifname = args[i + 1];
            i += 2;
            continue;
        }
        Selector sel = takeId(args, i, !up);
        if (up) {
            NMConnection *c = findOrComplain(s, sel);
            if (!c)
                return notFoundStatus(s);
            out.picks.push_back({sel.id, c});
        } else {
            out.picks.push_back({sel.id, findSelected(s, sel)});
        }
    }
    if (out.picks.empty())
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    if (!out.ifname.empty() && out.picks.size() != 1)
        return usageError(_(kConnectionUsage), _("'ifname' takes one connection ID"));
    return -1;
}

// One request to NetworkManager and its outcome, for -j's report
// (docs/json-schema.md) and the exit status.
struct Outcome {
    std::string profile, action, device, detail, error;
    bool ok = true;
};

void printJson(Context &ctx, const std::vector<Outcome> &outcomes, const std::vector<Obj<IbnmApplyReport>> &plans)
{
    bool ok = true;
    for (const auto &o : outcomes)
        ok = ok && o.ok;
    JsonDoc j;
    j.beginObject().beginObject("report");
    j.boolean("success", ok);
    j.boolean("dry-run", ctx.options.dryRun);
    j.boolean("rolled-back", false);
    j.value("operations", ctx.options.dryRun ? 0LL : static_cast<long long>(outcomes.size()));
    const Outcome *failed = nullptr;
    for (const auto &o : outcomes)
        failed = failed ? failed : (o.ok ? nullptr : &o);
    j.value("error", failed ? cell(failed->error.c_str()) : Cell());
    j.beginArray("steps");
    for (const auto &o : outcomes) {
        const char *state = ctx.options.dryRun ? "planned" : o.ok ? "done" : "failed";
        j.beginObject().value("state", state).value("action", o.action.c_str());
        j.value("object", cell(o.device.c_str())).value("detail", o.detail.c_str());
        j.value("profile", o.profile.c_str()).value("error", cell(o.error.c_str())).endObject();
    }
    for (const auto &plan : plans) {
        GPtrArray *steps = ibnm_apply_report_get_steps(plan.get());
        for (guint i = 0; steps && i < steps->len; i++)
            stepJson(j, static_cast<IbnmStep *>(g_ptr_array_index(steps, i)));
    }
    j.endArray().beginArray("notes").endArray().endObject().endObject();
    j.print();
}

// nmcli's "Hint: use 'journalctl -xe ...' to get more details." after an
// activation NetworkManager took and then failed (active_connection_hint();
// Debian's and Fedora's NetworkManager log to the journal by default).
void printJournalHint(const char *uuid, const char *device)
{
    std::string hint = std::string("journalctl -xe NM_CONNECTION=") + uuid;
    if (device && *device)
        hint += std::string(" + NM_DEVICE=") + device;
    std::fprintf(stderr, _("Hint: use '%s' to get more details.\n"), hint.c_str());
}

void printNmError(const GError *err);

// A failed activation: nmcli's error, its journal hint when NetworkManager
// had taken the request (`activePath`), and where ibnm's hook says why when
// it stopped the activation of a profile it provisions.
void printFailure(NMConnection *c, const GError *err, const char *activePath, const char *device)
{
    printNmError(err);
    bool failed = err->domain == IBNM_ERROR && err->code == IBNM_ERROR_ACTIVATION_FAILED;
    if (!failed || !activePath)
        return;
    printJournalHint(nm_connection_get_uuid(c), device);
    if (ibnm_connection_has_ibnm_keys(c))
        std::fprintf(stderr, _("Hint: ibnm's dispatcher hook stops the activation when it cannot provision the RDMA "
                               "part; it logs why to the system log ('journalctl -t ibnm-dispatcher').\n"));
}

// The exit status of a failed request to NetworkManager, as nmcli's:
// `failedStatus` (4 for up, 5 for down) but for a time-out and
// NetworkManager gone.
int nmErrorStatus(const GError *err, int failedStatus)
{
    if (err->domain == IBNM_ERROR && err->code == IBNM_ERROR_TIMED_OUT)
        return kExitTimeout;
    if (err->domain == IBNM_ERROR && err->code == IBNM_ERROR_NOT_RUNNING)
        return kExitNotRunning;
    return failedStatus;
}

// A failed request to NetworkManager, as nmcli prints it: its messages
// that end in NetworkManager's reason ("Error: Connection activation
// failed: REASON", "Error: Timeout expired (N seconds)") as they are, the
// others ("Error: device 'X' not found for connection 'Y'.") with a period.
void printNmError(const GError *err)
{
    bool verbatim = err->domain == IBNM_ERROR &&
                    (err->code == IBNM_ERROR_ACTIVATION_FAILED || err->code == IBNM_ERROR_TIMED_OUT);
    if (verbatim)
        std::fprintf(stderr, _("Error: %s\n"), err->message);
    else
        printError("%s", err->message);
}

guint waitSeconds(const Context &ctx, bool up)
{
    if (ctx.options.waitSeconds >= 0)
        return guint(ctx.options.waitSeconds);
    return up ? kUpWaitSeconds : kDownWaitSeconds;
}

bool textOutput(const Context &ctx)
{
    return ctx.options.mode != OutputMode::Json;
}

// The plan of the hook's apply of `c` (up: its pre-up; down: its pre-down),
// printed under `title`; `plans` keeps it for -j. The exit status: 4 when
// the hook would fail an activation (it stops NetworkManager's), 1 when it
// would fail to undo.
int planHook(Context &ctx, IbnmHost *host, NMConnection *c, bool up, const char *title,
             std::vector<Obj<IbnmApplyReport>> &plans)
{
    PtrArray one(g_ptr_array_new());
    g_ptr_array_add(one.get(), c);
    auto flags = IbnmApplyFlags(IBNM_APPLY_FLAGS_RDMA_ONLY | IBNM_APPLY_FLAGS_NO_IP | IBNM_APPLY_FLAGS_DRY_RUN);
    Obj<IbnmApplyReport> plan(up ? ibnm_apply_up(host, one.get(), nullptr, flags)
                                 : ibnm_apply_down(host, one.get(), nullptr, flags));
    if (!ibnm_apply_report_get_started(plan.get()))
        return printApply(ctx, plan.get());
    gboolean ok = ibnm_apply_report_get_success(plan.get());
    int rc = ok ? kExitOk : up ? kExitActivationFailed : kExitFailed;
    if (textOutput(ctx)) {
        std::printf("%s\n", title);
        printReport(ctx, plan.get());
        if (!ok && up)
            std::printf("%s\n", _("The hook's failure would make NetworkManager's activation fail."));
    }
    plans.push_back(std::move(plan));
    return rc;
}

// --dry-run: what ibnm's hook would do when NetworkManager runs it for `c`
// (its pre-up or pre-down: the RDMA part only, no IP, on this machine;
// plugin/dispatcher.cpp), decided as the hook decides (plugin/
// hook-record.hpp): pre-down takes down what the hook's record of the
// activation says pre-up applied, whatever the profile says now; pre-up
// first takes down an earlier activation of other settings. The exit
// status the command would have: 4 when the hook would fail an activation
// (it stops NetworkManager's), 1 when it would fail to undo.
int dryRunHook(Context &ctx, NMConnection *c, bool up, std::vector<Obj<IbnmApplyReport>> &plans)
{
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    ErrorPtr err;
    auto record = ibnm::plugin::readHookRecord(host, nm_connection_get_uuid(c), Out(err));
    if (err)
        return reportError(err.get());
    if (!up) {
        if (!record) {
            if (textOutput(ctx))
                std::printf("%s\n", _("ibnm's dispatcher hook would do nothing: it provisioned nothing for this "
                                      "activation."));
            return kExitOk;
        }
        return planHook(ctx, host, record.get(), false,
                        _("ibnm's dispatcher hook would first remove the RDMA part (pre-down):"), plans);
    }
    bool keys = ibnm_connection_has_ibnm_keys(c);
    if (record && (!keys || !ibnm::plugin::sameSettings(record.get(), c))) {
        int rc = planHook(ctx, host, record.get(), false,
                          _("ibnm's dispatcher hook would first take down an earlier activation of the profile with "
                            "other settings (pre-up):"),
                          plans);
        if (rc != kExitOk) {
            if (textOutput(ctx))
                std::printf("%s\n", _("The hook's failure would make NetworkManager's activation fail."));
            return kExitActivationFailed;
        }
    }
    if (!keys) {
        if (textOutput(ctx))
            std::printf("%s\n",
                        _("ibnm's dispatcher hook would do nothing: the profile has no rdma.* or ipoib.* keys."));
        return kExitOk;
    }
    return planHook(ctx, host, c, true, _("ibnm's dispatcher hook would then provision the RDMA part (pre-up):"),
                    plans);
}

} // namespace

namespace {

// up: each profile in turn, as `nmcli connection up ID` for each; a failed
// one does not stop the next (NetworkManager keeps no transaction across
// profiles). The first failure's status.
int upThroughNetworkManager(Context &ctx, IbnmSettings *s, const Selection &sel)
{
    guint wait = waitSeconds(ctx, true);
    const char *ifname = sel.ifname.empty() ? nullptr : sel.ifname.c_str();
    std::vector<Outcome> outcomes;
    std::vector<Obj<IbnmApplyReport>> plans;
    PtrArray activated(g_ptr_array_new());
    int rc = kExitOk;
    for (const Pick &p : sel.picks) {
        NMConnection *c = p.connection;
        const char *uuid = nm_connection_get_uuid(c);
        Outcome o{nm_connection_get_id(c), "networkmanager-activate", "", "", "", true};
        if (ctx.options.dryRun) {
            const char *dev = ifname ? ifname : nm_connection_get_interface_name(c);
            o.device = dev ? dev : "";
            o.detail = dev ? format(_("NetworkManager would activate the profile on %s"), dev)
                           : std::string(_("NetworkManager would activate the profile on a device it chooses"));
            if (textOutput(ctx) && dev)
                std::printf(_("Dry run: NetworkManager would be asked to activate '%s' (%s) on %s.\n"),
                            shown(o.profile.c_str()).c_str(), uuid, dev);
            else if (textOutput(ctx))
                std::printf(_("Dry run: NetworkManager would be asked to activate '%s' (%s) on a device it chooses.\n"),
                            shown(o.profile.c_str()).c_str(), uuid);
            int hook = dryRunHook(ctx, c, true, plans);
            o.ok = hook == kExitOk;
            rc = rc != kExitOk ? rc : hook;
            outcomes.push_back(std::move(o));
            continue;
        }
        CharPtr path, device, note;
        ErrorPtr err;
        bool ok = ibnm_settings_activate(s, uuid, ifname, wait, Out(path), Out(device), Out(note), Out(err));
        o.device = device ? device.get() : "";
        if (ok) {
            o.detail = format(_("NetworkManager activated the profile (D-Bus active path: %s)"), path.get());
            // With --wait 0 nmcli says nothing: the activation goes on.
            if (textOutput(ctx) && wait > 0 && note)
                std::printf(_("Connection successfully activated (%s) (D-Bus active path: %s)\n"), note.get(),
                            path.get());
            else if (textOutput(ctx) && wait > 0)
                std::printf(_("Connection successfully activated (D-Bus active path: %s)\n"), path.get());
            if (wait > 0)
                g_ptr_array_add(activated.get(), c);
        } else {
            o.ok = false;
            o.error = err->message;
            o.detail = _("NetworkManager did not activate the profile");
            rc = rc != kExitOk ? rc : nmErrorStatus(err.get(), kExitActivationFailed);
            if (textOutput(ctx))
                printFailure(c, err.get(), path.get(), device.get());
        }
        outcomes.push_back(std::move(o));
    }
    if (!textOutput(ctx))
        printJson(ctx, outcomes, plans);
    else if (ctx.options.dryRun)
        std::printf("%s", _("Dry run: nothing was changed.\n"));
    else if (rc == kExitOk)
        printRdmaTestHint(ctx, activated.get()); // last, as standalone (cli/connection.cpp)
    return rc;
}

// The active profiles among those named, each once; the others named as
// nmcli names them ("Error: 'X' is not an active connection."). `missing`:
// whether one was not active (--all skips those quietly).
std::vector<NMConnection *> activeOnes(IbnmSettings *s, const Selection &sel, bool &missing)
{
    std::vector<NMConnection *> active;
    for (const Pick &p : sel.picks) {
        const char *uuid = p.connection ? nm_connection_get_uuid(p.connection) : nullptr;
        if (!uuid || !ibnm_settings_get_active_path(s, uuid)) {
            if (!sel.all) {
                std::fprintf(stderr, _("Error: '%s' is not an active connection.\n"), shown(p.typed.c_str()).c_str());
                missing = true;
            }
        } else if (std::find(active.begin(), active.end(), p.connection) == active.end()) {
            active.push_back(p.connection);
        }
    }
    return active;
}

// down: every named profile that is active, as nmcli's down; one that is
// not is an error (exit 10) and changes nothing.
int downThroughNetworkManager(Context &ctx, IbnmSettings *s, const Selection &sel)
{
    guint wait = waitSeconds(ctx, false);
    bool missing = false;
    std::vector<NMConnection *> active = activeOnes(s, sel, missing);
    if (active.empty() && !sel.all) {
        std::fprintf(stderr, "%s\n", _("Error: no active connection provided."));
        return kExitNotFound;
    }
    std::vector<Outcome> outcomes;
    std::vector<Obj<IbnmApplyReport>> plans;
    int rc = kExitOk;
    for (NMConnection *c : active) {
        const char *uuid = nm_connection_get_uuid(c);
        const char *device = ibnm_settings_get_active_device(s, uuid);
        Outcome o{nm_connection_get_id(c), "networkmanager-deactivate", device ? device : "", "", "", true};
        if (ctx.options.dryRun) {
            const char *path = ibnm_settings_get_active_path(s, uuid);
            o.detail = format(_("NetworkManager would deactivate the profile (D-Bus active path: %s)"), path);
            if (textOutput(ctx))
                std::printf(
                    _("Dry run: NetworkManager would be asked to deactivate '%s' (%s; D-Bus active path: %s).\n"),
                    shown(o.profile.c_str()).c_str(), uuid, path);
            int hook = dryRunHook(ctx, c, false, plans);
            o.ok = hook == kExitOk;
            rc = rc != kExitOk ? rc : hook;
            outcomes.push_back(std::move(o));
            continue;
        }
        ErrorPtr err;
        GStrvPtr paths(ibnm_settings_deactivate(s, uuid, wait, Out(err)));
        if (paths) {
            o.detail = _("NetworkManager deactivated the profile");
            // With --wait 0 nmcli says nothing: the deactivation goes on.
            for (char **path = paths.get(); textOutput(ctx) && wait > 0 && *path; path++)
                std::printf(_("Connection '%s' successfully deactivated (D-Bus active path: %s)\n"),
                            shown(o.profile.c_str()).c_str(), *path);
        } else {
            o.ok = false;
            o.error = err->message;
            o.detail = _("NetworkManager did not deactivate the profile");
            bool gone = err->domain == IBNM_ERROR && err->code == IBNM_ERROR_NOT_FOUND;
            rc = rc != kExitOk ? rc : gone ? kExitNotFound : nmErrorStatus(err.get(), kExitDeactivationFailed);
            if (textOutput(ctx))
                printNmError(err.get());
        }
        outcomes.push_back(std::move(o));
    }
    if (!textOutput(ctx))
        printJson(ctx, outcomes, plans);
    else if (ctx.options.dryRun)
        std::printf("%s", _("Dry run: nothing was changed.\n"));
    if (missing) {
        std::fprintf(stderr, "%s\n", _("Error: not all active connections found."));
        rc = rc != kExitOk ? rc : kExitNotFound;
    }
    return rc;
}

} // namespace

int upDownThroughNetworkManager(Context &ctx, const Args &args, bool up)
{
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    Selection sel;
    if (int rc = parse(s, args, up, sel); rc >= 0)
        return rc;
    return up ? upThroughNetworkManager(ctx, s, sel) : downThroughNetworkManager(ctx, s, sel);
}

bool activatesThroughNetworkManager(Context &ctx, IbnmSettings *store)
{
    // Only this machine's NetworkManager can activate on this machine: a
    // simulated host or a sysfs tree is ibnm's own work.
    return g_strcmp0(ibnm_settings_get_backend_name(store), "networkmanager") == 0 && !ctx.hostChosen();
}

} // namespace ibnm::cli
