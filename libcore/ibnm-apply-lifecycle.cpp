// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm_apply_up() and ibnm_apply_down() in standalone mode: profiles
// activated and deactivated as NetworkManager 1.42 does it, with an active
// connection per activation (activation/active.hpp, kept by ActiveStore).
// Under the activation lock, each is one transaction whose record is
// written with it: before the first step, what the activation may create
// or change (state "activating"); after the host verified, what it did
// (state "activated"); after a failure rolled back, the records as before.
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/active.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <set>

namespace ibnm::apply {

namespace {

using activation::ActiveRecord;
using activation::Desired;
using activation::Report;
using Records = std::map<std::string, ActiveRecord>;

// The UUIDs of the profiles `d` activates, in order.
std::vector<std::string> activatedUuids(const Desired &d)
{
    std::vector<std::string> out;
    auto add = [&](const activation::Origin &o) {
        if (!o.uuid.empty() && std::find(out.begin(), out.end(), o.uuid) == out.end())
            out.push_back(o.uuid);
    };
    for (const auto &x : d.ipoib)
        add(x.origin);
    for (const auto &x : d.bonds)
        add(x.origin);
    for (const auto &x : d.ethernet)
        add(x.origin);
    for (const auto &x : d.rdma)
        add(x.origin);
    return out;
}

NMConnection *byUuid(const std::vector<NMConnection *> &profiles, const std::string &uuid)
{
    for (NMConnection *c : profiles)
        if (g_strcmp0(nm_connection_get_uuid(c), uuid.c_str()) == 0)
            return c;
    return nullptr;
}

// The interfaces an activation occupies: its device, or while it is not
// complete, what it created and changed.
std::vector<std::string> occupied(const ActiveRecord &r)
{
    return r.device.empty() ? activation::interfacesOf(r) : std::vector<std::string>{r.device};
}

// The bond an activation made or is active on, if any.
std::string bondOf(const ActiveRecord &r, const model::Host &host)
{
    for (const auto &c : r.created)
        if (c.kind == activation::CreatedObject::Kind::Bond)
            return c.name;
    return host.findBond(r.device) ? r.device : std::string();
}

// The active connections of the ports of `bond` on `host`.
std::vector<const ActiveRecord *> portsOf(const Records &records, const std::string &bond, const model::Host &host)
{
    std::vector<const ActiveRecord *> out;
    for (const auto &[uuid, r] : records)
        if (const model::Netdev *nd = r.device.empty() ? nullptr : host.findNetdev(r.device))
            if (!bond.empty() && nd->master == bond)
                out.push_back(&r);
    return out;
}

struct UpPlan {
    std::vector<NMConnection *> selected;
    Desired desired;
    std::vector<std::string> uuids;
    std::vector<ActiveRecord> replaced;
};

// What `up` of `selected` takes down before it brings them up, as
// NetworkManager 1.42 re-activates (checked in the NM lab on veth
// devices):
// - a profile that is active with other settings than it has now: its old
//   activation (its child deleted, its addresses removed), then the new;
//   active with the same settings: nothing (a second `up` changes nothing);
// - a device has one active connection: another profile active on a device
//   one of these takes is deactivated (a port joining a bond loses the
//   addresses of its own earlier activation);
// - the ports of a bond that goes are deactivated with it (NetworkManager
//   releases a controller's ports); those whose profiles connect
//   automatically (connection.autoconnect) come up again with it.
Result<UpPlan> planUp(std::vector<NMConnection *> selected, const std::vector<NMConnection *> &everything,
                      const Records &records, const model::Host &host, bool withIp)
{
    UpPlan plan;
    std::set<std::string> forced; // replaced as ports of a bond that goes
    for (int round = 0; round < 8; round++) {
        auto desired = activation::resolve(selected, everything, withIp, withIp);
        if (!desired.ok())
            return std::move(desired).error();
        plan.desired = std::move(desired).value();
        plan.uuids = activatedUuids(plan.desired);
        plan.replaced.clear();
        std::set<std::string> devices, taken;
        for (const auto &u : plan.uuids)
            if (auto dev = activation::deviceOf(plan.desired, u, host))
                devices.insert(dev->first);
        auto replace = [&](const ActiveRecord &r) {
            if (taken.insert(r.uuid).second)
                plan.replaced.push_back(r);
        };
        for (const auto &u : plan.uuids) {
            auto it = records.find(u);
            NMConnection *c = byUuid(everything, u);
            if (it != records.end() && (forced.count(u) || !c || it->second.settings != activation::settingsDigest(c)))
                replace(it->second);
        }
        for (const auto &[uuid, r] : records) {
            if (std::find(plan.uuids.begin(), plan.uuids.end(), uuid) != plan.uuids.end())
                continue;
            for (const auto &name : occupied(r))
                if (devices.count(name))
                    replace(r);
        }
        bool grew = false;
        for (size_t i = 0; i < plan.replaced.size(); i++) {
            for (const ActiveRecord *port : portsOf(records, bondOf(plan.replaced[i], host), host)) {
                replace(*port);
                NMConnection *c = byUuid(everything, port->uuid);
                NMSettingConnection *sc = c ? nm_connection_get_setting_connection(c) : nullptr;
                if (forced.insert(port->uuid).second)
                    grew = true;
                if (sc && nm_setting_connection_get_autoconnect(sc) &&
                    std::find(selected.begin(), selected.end(), c) == selected.end()) {
                    selected.push_back(c);
                    grew = true;
                }
            }
        }
        if (!grew)
            break;
    }
    plan.selected = std::move(selected);
    return plan;
}

Report refusedReport(const Error &e)
{
    Report refused;
    refused.ok = false;
    refused.error = e.toString();
    refused.errorCode = e.code();
    refused.failure = e;
    return refused;
}

void noteUnsaved(Report &report, const ActiveRecord &r, const Status &st)
{
    report.notes.push_back({r.id, r.uuid,
                            strprintf(_("the record of the active connection could not be written: %s"),
                                      st.error().toString().c_str())});
}

// The records once the transaction is over. After success: what each
// activation did, as the host now shows it; the activations it replaced
// gone. After a failure that was rolled back, or that changed nothing: as
// before. Otherwise: what the host shows of each (never a record of
// nothing that claims an activation).
void settle(ActiveStore &store, const Records &before, const UpPlan &plan, const Records &pending, Report &report,
            platform::Platform &platform, bool written)
{
    auto after = platform.readHost();
    if (!report.ok && (report.rolledBack || report.operations == 0)) {
        // The records as before, naming what the rollback re-created (the
        // kernel gave it a new ifindex).
        for (const auto &r : plan.replaced)
            if (written || report.operations > 0)
                if (!pending.count(r.uuid) && after.ok())
                    if (Status st = store.save(activation::renew(r, *after)); !st.ok())
                        noteUnsaved(report, r, st);
        if (!written)
            return;
        for (const auto &[uuid, p] : pending) {
            auto old = before.find(uuid);
            if (old == before.end()) {
                store.remove(uuid);
                continue;
            }
            ActiveRecord r = after.ok() ? activation::renew(old->second, *after) : old->second;
            if (Status st = store.save(r); !st.ok())
                noteUnsaved(report, r, st);
        }
        return;
    }
    if (!after.ok())
        return; // the records written before the first step stay: a superset
    for (const auto &[uuid, p] : pending) {
        ActiveRecord r = activation::prune(activation::renew(p, *after), *after);
        if (report.ok) {
            r.state = ActiveRecord::State::Activated;
            auto dev = activation::deviceOf(plan.desired, uuid, *after);
            r.device = dev ? dev->first : std::string();
            r.ifindex = dev ? dev->second : 0;
        } else if (!r.owns() && before.count(uuid) == 0) {
            store.remove(uuid);
            continue;
        }
        if (Status st = store.save(r); !st.ok())
            noteUnsaved(report, r, st);
    }
    for (const auto &r : plan.replaced) {
        if (pending.count(r.uuid))
            continue;
        ActiveRecord left = activation::prune(activation::renew(r, *after), *after);
        if (report.ok || activation::gone(left, *after) || (!left.owns() && left.device.empty()))
            store.remove(r.uuid);
        else if (Status st = store.save(left); !st.ok())
            noteUnsaved(report, left, st);
    }
}

// `host` with systemd-resolved's state, where DNS is given or given back
// (readHost() does not ask: a D-Bus call only those need), as runApply().
Status withResolver(platform::Platform &platform, model::Host &host, bool needed)
{
    if (!needed || host.resolver)
        return {};
    auto resolver = platform.readResolver();
    if (!resolver.ok())
        return std::move(resolver).error();
    host.resolver = std::move(resolver).value();
    return {};
}

bool givesDns(const std::vector<ActiveRecord> &records)
{
    return std::any_of(records.begin(), records.end(), [](const ActiveRecord &r) { return !r.dns.empty(); });
}

Result<Report> activateProfiles(platform::Platform &platform, ActiveStore &store, const Records &records,
                                const model::Host &snapshotIn, const std::vector<NMConnection *> &selectedIn,
                                const std::vector<NMConnection *> &everything, IbnmApplyFlags flags,
                                const std::function<void(const model::Host &)> &settled)
{
    bool dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
    bool withIp = !(flags & IBNM_APPLY_FLAGS_NO_IP);
    // As NetworkManager activates a port's controller with it, a port
    // whose bond is not on the host brings its bond profile up too.
    auto planned = planUp(withMissingBonds(selectedIn, everything, snapshotIn), everything, records, snapshotIn, withIp);
    if (!planned.ok())
        return std::move(planned).error();
    const UpPlan &plan = *planned;
    model::Host snapshot = snapshotIn;
    if (Status st = withResolver(platform, snapshot, activation::needsResolver(plan.desired) || givesDns(plan.replaced));
        !st.ok())
        return std::move(st).error();
    model::Host after = activation::afterTeardown(snapshot, plan.replaced);
    // What `ibnm check` refuses, on the host as the teardown leaves it
    // (check asks the same planner), before anything changes.
    for (const auto &f : activation::checkProfiles(plan.selected, &after, &everything, withIp))
        if (f.severity == IBNM_SEVERITY_ERROR)
            return refusedReport(Error(f.code, f.message).withProfile(f.profileId.str()));
    // Each activation's record before its first step: what it may create or
    // change, with the values to restore (those of an earlier activation
    // of the profile win: they are from before it).
    auto isReplaced = [&](const std::string &u) {
        return std::any_of(plan.replaced.begin(), plan.replaced.end(), [&](const ActiveRecord &x) { return x.uuid == u; });
    };
    Records pending;
    for (const auto &u : plan.uuids) {
        NMConnection *c = byUuid(everything, u);
        ActiveRecord r = activation::footprint(plan.desired, u, after);
        r.settings = c ? activation::settingsDigest(c) : std::string();
        if (c && nm_connection_get_id(c))
            r.id = nm_connection_get_id(c);
        auto old = records.find(u);
        bool kept = old != records.end() && !isReplaced(u);
        if (old != records.end())
            r = activation::merge(old->second, std::move(r));
        r.state = kept ? old->second.state : ActiveRecord::State::Activating;
        r.device = kept ? old->second.device : std::string();
        r.ifindex = kept ? old->second.ifindex : 0;
        pending.emplace(u, std::move(r));
    }
    bool written = false;
    activation::Options options;
    options.dryRun = dryRun;
    options.prepare = [&]() -> Status {
        written = true;
        for (const auto &[uuid, r] : pending)
            if (Status st = store.save(r); !st.ok())
                return st;
        return prepareFor(platform, plan.desired);
    };
    Report report = activation::reactivate(platform, snapshot, plan.replaced, plan.desired, options);
    if (dryRun)
        return report;
    if (report.ok && report.steps.empty()) {
        if (settled)
            settled(snapshot);
        // Active now, with nothing to change (the host was as the profile
        // says): a record of the activation, owning nothing new; the
        // activations it replaced (nothing of theirs left to take down)
        // end.
        for (const auto &r : plan.replaced)
            if (!pending.count(r.uuid))
                store.remove(r.uuid);
        for (const auto &[uuid, p] : pending) {
            auto old = records.find(uuid);
            if (old != records.end() && old->second.state == ActiveRecord::State::Activated && !isReplaced(uuid))
                continue;
            ActiveRecord r = activation::prune(p, snapshot);
            r.state = ActiveRecord::State::Activated;
            auto dev = activation::deviceOf(plan.desired, uuid, snapshot);
            r.device = dev ? dev->first : std::string();
            r.ifindex = dev ? dev->second : 0;
            if (Status st = store.save(r); !st.ok())
                noteUnsaved(report, r, st);
        }
        return report;
    }
    settle(store, records, plan, pending, report, platform, written);
    return report;
}

Result<Report> deactivateProfiles(platform::Platform &platform, ActiveStore &store, const Records &records,
                                  const model::Host &snapshotIn, const std::vector<NMConnection *> &selected,
                                  IbnmApplyFlags flags, const std::function<void(const model::Host &)> &settled)
{
    model::Host snapshot = snapshotIn;
    // As nmcli: `down` of a profile that is not active is an error and
    // changes nothing ("Error: 'X' is not an active connection.", exit 10;
    // checked in the NM lab).
    std::vector<ActiveRecord> chosen;
    for (NMConnection *c : selected) {
        const char *uuid = nm_connection_get_uuid(c);
        auto it = uuid ? records.find(uuid) : records.end();
        if (it == records.end())
            return Error(IBNM_ERROR_NOT_ACTIVE,
                         strprintf(_("'%s' is not an active connection"), nm_connection_get_id(c)));
        if (std::none_of(chosen.begin(), chosen.end(), [&](const ActiveRecord &r) { return r.uuid == uuid; }))
            chosen.push_back(it->second);
    }
    // A base's RDMA secondaries are deactivated with it (NetworkManager
    // deactivates the VPN connections on a device that goes down; checked in
    // the kernel lab: tests/kernel/nm-vpn-guest.sh).
    for (NMConnection *c : selected) {
        NMSettingConnection *sc = nm_connection_get_setting_connection(c);
        guint n = sc ? nm_setting_connection_get_num_secondaries(sc) : 0;
        for (guint i = 0; i < n; i++) {
            const char *secondary = nm_setting_connection_get_secondary(sc, i);
            auto it = secondary ? records.find(secondary) : records.end();
            if (it != records.end() &&
                std::none_of(chosen.begin(), chosen.end(), [&](const ActiveRecord &r) { return r.uuid == secondary; }))
                chosen.push_back(it->second);
        }
    }
    Report notes;
    // A bond's ports are deactivated with it (NetworkManager releases a
    // controller's ports when it deactivates).
    for (size_t i = 0; i < chosen.size(); i++)
        for (const ActiveRecord *port : portsOf(records, bondOf(chosen[i], snapshot), snapshot))
            if (std::none_of(chosen.begin(), chosen.end(), [&](const ActiveRecord &r) { return r.uuid == port->uuid; })) {
                notes.notes.push_back({port->id, port->device,
                                       strprintf(_("deactivated with its bond %s"), bondOf(chosen[i], snapshot).c_str())});
                chosen.push_back(*port);
            }
    if (Status st = withResolver(platform, snapshot, givesDns(chosen)); !st.ok())
        return std::move(st).error();
    activation::Options options;
    options.dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
    Report report = activation::deactivate(platform, snapshot, chosen, options);
    report.notes.insert(report.notes.begin(), notes.notes.begin(), notes.notes.end());
    if (options.dryRun)
        return report;
    if (report.ok) {
        if (report.steps.empty() && settled)
            settled(snapshot);
        for (const auto &r : chosen)
            store.remove(r.uuid);
        return report;
    }
    if (report.operations == 0)
        return report;
    // Rolled back: the activations stay, naming what the rollback
    // re-created (with new ifindexes). Not all put back: each record keeps
    // what the host still shows of it.
    if (auto after = platform.readHost(); after.ok())
        for (const auto &r : chosen) {
            ActiveRecord kept = activation::renew(r, *after);
            if (!report.rolledBack)
                kept = activation::prune(kept, *after);
            if (Status st = store.save(kept); !st.ok())
                noteUnsaved(report, kept, st);
        }
    return report;
}

} // namespace

std::vector<ActiveRecord> replacedBy(IbnmHost *owner, const model::Host &host,
                                     const std::vector<NMConnection *> &profiles)
{
    ActiveStore store(owner);
    if (store.read().empty())
        return {}; // nothing active: nothing to read or resolve
    Records records = store.current(host, false);
    auto plan = planUp(withMissingBonds(profiles, profiles, host), profiles, records, host, true);
    return plan.ok() ? plan->replaced : std::vector<ActiveRecord>{};
}

gboolean runActive(IbnmHost *host, std::vector<NMConnection *> selected, const std::vector<NMConnection *> &everything,
                   IbnmApplyFlags flags, bool goingUp, IbnmApplyReport **out, GError **error,
                   const std::function<void(const model::Host &)> &settled)
{
    return guard(error, [&]() -> Status {
        // With a deadline (the dispatcher hook's), a change after it is
        // refused and the engine undoes what was done.
        auto deadline = hostDeadlinePlatform(host);
        auto &platform = deadline ? *deadline : hostPlatform(host);
        bool dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
        return underActivationLock(host, platform, dryRun, out, [&]() -> Result<Report> {
            auto snapshot = platform.readHost();
            if (!snapshot.ok())
                return std::move(snapshot).error();
            ActiveStore store(host);
            // Under the lock, what a killed ibnm left is tidied (a dry run
            // changes nothing, records included).
            Records records = store.current(*snapshot, !dryRun);
            if (goingUp)
                return activateProfiles(platform, store, records, *snapshot, selected, everything, flags, settled);
            return deactivateProfiles(platform, store, records, *snapshot, selected, flags, settled);
        });
    });
}

} // namespace ibnm::apply
