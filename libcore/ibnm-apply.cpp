// SPDX-License-Identifier: LGPL-2.1-or-later
// The apply entry points: ibnm_apply_up(), ibnm_apply_down() and
// ibnm_apply_host_files(), and runApply(), every apply's one path (the report
// is in ibnm-apply-report.cpp, the record of active profiles in
// ibnm-apply-active.cpp).
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/ibnm-host-digest.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/raii.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

G_DEFINE_FLAGS_TYPE(IbnmApplyFlags, ibnm_apply_flags,
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_NONE, "none"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_DRY_RUN, "dry-run"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_NO_IP, "no-ip"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_RDMA_ONLY, "rdma-only"))

using ibnm::apply::toVector;
using ibnm::apply::wrap;

namespace ibnm::apply {

std::vector<NMConnection *> toVector(GPtrArray *a)
{
    std::vector<NMConnection *> v;
    if (a)
        for (guint i = 0; i < a->len; i++)
            v.push_back(NM_CONNECTION(g_ptr_array_index(a, i)));
    return v;
}

ibnm::Status underActivationLock(IbnmHost *host, platform::Platform &platform, bool dryRun, IbnmApplyReport **out,
    const std::function<Result<activation::Report>()> &work)
{
    UniqueFd activationLock;
    if (!dryRun) {
        auto lock = platform.lockActivations(hostLockDeadline(host));
        if (!lock.ok())
            return std::move(lock).error();
        activationLock = std::move(lock).value();
    }
    auto report = work();
    if (!report.ok())
        return std::move(report).error();
    bool ok = report->ok;
    std::optional<Error> failure = report->failure;
    std::string message = report->error;
    IbnmError code = report->errorCode;
    if (out)
        *out = wrap(std::move(report).value());
    if (!ok)
        return failure ? *failure : Error(code, message);
    return {};
}

// `selected` and the bond profiles of its ports whose bond is not on the host.
std::vector<NMConnection *> withMissingBonds(std::vector<NMConnection *> selected,
                                             const std::vector<NMConnection *> &everything, const ibnm::model::Host &host)
{
    std::vector<NMConnection *> add;
    for (NMConnection *c : selected) {
        NMSettingConnection *sc = nm_connection_get_setting_connection(c);
        const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
        if (master == nullptr || g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) != 0)
            continue;
        for (NMConnection *b : everything) {
            if (g_strcmp0(nm_connection_get_connection_type(b), NM_SETTING_BOND_SETTING_NAME) != 0)
                continue;
            const char *ifname = nm_connection_get_interface_name(b);
            if (g_strcmp0(ifname, master) != 0 && g_strcmp0(nm_connection_get_uuid(b), master) != 0)
                continue;
            if ((ifname == nullptr || host.findBond(ifname) == nullptr) &&
                std::find(selected.begin(), selected.end(), b) == selected.end() &&
                std::find(add.begin(), add.end(), b) == add.end())
                add.push_back(b);
        }
    }
    selected.insert(selected.end(), add.begin(), add.end());
    return selected;
}

// Loads what the profiles' RDMA settings need of the kernel before the first
// step (the modules of their soft links; configfs and rdma_cm for RoCE
// defaults), as modprobe would have on a host set up by hand. Errors name
// the property that needed it.
ibnm::Status prepareFor(ibnm::platform::Platform &platform, const ibnm::activation::Desired &desired)
{
    for (const auto &r : desired.rdma) {
        if (r.linkType) {
            ibnm::platform::Prerequisites needs;
            needs.softLinkDrivers.insert(*r.linkType);
            if (auto st = platform.prepare(needs); !st)
                return std::move(st).error().withContext(r.names.linkType);
        }
        if (r.roceMode || r.roceTos) {
            ibnm::platform::Prerequisites needs;
            needs.rdmaCmConfigfs = true;
            if (auto st = platform.prepare(needs); !st)
                return std::move(st).error().withContext(r.roceMode ? r.names.roceMode : r.names.roceTos);
        }
    }
    return {};
}

} // namespace ibnm::apply

using ibnm::apply::prepareFor;
using ibnm::apply::withMissingBonds;

// Every apply's one path. Up refuses, before it changes anything, what the
// request's rules find (for profiles: what `ibnm check` finds on this host,
// which asks the same planner, so the two always agree); the error keeps its
// code and names the profile and property.
gboolean ibnm::runApply(IbnmHost *host, IbnmApplyFlags flags, const ApplyRequest &request, IbnmApplyReport **out,
                        GError **error)
{
    return ibnm::guard(error, [&]() -> ibnm::Status {
        bool goingUp = request.goingUp;
        // With a deadline (the dispatcher hook's), a change after it is
        // refused and the engine undoes what was done.
        auto deadline = ibnm::hostDeadlinePlatform(host);
        auto &platform = deadline ? *deadline : ibnm::hostPlatform(host);
        bool dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
        return ibnm::apply::underActivationLock(host, platform, dryRun, out, [&]() -> ibnm::Result<ibnm::activation::Report> {
            auto snapshot = platform.readHost();
            if (!snapshot.ok())
                return std::move(snapshot).error();
            auto desired = request.resolve(*snapshot);
            if (!desired.ok())
                return std::move(desired).error();
            // systemd-resolved's state, where up gives it DNS (readHost()
            // does not ask: a D-Bus call only these profiles need).
            if (goingUp && !snapshot->resolver && ibnm::activation::needsResolver(*desired)) {
                auto resolver = platform.readResolver();
                if (!resolver.ok())
                    return std::move(resolver).error();
                snapshot->resolver = std::move(resolver).value();
            }
            ibnm::activation::Options options;
            options.dryRun = dryRun;
            options.rdmaOnly = flags & IBNM_APPLY_FLAGS_RDMA_ONLY;
            options.keep = goingUp ? request.keep : nullptr;
            if (goingUp && request.refuse) {
                if (std::optional<ibnm::Error> e = request.refuse(*snapshot)) {
                    ibnm::activation::Report refused;
                    refused.ok = false;
                    refused.error = e->toString();
                    refused.errorCode = e->code();
                    refused.failure = *e;
                    return refused;
                }
            }
            // The modules and configfs the RDMA settings need, once the
            // plan is made (a request the planner refuses loads nothing;
            // nothing to load for a dry run, an empty plan or down).
            if (goingUp)
                options.prepare = [&platform, &desired]() { return prepareFor(platform, *desired); };
            auto report = goingUp ? ibnm::activation::up(platform, *snapshot, *desired, options)
                                  : ibnm::activation::down(platform, *desired, options);
            if (report.ok && !options.dryRun && request.applied)
                request.applied();
            if (report.ok && report.steps.empty() && request.settled)
                request.settled(*snapshot);
            return report;
        });
    });
}

namespace {

gboolean runProfilesOnce(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags, bool goingUp,
                         IbnmApplyReport **out, GError **error,
                         const std::function<void(const ibnm::model::Host &)> &settled,
                         ibnm::activation::UndoLog *keep);

} // namespace

// The run, and when it found the host already in the state asked (no step
// planned), the report's host digest (ibnm_apply_report_get_host_digest()),
// with the active-connection records as the run left them.
gboolean ibnm::apply::runProfiles(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags,
                                  bool goingUp, IbnmApplyReport **out, GError **error,
                                  const std::function<void(const model::Host &)> &settled,
                                  activation::UndoLog *keep)
{
    std::optional<std::string> found;
    auto capture = [&found, &settled](const model::Host &h) {
        found = hostCanonicalText(h);
        if (settled)
            settled(h);
    };
    IbnmApplyReport *report = nullptr;
    gboolean ok = runProfilesOnce(host, profiles, all, flags, goingUp, &report, error, capture, keep);
    if (ok && report && found)
        if (auto digest = hostStateDigestOfText(host, *found))
            setHostDigest(report, std::move(*digest));
    if (out)
        *out = report;
    else if (report)
        g_object_unref(report);
    return ok;
}

namespace {

// ibnm_apply_up() and ibnm_apply_down() of profiles: standalone, as active
// connections (ibnm-apply-lifecycle.cpp); for NetworkManager's hook
// (rdma-only), which NetworkManager's own activation drives, what the
// profiles ask of RDMA, from the profiles alone; and for a transaction,
// what the profiles ask, kept in `keep` to be undone.
gboolean runProfilesOnce(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags, bool goingUp,
                         IbnmApplyReport **out, GError **error,
                         const std::function<void(const ibnm::model::Host &)> &settled,
                         ibnm::activation::UndoLog *keep)
{
    using namespace ibnm;
    using namespace ibnm::apply;
    auto selected = toVector(profiles);
    auto everything = all ? toVector(all) : selected;
    // A transaction (`keep`) is its own record of what it did, undone by
    // ibnm_transaction_undo(): no active connection is made for it.
    if (!(flags & IBNM_APPLY_FLAGS_RDMA_ONLY) && keep == nullptr)
        return runActive(host, std::move(selected), everything, flags, goingUp, out, error, settled);
    bool withIp = !(flags & (IBNM_APPLY_FLAGS_NO_IP | IBNM_APPLY_FLAGS_RDMA_ONLY));
    ibnm::ApplyRequest request;
    request.goingUp = goingUp;
    request.resolve = [&](const ibnm::model::Host &) {
        return ibnm::activation::resolve(selected, everything, withIp, withIp && goingUp);
    };
    request.settled = settled;
    request.keep = keep;
    return ibnm::runApply(host, flags, request, out, error);
}

} // namespace

/**
 * ibnm_apply_up:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles to bring up
 * @all_profiles: (element-type NM.Connection) (nullable): every known profile,
 *   to resolve a port's bond; NULL means @profiles
 * @report: (out) (optional) (transfer full): every step, set whether or not
 *   the apply succeeded (unless the profiles could not be resolved)
 * @flags: what to leave out, or a dry run
 * @error: return location for a #GError
 *
 * Brings the profiles' IPoIB interfaces, bonds and RDMA settings up as one
 * transaction: on failure everything done is undone and @error says why.
 *
 * In standalone mode (without %IBNM_APPLY_FLAGS_RDMA_ONLY) each profile
 * becomes an active connection, as NetworkManager 1.42 activates it
 * (ibnm_apply_get_active_connections(), docs/active-connections.md): the
 * activation's record says what it created and changed, with the values
 * to put back. A profile that is active with the settings it has changes
 * nothing that is already right; one whose settings changed since its
 * activation, and another profile active on a device these take, is taken
 * down first, in the same transaction.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a profile cannot be
 *   resolved or a step failed (then @report says what was undone)
 *
 * Since: 0.1
 */
gboolean ibnm_apply_up(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags,
                       IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(profiles != nullptr, FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    return ibnm::apply::runProfiles(host, profiles, all_profiles, flags, true, report, error, {});
}

/**
 * ibnm_apply_down:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles to take down
 * @all_profiles: (element-type NM.Connection) (nullable): every known
 *   profile, to resolve a port's bond; NULL means @profiles
 * @flags: what to leave out
 * @report: (out) (optional) (transfer full): every step
 * @error: return location for a #GError
 *
 * Takes the profiles' active connections down, transactionally: deletes
 * what their activations created and puts back what they changed, from
 * their records; the ports of a bond that goes down go down with it. The
 * host is read back to verify it; a failure undoes every step (re-created
 * children and bonds get their addresses and routes back) and @report says
 * whether it was all undone. With %IBNM_APPLY_FLAGS_RDMA_ONLY
 * (NetworkManager's hook, which keeps no active-connection record and
 * passes the profiles as it applied them), what the profiles' RDMA
 * settings would make, from the profiles alone.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a profile cannot be
 *   resolved, is not active (%IBNM_ERROR_NOT_ACTIVE: nothing was changed,
 *   as nmcli refuses to deactivate it) or a step failed (then @report says
 *   what was undone)
 *
 * Since: 0.1
 */
gboolean ibnm_apply_down(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags,
                         IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(profiles != nullptr, FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    return ibnm::apply::runProfiles(host, profiles, all_profiles, flags, false, report, error, {});
}
