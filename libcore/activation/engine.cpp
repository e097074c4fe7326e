// SPDX-License-Identifier: LGPL-2.1-or-later
// The executor: runs a plan's steps through the platform, reads the host
// back to verify what the profiles asked, and on any failure undoes what it
// did in reverse order; up() and down() (the plans: planner*.cpp).
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/activation/host-diff.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/progress.hpp"

namespace ibnm::activation::detail {

// Undoes the steps that ran, in reverse order. The report says the host is
// as before only if every step that changed it was undone (by its own undo,
// or by the deletion of the object it configured) and, given the host as it
// was (`before`), the host read back equals it; otherwise it lists what
// differs (Report::notRestored).
void rollback(Platform &platform, std::vector<Step> &steps, size_t end, Report &report, const Host *before)
{
    for (size_t j = end; j-- > 0;) {
        Step &s = steps[j];
        if (s.rec.state != StepState::Done || !s.undo)
            continue;
        report.operations++;
        Status st = s.undo(platform);
        if (st.ok()) {
            s.rec.state = StepState::Undone;
        } else {
            s.rec.state = StepState::UndoFailed;
            s.rec.error = st.error().toString();
        }
    }
    bool all = true;
    for (size_t j = 0; j < end; j++) {
        Step &s = steps[j];
        if (s.rec.state == StepState::Done && s.removed && *s.removed)
            s.rec.state = StepState::Undone;
        all = all && (s.rec.state == StepState::Undone || s.rec.state == StepState::Planned ||
                      s.rec.state == StepState::Failed);
    }
    if (before != nullptr) {
        auto after = platform.readHost();
        if (after.ok())
            report.notRestored = hostDifferences(*before, *after);
        else
            report.notRestored.push_back(
                strprintf(_("the host could not be read back: %s"), after.error().toString().c_str()));
        all = all && report.notRestored.empty();
    }
    report.rolledBack = all;
}

// Runs the steps in order; the first failure stops the run and undoes the
// steps done so far. Returns false on failure (report says why).
bool execute(Platform &platform, std::vector<Step> &steps, Report &report, const Host *before)
{
    for (size_t i = 0; i < steps.size(); i++) {
        Step &s = steps[i];
        report.operations++;
        Status st = s.run(platform);
        if (st.ok()) {
            s.rec.state = StepState::Done;
            progress::count(unsigned(i + 1), unsigned(steps.size()));
            continue;
        }
        s.rec.state = StepState::Failed;
        s.rec.error = st.error().toString();
        report.ok = false;
        report.error = s.rec.error;
        report.errorCode = st.error().code();
        report.failure = st.error();
        rollback(platform, steps, i, report, before);
        return false;
    }
    return true;
}

void finish(std::vector<Step> &steps, Report &report)
{
    report.steps.reserve(report.steps.size() + steps.size());
    for (auto &s : steps) {
        if (s.kernelName && !s.kernelName->empty())
            s.rec.object = *s.kernelName;
        report.steps.push_back(std::move(s.rec));
    }
}
namespace {

// What verifyUp() returns for the first thing that does not hold.
Error verificationFailed(const std::string &origin, const std::string &object, std::string what)
{
    return Error(IBNM_ERROR_PLATFORM, strprintf(_("verification failed: %s"), what.c_str()))
        .withContext(object)
        .withProfile(origin);
}

// The addresses and routes of ifname are those the profile asks.
Status verifyIp(const std::string &origin, const std::string &ifname, const model::Netdev *nd, const DesiredIp &ip)
{
    for (const auto &a : ip.addresses)
        if (!nd || !contains(nd->addresses, a))
            return verificationFailed(origin, ifname, strprintf(_("no address %s"), a.c_str()));
    if (nd)
        for (const auto &a : nd->addresses)
            if (ip.manages(a) && !contains(ip.addresses, a))
                return verificationFailed(origin, ifname, strprintf(_("address %s is not in the profile"), a.c_str()));
    for (const auto &r : ip.routes)
        if (!nd || std::find(nd->routes.begin(), nd->routes.end(), r) == nd->routes.end())
            return verificationFailed(origin, ifname, strprintf(_("no route %s"), model::formatRoute(r).c_str()));
    return {};
}

// A port has the MTU bond_enslave() gives it from its bond.
Status verifyPortMtu(const model::HostIndex &hi, const std::string &origin, const std::string &ifname,
                     const model::Netdev *nd, const std::string &bond, IpoibMode mode, const model::Port *port)
{
    const auto *b = hi.findNetdev(bond);
    if (!nd || !b)
        return {};
    auto want = model::portMtuAtEnslave(b->mtu, mode, port);
    if (want.ok() && nd->mtu != *want)
        return verificationFailed(origin, ifname, strprintf(_("MTU is %u, expected %u (the bond's)"), nd->mtu, *want));
    return {};
}

// An IPoIB interface: there, with its mode, umcast and MTU, in its bond
// (with the bond's MTU) or up with its addresses and routes.
Status verifyIpoib(const Planner &lookup, const model::HostIndex &hi, const DesiredIpoib &x)
{
    const model::IpoibNetdev *cur = lookup.find(x);
    std::string object = x.ifname.empty() ? x.macAddress : x.ifname;
    if (cur == nullptr)
        return verificationFailed(x.origin.id, object, _("the interface does not exist"));
    if (cur->mode != x.mode)
        return verificationFailed(x.origin.id, cur->name,
                        strprintf(_("transport mode is %s, not %s"), model::modeName(cur->mode),
                                  model::modeName(x.mode)));
    if (x.umcast && cur->umcast != *x.umcast)
        return verificationFailed(x.origin.id, cur->name, _("umcast was not set"));
    const auto *nd = hi.findNetdev(cur->name);
    unsigned mtu = nd ? nd->mtu : cur->mtu;
    const model::Port *port = model::portOf(hi, cur->name);
    if (x.master.empty() && nd && !nd->master.empty())
        return verificationFailed(x.origin.id, cur->name, strprintf(_("still a port of %s"), nd->master.c_str()));
    if (x.mtu != 0 && x.master.empty()) {
        auto eff = model::effectiveMtu(x.mtu, x.mode, port);
        if (eff.ok() && mtu != *eff)
            return verificationFailed(x.origin.id, cur->name, strprintf(_("MTU is %u, expected %u"), mtu, *eff));
    }
    if (!x.master.empty()) {
        if (!nd || nd->master != x.master)
            return verificationFailed(x.origin.id, cur->name, strprintf(_("not a port of %s"), x.master.c_str()));
        return verifyPortMtu(hi, x.origin.id, cur->name, nd, x.master, x.mode, port);
    }
    if (nd && !nd->up)
        return verificationFailed(x.origin.id, cur->name, _("the link is down"));
    return verifyIp(x.origin.id, cur->name, nd, x.ip);
}

// An Ethernet interface: there, in its bond, or out of any with its MTU,
// up, with its addresses and routes.
Status verifyEthernet(const model::HostIndex &hi, const DesiredEthernet &x)
{
    const auto *nd = hi.findNetdev(x.ifname);
    if (nd == nullptr)
        return verificationFailed(x.origin.id, x.ifname, _("the interface does not exist"));
    if (!x.master.empty()) {
        if (nd->master != x.master)
            return verificationFailed(x.origin.id, x.ifname, strprintf(_("not a port of %s"), x.master.c_str()));
        return {};
    }
    if (!nd->master.empty())
        return verificationFailed(x.origin.id, x.ifname, strprintf(_("still a port of %s"), nd->master.c_str()));
    if (x.mtu != 0 && nd->mtu != x.mtu)
        return verificationFailed(x.origin.id, x.ifname, strprintf(_("MTU is %u, expected %u"), nd->mtu, x.mtu));
    if (!nd->up)
        return verificationFailed(x.origin.id, x.ifname, _("the link is down"));
    return verifyIp(x.origin.id, x.ifname, nd, x.ip);
}

// A bond: there with its mode, miimon, primary and MTU, up, with its
// addresses and routes.
Status verifyBond(const model::HostIndex &hi, const DesiredBond &b)
{
    const model::Bond *cur = hi.findBond(b.ifname);
    if (cur == nullptr)
        return verificationFailed(b.origin.id, b.ifname, _("the bond does not exist"));
    if (cur->mode != b.mode)
        return verificationFailed(b.origin.id, b.ifname, strprintf(_("bond mode is %s"), cur->mode.c_str()));
    if (b.miimon && cur->miimon != *b.miimon)
        return verificationFailed(b.origin.id, b.ifname, strprintf(_("bond miimon is %u"), cur->miimon));
    if (!b.primary.empty() && cur->primary != b.primary)
        return verificationFailed(b.origin.id, b.ifname,
                        strprintf(_("bond primary is %s"), cur->primary.empty() ? "-" : cur->primary.c_str()));
    const auto *nd = hi.findNetdev(b.ifname);
    if (b.mtu != 0 && nd && nd->mtu != b.mtu)
        return verificationFailed(b.origin.id, b.ifname, strprintf(_("MTU is %u, expected %u"), nd->mtu, b.mtu));
    if (nd && !nd->up)
        return verificationFailed(b.origin.id, b.ifname, _("the link is down"));
    return verifyIp(b.origin.id, b.ifname, nd, b.ip);
}

// RDMA settings: the soft link there, then on its port (or the typed
// call's, or the netdev's) each RoCE default, traffic class, TTL, rule and
// roce_enable the profile sets.
Status verifyRdma(const Host &h, const model::HostIndex &hi, const DesiredRdma &r)
{
    std::string device;
    unsigned portNo = 1;
    if (r.linkType) {
        const model::SoftLink *l = h.findSoftLink(r.linkName);
        if (l == nullptr || l->netdev != r.netdev || l->type != *r.linkType)
            return verificationFailed(r.origin.id, r.linkName, _("the RDMA link does not exist"));
        device = r.linkName;
    } else if (!r.device.empty()) {
        device = r.device;
        portNo = r.port;
    } else if (const auto *nd = hi.findNetdev(r.netdev)) {
        device = nd->rdmaDevice;
        portNo = nd->rdmaPort;
    }
    const model::Device *dev = hi.findDevice(device);
    const model::Port *port = nullptr;
    if (dev)
        for (const auto &p : dev->ports)
            if (p.number == portNo)
                port = &p;
    std::string object = strprintf("%s/%u", device.c_str(), portNo);
    if (port == nullptr)
        return verificationFailed(r.origin.id, object, _("the RDMA port does not exist"));
    if (r.roceMode && port->defaultRoceMode != r.roceMode)
        return verificationFailed(r.origin.id, object, _("the default RoCE mode was not set"));
    if (r.roceTos && port->defaultRoceTos != r.roceTos)
        return verificationFailed(r.origin.id, object, _("the default RoCE ToS was not set"));
    if (r.trafficClass && port->trafficClass != r.trafficClass)
        return verificationFailed(r.origin.id, object, _("the traffic class was not set"));
    if (r.clearTrafficClass && port->trafficClass)
        return verificationFailed(r.origin.id, object, _("the traffic class was not disabled"));
    if (r.ttl && port->ttl != r.ttl)
        return verificationFailed(r.origin.id, object, _("the TTL was not set"));
    for (const auto &rule : r.tcRules) {
        bool found = false;
        for (const auto &cur : port->tcRules)
            found = found || (rule.tclass < 0 ? cur.sameMatch(rule) : cur == rule);
        if (found != (rule.tclass >= 0))
            return verificationFailed(r.origin.id, object,
                            strprintf(_("the traffic class rule %s does not hold"), model::formatTcRule(rule).c_str()));
    }
    if (r.roceEnable && dev->roceEnabled != r.roceEnable)
        return verificationFailed(r.origin.id, device, _("roce_enable was not set"));
    return {};
}

} // namespace

// Reads what the kernel now has and checks every object the profiles asked
// for, in stages: IPoIB, Ethernet, bonds (not with rdmaOnly), RDMA. The
// first mismatch is the error.
Status verifyUp(const Host &h, const Desired &d, bool rdmaOnly)
{
    Report scratch;
    Planner lookup(h, scratch);
    model::HostIndex hi(h);
    if (!rdmaOnly) {
        for (const auto &x : d.ipoib)
            if (Status s = verifyIpoib(lookup, hi, x); !s.ok())
                return s;
        for (const auto &x : d.ethernet)
            if (Status s = verifyEthernet(hi, x); !s.ok())
                return s;
        for (const auto &b : d.bonds)
            if (Status s = verifyBond(hi, b); !s.ok())
                return s;
    }
    for (const auto &r : d.rdma)
        if (Status s = verifyRdma(h, hi, r); !s.ok())
            return s;
    return {};
}

Report planningFailed(Report report, Error e)
{
    report.ok = false;
    report.error = e.toString();
    report.errorCode = e.code();
    report.failure = std::move(e);
    return report;
}

} // namespace ibnm::activation::detail

namespace ibnm::activation {

using detail::execute;
using detail::finish;
using detail::makeDownPlan;
using detail::makePlan;
using detail::planningFailed;
using detail::rollback;
using detail::Step;
using detail::verifyUp;
using model::Host;
using platform::Platform;

struct UndoLog::Steps {
    std::vector<Step> steps;
    Host before; // the host the steps were planned on
};

Report up(Platform &platform, const Desired &desired, const Options &options)
{
    auto host = platform.readHost();
    if (!host.ok())
        return planningFailed(Report{}, std::move(host).error());
    return up(platform, *host, desired, options);
}

Report up(Platform &platform, const Host &host, const Desired &desired, const Options &options)
{
    Report report;
    auto planned = makePlan(host, desired, options, report);
    if (!planned.ok())
        return planningFailed(std::move(report), std::move(planned).error());
    std::vector<Step> &steps = *planned;
    if (!options.dryRun && !steps.empty() && options.prepare)
        if (Status st = options.prepare(); !st.ok())
            return planningFailed(std::move(report), std::move(st).error());
    if (!options.dryRun && !steps.empty() && execute(platform, steps, report, &host)) {
        auto after = platform.readHost();
        Status verified =
            after.ok() ? verifyUp(*after, desired, options.rdmaOnly) : Status(std::move(after).error());
        if (!verified.ok()) {
            report.ok = false;
            report.error = verified.error().toString();
            report.errorCode = verified.error().code();
            report.failure = verified.error();
            rollback(platform, steps, steps.size(), report, &host);
        } else if (options.keep) {
            options.keep->steps_ = std::make_unique<UndoLog::Steps>(UndoLog::Steps{steps, host});
        }
    }
    finish(steps, report);
    return report;
}

UndoLog::UndoLog() = default;
UndoLog::~UndoLog() = default;
UndoLog::UndoLog(UndoLog &&) noexcept = default;
UndoLog &UndoLog::operator=(UndoLog &&) noexcept = default;

bool UndoLog::empty() const
{
    return !steps_ || steps_->steps.empty();
}

std::vector<StepRecord> UndoLog::records() const
{
    std::vector<StepRecord> out;
    if (steps_)
        for (const auto &s : steps_->steps)
            out.push_back(s.rec);
    return out;
}

Report UndoLog::undo(Platform &platform)
{
    Report report;
    if (empty())
        return report;
    std::vector<Step> steps = std::move(steps_->steps);
    Host before = std::move(steps_->before);
    steps_.reset();
    rollback(platform, steps, steps.size(), report);
    // Judged by reading back what the steps touched, as a rollback is (the
    // rest of the host may have changed since, for other reasons).
    std::vector<std::string> touched;
    for (const auto &s : steps)
        touched.push_back(s.rec.object);
    if (auto after = platform.readHost(); after.ok())
        report.notRestored = hostDifferences(restrictedTo(before, touched), restrictedTo(*after, touched));
    else
        report.notRestored.push_back(
            strprintf(_("the host could not be read back: %s"), after.error().toString().c_str()));
    report.rolledBack = report.rolledBack && report.notRestored.empty();
    for (const auto &s : steps) {
        if (s.rec.state != StepState::UndoFailed)
            continue;
        report.ok = false;
        report.error = s.rec.error;
        report.errorCode = IBNM_ERROR_PLATFORM;
        break;
    }
    if (report.ok && !report.notRestored.empty()) {
        report.ok = false;
        report.error = strprintf(_("undone, but not as it was: %s"), report.notRestored.front().c_str());
        report.errorCode = IBNM_ERROR_PLATFORM;
    }
    finish(steps, report);
    return report;
}

Report down(Platform &platform, const Desired &desired, const Options &options)
{
    Report report;
    auto hostR = platform.readHost();
    if (!hostR.ok())
        return planningFailed(std::move(report), std::move(hostR).error());
    std::vector<Step> steps = makeDownPlan(*hostR, desired, options, report);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report, &*hostR);
    finish(steps, report);
    return report;
}

} // namespace ibnm::activation
