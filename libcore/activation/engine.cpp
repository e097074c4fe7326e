// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/activation/engine.hpp"

#include "libcore/internal/host-index.hpp"
#include "libcore/internal/i18n.hpp"
#include "libcore/internal/strings.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

namespace ibnm::activation {

using model::Host;
using model::IpoibMode;
using platform::Platform;

namespace {

using Op = std::function<Status(Platform &)>;

struct Step {
    StepRecord rec;
    Op run;
    Op undo; // empty: nothing to undo
};

const char *modeName(IpoibMode m)
{
    return m == IpoibMode::Connected ? "connected" : "datagram";
}

const char *roceModeName(model::RoceMode m)
{
    return m == model::RoceMode::V1 ? "IB/RoCE v1" : "RoCE v2";
}

std::string pkeyHex(uint16_t p)
{
    return strprintf("0x%04x", p);
}

// The last 8 bytes (port GUID) of a 20-byte IPoIB hardware address, lower
// case, or "" when the address is not one.
std::string guidPart(const std::string &address)
{
    if (address.size() != 59)
        return {};
    std::string g = address.substr(36);
    for (auto &c : g)
        c = g_ascii_tolower(c);
    return g;
}

class Planner {
public:
    Planner(const Host &host, Report &report, bool rdmaOnly = false)
        : host_(host), index_(host), report_(report), rdmaOnly_(rdmaOnly)
    {
    }

    // Lookups by name in the host, each in constant time (issue 17).
    const model::HostIndex &index() const { return index_; }

    std::vector<Step> steps;

    void add(std::string action, std::string object, std::string detail, const std::string &origin, Op run,
             Op undo)
    {
        Step s;
        s.rec.action = std::move(action);
        s.rec.object = std::move(object);
        s.rec.detail = std::move(detail);
        s.rec.origin = origin;
        s.run = std::move(run);
        s.undo = std::move(undo);
        steps.push_back(std::move(s));
    }

    void note(const std::string &origin, const std::string &object, std::string message)
    {
        report_.notes.push_back({origin, object, std::move(message)});
    }

    const model::Port *portOf(const std::string &netdev) const
    {
        std::string name = netdev;
        // A child's port is its parent's.
        if (const auto *ib = index_.ipoib(netdev); ib && !ib->parent.empty())
            name = ib->parent;
        const auto *nd = index_.netdev(name);
        if (nd == nullptr || nd->rdmaDevice.empty())
            return nullptr;
        const auto *dev = index_.device(nd->rdmaDevice);
        if (dev == nullptr)
            return nullptr;
        for (const auto &p : dev->ports)
            if (p.number == nd->rdmaPort)
                return &p;
        return nullptr;
    }

    const model::IpoibNetdev *findChild(const std::string &parent, uint16_t pkey) const
    {
        return index_.child(parent, pkey);
    }

    const model::IpoibNetdev *findBase(const activation::DesiredIpoib &x) const
    {
        if (!x.ifname.empty())
            return index_.ipoib(x.ifname);
        std::string want = guidPart(x.macAddress);
        for (const auto &ib : host_.ipoib)
            if (ib.parent.empty() && !want.empty() && guidPart(ib.address) == want)
                return &ib;
        return nullptr;
    }

    Status planIpoib(const DesiredIpoib &x);
    Status planBond(const DesiredBond &x);
    Status planPorts(const DesiredIpoib &x, const std::string &ifname);
    Status planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs);
    void planAddresses(const std::string &origin, const std::string &ifname, const std::vector<std::string> &want);
    // `flushed`: an earlier step takes the link down, which removes its routes.
    void planRoutes(const std::string &origin, const std::string &ifname, const std::vector<model::Route> &want,
                    bool flushed);
    void planUp(const std::string &origin, const std::string &ifname, bool isUp);

    // Interfaces whose final "up" is planned after their configuration.
    std::vector<std::pair<std::string, std::string>> pendingUp; // origin, ifname

private:
    Status planIpoibExtras(const DesiredIpoib &x);

    const Host &host_;
    model::HostIndex index_;
    Report &report_;
    bool rdmaOnly_ = false;
};

// NetworkManager has created and configured the interface: only umcast,
// and a clear error where the device cannot do the transport mode asked.
Status Planner::planIpoibExtras(const DesiredIpoib &x)
{
    const std::string &origin = x.origin.id;
    const model::IpoibNetdev *cur = x.pkey ? findChild(x.parent, *x.pkey) : findBase(x);
    if (cur == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("the interface %s does not exist (yet)"), x.ifname.c_str()))
            .withContext("connection.interface-name")
            .withContext(origin);
    const auto *nd = index_.netdev(cur->parent.empty() ? cur->name : cur->parent);
    const auto *dev = nd ? index_.device(nd->rdmaDevice) : nullptr;
    if (x.mode == IpoibMode::Connected && dev && (dev->enhancedIpoib || !dev->connectedModeSupported))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s cannot use connected mode (%s: %s); set transport-mode datagram"),
                               cur->name.c_str(), dev->name.c_str(),
                               dev->enhancedIpoib ? _("Enhanced IPoIB") : _("no IPoIB connected mode")))
            .withContext("infiniband.transport-mode")
            .withContext(origin);
    if (x.umcast && *x.umcast != cur->umcast) {
        bool old = cur->umcast;
        std::string ifname = cur->name;
        add("set-umcast", ifname, strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"), origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    return {};
}

void Planner::planAddresses(const std::string &origin, const std::string &ifname,
                            const std::vector<std::string> &want)
{
    const auto *nd = index_.netdev(ifname);
    for (const auto &a : want) {
        if (nd && std::find(nd->addresses.begin(), nd->addresses.end(), a) != nd->addresses.end())
            continue;
        add("add-address", ifname, strprintf(_("add address %s"), a.c_str()), origin,
            [ifname, a](Platform &p) { return p.addAddress(ifname, a); },
            [ifname, a](Platform &p) { return p.removeAddress(ifname, a); });
    }
}

void Planner::planRoutes(const std::string &origin, const std::string &ifname, const std::vector<model::Route> &want,
                         bool flushed)
{
    const auto *nd = index_.netdev(ifname);
    for (const auto &r : want) {
        if (nd && !flushed && std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            continue;
        add("add-route", ifname, strprintf(_("add route %s"), model::formatRoute(r).c_str()), origin,
            [ifname, r](Platform &p) { return p.addRoute(ifname, r); },
            [ifname, r](Platform &p) { return p.removeRoute(ifname, r); });
    }
}

void Planner::planUp(const std::string &origin, const std::string &ifname, bool isUp)
{
    if (isUp)
        return;
    add("set-up", ifname, _("set the link up"), origin, [ifname](Platform &p) { return p.setUp(ifname, true); },
        [ifname](Platform &p) { return p.setUp(ifname, false); });
}

Status Planner::planIpoib(const DesiredIpoib &x)
{
    if (rdmaOnly_)
        return planIpoibExtras(x);
    const std::string &origin = x.origin.id;
    std::string ifname;
    const model::IpoibNetdev *cur = nullptr;

    if (x.pkey) {
        if (index_.ipoib(x.parent) == nullptr && index_.netdev(x.parent) == nullptr)
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("the parent interface %s does not exist on this host"), x.parent.c_str()))
                .withContext("infiniband.parent")
                .withContext(origin);
        cur = findChild(x.parent, *x.pkey);
        if (cur == nullptr) {
            platform::IpoibChildSpec spec;
            spec.parent = x.parent;
            spec.pkey = *x.pkey;
            spec.mode = x.mode;
            spec.umcast = x.umcast;
            // The kernel names the child; later steps use the name it gave.
            auto name = std::make_shared<std::string>();
            std::string parent = x.parent;
            uint16_t pkey = *x.pkey;
            add("create-ipoib-child", x.ifname,
                strprintf(_("create the P_Key %s child of %s (%s mode)"), pkeyHex(pkey).c_str(), parent.c_str(),
                          modeName(x.mode)),
                origin,
                [spec, name](Platform &p) -> Status {
                    auto r = p.createIpoibChild(spec);
                    if (!r.ok())
                        return std::move(r).error();
                    *name = *r;
                    return {};
                },
                [parent, pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); });
            ifname = x.ifname; // provisional; runtime steps below use *name
            const model::Port *port = portOf(x.parent);
            if (x.mtu != 0) {
                unsigned eff = effectiveIpoibMtu(x.mtu, x.mode, port);
                add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
                    [name, mtu = x.mtu](Platform &p) { return p.setMtu(*name, mtu); }, {});
                if (eff != x.mtu)
                    note(origin, x.ifname,
                         strprintf(_("the kernel clamps the MTU %u to %u in datagram mode (IB link and broadcast "
                                     "group MTU)"),
                                   x.mtu, eff));
            }
            if (x.master.empty())
                add("set-up", x.ifname, _("set the link up"), origin,
                    [name](Platform &p) { return p.setUp(*name, true); }, {});
            else
                add("enslave", x.ifname, strprintf(_("add to bond %s"), x.master.c_str()), origin,
                    [name, bond = x.master](Platform &p) { return p.enslave(*name, bond); }, {});
            // Addresses need the kernel's name too.
            for (const auto &a : x.addresses)
                add("add-address", x.ifname, strprintf(_("add address %s"), a.c_str()), origin,
                    [name, a](Platform &p) { return p.addAddress(*name, a); }, {});
            for (const auto &r : x.routes)
                add("add-route", x.ifname, strprintf(_("add route %s"), model::formatRoute(r).c_str()), origin,
                    [name, r](Platform &p) { return p.addRoute(*name, r); }, {});
            return {};
        }
        ifname = cur->name;
    } else {
        cur = findBase(x);
        if (cur == nullptr)
            return Error(IBNM_ERROR_NOT_FOUND,
                         x.ifname.empty()
                             ? strprintf(_("no IPoIB interface has the address %s"), x.macAddress.c_str())
                             : strprintf(_("no IPoIB interface %s on this host"), x.ifname.c_str()))
                .withContext(x.ifname.empty() ? "infiniband.mac-address" : "connection.interface-name")
                .withContext(origin);
        ifname = cur->name;
    }

    const auto *nd = index_.netdev(ifname);
    bool isUp = nd ? nd->up : false;
    bool flushed = false;
    const model::Port *port = portOf(ifname);

    if (cur->mode != x.mode) {
        const auto *dev = port ? [&]() -> const model::Device * {
            const auto *n = index_.netdev(x.parent.empty() ? ifname : x.parent);
            return n ? index_.device(n->rdmaDevice) : nullptr;
        }()
                               : nullptr;
        if (x.mode == IpoibMode::Connected && dev && (dev->enhancedIpoib || !dev->connectedModeSupported))
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(dev->enhancedIpoib
                                       ? _("%s uses Enhanced IPoIB (%s), which supports datagram mode only; set "
                                           "transport-mode datagram")
                                       : _("%s has no IPoIB connected mode (%s); set transport-mode datagram"),
                                   ifname.c_str(), dev->name.c_str()))
                .withContext("infiniband.transport-mode")
                .withContext(origin);
        flushed = isUp;
        if (isUp)
            add("set-down", ifname, _("set the link down to change the transport mode"), origin,
                [ifname](Platform &p) { return p.setUp(ifname, false); },
                [ifname](Platform &p) { return p.setUp(ifname, true); });
        IpoibMode old = cur->mode;
        add("set-transport-mode", ifname, strprintf(_("set the transport mode to %s"), modeName(x.mode)), origin,
            [ifname, m = x.mode](Platform &p) { return p.setIpoibMode(ifname, m); },
            [ifname, old](Platform &p) { return p.setIpoibMode(ifname, old); });
        isUp = false;
    }
    if (x.umcast && *x.umcast != cur->umcast) {
        bool old = cur->umcast;
        add("set-umcast", ifname, strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"), origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    if (x.mtu != 0) {
        unsigned eff = effectiveIpoibMtu(x.mtu, x.mode, port);
        unsigned curMtu = nd ? nd->mtu : cur->mtu;
        if (eff != x.mtu)
            note(origin, ifname,
                 strprintf(_("the kernel clamps the MTU %u to %u in datagram mode (IB link and broadcast group "
                             "MTU)"),
                           x.mtu, eff));
        if (curMtu != eff) {
            add("set-mtu", ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
                [ifname, mtu = x.mtu](Platform &p) { return p.setMtu(ifname, mtu); },
                [ifname, curMtu](Platform &p) { return p.setMtu(ifname, curMtu); });
        }
    }
    if (!x.master.empty()) {
        if (!nd || nd->master != x.master)
            add("enslave", ifname, strprintf(_("add to bond %s"), x.master.c_str()), origin,
                [ifname, bond = x.master](Platform &p) { return p.enslave(ifname, bond); },
                [ifname](Platform &p) { return p.release(ifname); });
        return {};
    }
    planUp(origin, ifname, isUp);
    planAddresses(origin, ifname, x.addresses);
    planRoutes(origin, ifname, x.routes, flushed);
    return {};
}

Status Planner::planBond(const DesiredBond &x)
{
    const std::string &origin = x.origin.id;
    const model::Bond *cur = index_.bond(x.ifname);
    if (cur == nullptr) {
        platform::BondSpec spec;
        spec.name = x.ifname;
        spec.mode = x.mode;
        spec.miimon = x.miimon;
        spec.primary = x.primary;
        spec.failOverMac = x.failOverMac;
        add("create-bond", x.ifname, strprintf(_("create the %s bond"), x.mode.c_str()), origin,
            [spec](Platform &p) { return p.createBond(spec); },
            [name = x.ifname](Platform &p) { return p.deleteLink(name); });
        if (x.mtu != 0)
            add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
                [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); }, {});
        pendingUp.emplace_back(origin, x.ifname);
        return {};
    }
    // The bonding driver changes the mode only of a bond that is down and
    // has no ports; miimon and primary it changes under its ports, as
    // NetworkManager does on reapply.
    if (cur->mode != x.mode)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("bond %s exists with mode %s; ibnm does not change it under its ports (take the "
                                 "bond down first to recreate it with %s)"),
                               x.ifname.c_str(), cur->mode.c_str(), x.mode.c_str()))
            .withContext("bond.options.mode")
            .withContext(origin);
    std::optional<unsigned> miimon;
    std::optional<std::string> primary;
    std::vector<std::string> changes;
    if (x.miimon && *x.miimon != cur->miimon) {
        miimon = x.miimon;
        changes.push_back(strprintf("miimon %u", *x.miimon));
    }
    if (!x.primary.empty() && x.primary != cur->primary) {
        primary = x.primary;
        changes.push_back("primary " + x.primary);
    }
    if (!changes.empty()) {
        std::optional<unsigned> oldMiimon = miimon ? std::optional<unsigned>(cur->miimon) : std::nullopt;
        std::optional<std::string> oldPrimary = primary ? std::optional<std::string>(cur->primary) : std::nullopt;
        std::string what;
        for (const auto &c : changes)
            what += (what.empty() ? "" : ", ") + c;
        add("set-bond-options", x.ifname, strprintf(_("set %s"), what.c_str()), origin,
            [name = x.ifname, miimon, primary](Platform &p) { return p.setBondOptions(name, miimon, primary); },
            [name = x.ifname, oldMiimon, oldPrimary](Platform &p) {
                return p.setBondOptions(name, oldMiimon, oldPrimary);
            });
    }
    const auto *nd = index_.netdev(x.ifname);
    if (x.mtu != 0 && nd && nd->mtu != x.mtu) {
        unsigned old = nd->mtu;
        add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
            [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); },
            [name = x.ifname, old](Platform &p) { return p.setMtu(name, old); });
    }
    if (!nd || !nd->up)
        pendingUp.emplace_back(origin, x.ifname);
    return {};
}

Status Planner::planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs)
{
    const std::string &origin = x.origin.id;
    bool netdevKnown = index_.netdev(x.netdev) != nullptr || newNetdevs.count(x.netdev) > 0;
    std::string device;
    unsigned portNo = 1;
    bool newDevice = false;
    if (x.linkType) {
        if (!netdevKnown)
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("the netdev %s of the soft RDMA link does not exist on this host"),
                                   x.netdev.c_str()))
                .withContext("connection.interface-name")
                .withContext(origin);
        const model::SoftLink *cur = nullptr;
        for (const auto &l : host_.softLinks)
            if (l.name == x.linkName)
                cur = &l;
        if (cur && (cur->netdev != x.netdev || cur->type != *x.linkType))
            return Error(IBNM_ERROR_EXISTS,
                         strprintf(_("the RDMA link %s exists already over %s"), x.linkName.c_str(),
                                   cur->netdev.c_str()))
                .withContext("user.rdma.link-name")
                .withContext(origin);
        if (cur == nullptr) {
            for (const auto &l : host_.softLinks)
                if (l.netdev == x.netdev && l.type == *x.linkType)
                    return Error(IBNM_ERROR_EXISTS,
                                 strprintf(_("%s already has the %s link %s; the kernel allows one per netdev"),
                                           x.netdev.c_str(), *x.linkType == model::SoftLinkType::Rxe ? "rxe" : "siw",
                                           l.name.c_str()))
                        .withContext("user.rdma.link-name")
                        .withContext(origin);
            const char *type = *x.linkType == model::SoftLinkType::Rxe ? "rxe" : "siw";
            add("add-rdma-link", x.linkName, strprintf(_("add the %s link %s over %s"), type, x.linkName.c_str(),
                                                        x.netdev.c_str()),
                origin,
                [name = x.linkName, t = *x.linkType, nd = x.netdev](Platform &p) {
                    return p.addSoftLink(name, t, nd);
                },
                [name = x.linkName](Platform &p) { return p.deleteSoftLink(name); });
            newDevice = true;
        }
        device = x.linkName;
    } else {
        const auto *nd = index_.netdev(x.netdev);
        if (nd == nullptr || nd->rdmaDevice.empty())
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("no RDMA device is behind %s; set rdma.link-type to add a soft RDMA link"),
                                   x.netdev.c_str()))
                .withContext("connection.interface-name")
                .withContext(origin);
        device = nd->rdmaDevice;
        portNo = nd->rdmaPort;
    }

    const model::Port *port = nullptr;
    if (!newDevice)
        if (const auto *dev = index_.device(device))
            for (const auto &p : dev->ports)
                if (p.number == portNo)
                    port = &p;
    std::string object = strprintf("%s/%u", device.c_str(), portNo);

    if (x.roceMode && (newDevice || !port || port->defaultRoceMode != x.roceMode)) {
        std::optional<model::RoceMode> old = port ? port->defaultRoceMode : std::nullopt;
        Op undo;
        if (old && !newDevice)
            undo = [device, portNo, o = *old](Platform &p) { return p.setDefaultRoceMode(device, portNo, o); };
        add("set-roce-mode", object,
            strprintf(_("set the default RoCE mode for RDMA-CM to %s"), roceModeName(*x.roceMode)), origin,
            [device, portNo, m = *x.roceMode](Platform &p) { return p.setDefaultRoceMode(device, portNo, m); },
            undo);
    }
    if (x.roceTos && (newDevice || !port || port->defaultRoceTos != x.roceTos)) {
        std::optional<unsigned> old = port ? port->defaultRoceTos : std::nullopt;
        Op undo;
        if (old && !newDevice)
            undo = [device, portNo, o = *old](Platform &p) { return p.setDefaultRoceTos(device, portNo, o); };
        add("set-roce-tos", object, strprintf(_("set the default RoCE ToS for RDMA-CM to %u"), *x.roceTos), origin,
            [device, portNo, t = *x.roceTos](Platform &p) { return p.setDefaultRoceTos(device, portNo, t); }, undo);
    }
    if (x.trafficClass && (newDevice || !port || port->trafficClass != x.trafficClass)) {
        std::optional<unsigned> old = port ? port->trafficClass : std::nullopt;
        Op undo;
        if (old && !newDevice)
            undo = [device, portNo, o = *old](Platform &p) { return p.setTrafficClass(device, portNo, o); };
        add("set-traffic-class", object, strprintf(_("set the traffic class to %u"), *x.trafficClass), origin,
            [device, portNo, v = *x.trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, v); },
            undo);
    }
    if (x.ttl && (newDevice || !port || port->ttl != x.ttl)) {
        std::optional<unsigned> old = port ? port->ttl : std::nullopt;
        Op undo;
        if (old && !newDevice)
            undo = [device, portNo, o = *old](Platform &p) { return p.setTtl(device, portNo, o); };
        add("set-ttl", object, strprintf(_("set the TTL to %u"), *x.ttl), origin,
            [device, portNo, v = *x.ttl](Platform &p) { return p.setTtl(device, portNo, v); }, undo);
    }
    return {};
}

// Undoes steps [0, end) that ran, in reverse order.
void rollback(Platform &platform, std::vector<Step> &steps, size_t end, Report &report)
{
    report.rolledBack = true;
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
}

// Runs the steps in order; the first failure stops the run and undoes the
// steps done so far. Returns false on failure (report says why).
bool execute(Platform &platform, std::vector<Step> &steps, Report &report)
{
    for (size_t i = 0; i < steps.size(); i++) {
        Step &s = steps[i];
        report.operations++;
        Status st = s.run(platform);
        if (st.ok()) {
            s.rec.state = StepState::Done;
            continue;
        }
        s.rec.state = StepState::Failed;
        s.rec.error = st.error().toString();
        report.ok = false;
        report.error = s.rec.error;
        rollback(platform, steps, i, report);
        return false;
    }
    return true;
}

void finish(std::vector<Step> &steps, Report &report)
{
    for (auto &s : steps)
        report.steps.push_back(std::move(s.rec));
}

// Reads what the kernel now has and checks every object the profiles asked
// for. The first mismatch is the error.
Status verifyUp(const Host &h, const Desired &d, bool rdmaOnly)
{
    Report scratch;
    Planner lookup(h, scratch);
    auto mismatch = [](const std::string &origin, const std::string &object, std::string what) {
        return Error(IBNM_ERROR_PLATFORM, strprintf(_("verification failed: %s"), what.c_str()))
            .withContext(object)
            .withContext(origin);
    };
    for (const auto &x : d.ipoib) {
        if (rdmaOnly)
            break;
        const model::IpoibNetdev *cur = x.pkey ? lookup.findChild(x.parent, *x.pkey) : lookup.findBase(x);
        std::string object = x.ifname.empty() ? x.macAddress : x.ifname;
        if (cur == nullptr)
            return mismatch(x.origin.id, object, _("the interface does not exist"));
        if (cur->mode != x.mode)
            return mismatch(x.origin.id, cur->name,
                            strprintf(_("transport mode is %s, not %s"), modeName(cur->mode), modeName(x.mode)));
        if (x.umcast && cur->umcast != *x.umcast)
            return mismatch(x.origin.id, cur->name, _("umcast was not set"));
        const auto *nd = lookup.index().netdev(cur->name);
        unsigned mtu = nd ? nd->mtu : cur->mtu;
        if (x.mtu != 0) {
            unsigned eff = effectiveIpoibMtu(x.mtu, x.mode, lookup.portOf(cur->name));
            if (mtu != eff)
                return mismatch(x.origin.id, cur->name, strprintf(_("MTU is %u, expected %u"), mtu, eff));
        }
        if (!x.master.empty() && (!nd || nd->master != x.master))
            return mismatch(x.origin.id, cur->name, strprintf(_("not a port of %s"), x.master.c_str()));
        if (x.master.empty() && nd && !nd->up)
            return mismatch(x.origin.id, cur->name, _("the link is down"));
        for (const auto &r : x.routes)
            if (!nd || std::find(nd->routes.begin(), nd->routes.end(), r) == nd->routes.end())
                return mismatch(x.origin.id, cur->name, strprintf(_("no route %s"), model::formatRoute(r).c_str()));
    }
    for (const auto &b : d.bonds) {
        if (rdmaOnly)
            break;
        const model::Bond *cur = lookup.index().bond(b.ifname);
        if (cur == nullptr)
            return mismatch(b.origin.id, b.ifname, _("the bond does not exist"));
        if (cur->mode != b.mode)
            return mismatch(b.origin.id, b.ifname, strprintf(_("bond mode is %s"), cur->mode.c_str()));
        if (b.miimon && cur->miimon != *b.miimon)
            return mismatch(b.origin.id, b.ifname, strprintf(_("bond miimon is %u"), cur->miimon));
        if (!b.primary.empty() && cur->primary != b.primary)
            return mismatch(b.origin.id, b.ifname,
                            strprintf(_("bond primary is %s"), cur->primary.empty() ? "-" : cur->primary.c_str()));
    }
    for (const auto &r : d.rdma) {
        if (!r.linkType)
            continue;
        bool found = false;
        for (const auto &l : h.softLinks)
            found = found || (l.name == r.linkName && l.netdev == r.netdev);
        if (!found)
            return mismatch(r.origin.id, r.linkName, _("the RDMA link does not exist"));
    }
    return {};
}

Report planningFailed(Report report, Error e)
{
    report.ok = false;
    report.error = e.toString();
    return report;
}

} // namespace

unsigned effectiveIpoibMtu(unsigned requested, IpoibMode mode, const model::Port *port)
{
    if (mode == IpoibMode::Connected)
        return std::min(requested, 65520u);
    unsigned eff = requested;
    if (port && port->activeMtu)
        eff = std::min(eff, *port->activeMtu - 4);
    if (port && port->broadcastMtu)
        eff = std::min(eff, *port->broadcastMtu - 4);
    return eff;
}

// Undo of a step planned for a P_Key child that does not exist yet uses the
// kernel's name, known only once the create step ran; the planner keeps the
// shared names alive with the steps.

Report up(Platform &platform, const Desired &desired, const Options &options)
{
    Report report;
    auto host = platform.readHost();
    if (!host.ok())
        return planningFailed(std::move(report), std::move(host).error());

    Planner planner(*host, report, options.rdmaOnly);
    std::set<std::string> newNetdevs;
    if (!options.rdmaOnly)
        for (const auto &b : desired.bonds)
            newNetdevs.insert(b.ifname);

    // Order: bonds are created first so ports can join them; ports and other
    // IPoIB interfaces are configured (mode, MTU) and then enslaved or set
    // up; bonds come up after their ports; soft RDMA links come last, over
    // netdevs that now exist.
    std::vector<Step> bondSteps, ipoibSteps, upSteps, rdmaSteps;
    for (const auto &b : desired.bonds)
        if (Status s = options.rdmaOnly ? Status{} : planner.planBond(b); !s.ok())
            return planningFailed(std::move(report), std::move(s).error());
    bondSteps = std::move(planner.steps);
    planner.steps.clear();
    // Parents before children.
    for (int pass = 0; pass < 2; pass++)
        for (const auto &x : desired.ipoib)
            if (bool(x.pkey) == (pass == 1))
                if (Status s = planner.planIpoib(x); !s.ok())
                    return planningFailed(std::move(report), std::move(s).error());
    ipoibSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &[origin, ifname] : planner.pendingUp)
        planner.planUp(origin, ifname, false);
    if (!options.rdmaOnly) {
        for (const auto &b : desired.bonds) {
            planner.planAddresses(b.origin.id, b.ifname, b.addresses);
            planner.planRoutes(b.origin.id, b.ifname, b.routes, false);
        }
    }
    upSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &r : desired.rdma)
        if (Status s = planner.planRdma(r, newNetdevs); !s.ok())
            return planningFailed(std::move(report), std::move(s).error());
    rdmaSteps = std::move(planner.steps);

    std::vector<Step> steps;
    for (auto *v : {&bondSteps, &ipoibSteps, &upSteps, &rdmaSteps})
        for (auto &s : *v)
            steps.push_back(std::move(s));

    if (!options.dryRun && !steps.empty() && execute(platform, steps, report)) {
        auto after = platform.readHost();
        Status verified =
            after.ok() ? verifyUp(*after, desired, options.rdmaOnly) : Status(std::move(after).error());
        if (!verified.ok()) {
            report.ok = false;
            report.error = verified.error().toString();
            rollback(platform, steps, steps.size(), report);
        }
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
    const Host &host = *hostR;
    Planner planner(host, report);

    // Reverse of up: soft links first, then children and ports, then bonds.
    for (const auto &x : desired.rdma) {
        if (!x.linkType)
            continue;
        for (const auto &l : host.softLinks) {
            if (l.name != x.linkName)
                continue;
            planner.add("delete-rdma-link", l.name, strprintf(_("delete the RDMA link %s"), l.name.c_str()),
                        x.origin.id, [name = l.name](Platform &p) { return p.deleteSoftLink(name); },
                        [l](Platform &p) { return p.addSoftLink(l.name, l.type, l.netdev); });
        }
    }
    for (const auto &x : desired.ipoib) {
        if (options.rdmaOnly)
            break;
        const model::IpoibNetdev *cur = nullptr;
        if (x.pkey) {
            cur = planner.findChild(x.parent, *x.pkey);
            if (cur == nullptr)
                continue;
            const auto *nd = planner.index().netdev(cur->name);
            platform::IpoibChildSpec spec{x.parent, *x.pkey, cur->mode, cur->umcast};
            unsigned mtu = nd ? nd->mtu : cur->mtu;
            bool wasUp = nd && nd->up;
            planner.add("delete-ipoib-child", cur->name,
                        strprintf(_("delete the P_Key %s child of %s"), pkeyHex(*x.pkey).c_str(), x.parent.c_str()),
                        x.origin.id,
                        [parent = x.parent, pkey = *x.pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); },
                        [spec, mtu, wasUp](Platform &p) -> Status {
                            auto r = p.createIpoibChild(spec);
                            if (!r.ok())
                                return std::move(r).error();
                            if (Status s = p.setMtu(*r, mtu); !s.ok())
                                return s;
                            return wasUp ? p.setUp(*r, true) : Status{};
                        });
            continue;
        }
        cur = planner.findBase(x);
        if (cur == nullptr)
            continue;
        const auto *nd = planner.index().netdev(cur->name);
        if (nd && !nd->master.empty())
            planner.add("release", cur->name, strprintf(_("remove from bond %s"), nd->master.c_str()), x.origin.id,
                        [name = cur->name](Platform &p) { return p.release(name); },
                        [name = cur->name, bond = nd->master](Platform &p) { return p.enslave(name, bond); });
        if (nd)
            for (const auto &r : x.routes)
                if (std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
                    planner.add("remove-route", cur->name, strprintf(_("remove route %s"), model::formatRoute(r).c_str()),
                                x.origin.id, [name = cur->name, r](Platform &p) { return p.removeRoute(name, r); },
                                [name = cur->name, r](Platform &p) { return p.addRoute(name, r); });
        if (nd)
            for (const auto &a : x.addresses)
                if (std::find(nd->addresses.begin(), nd->addresses.end(), a) != nd->addresses.end())
                    planner.add("remove-address", cur->name, strprintf(_("remove address %s"), a.c_str()),
                                x.origin.id, [name = cur->name, a](Platform &p) { return p.removeAddress(name, a); },
                                [name = cur->name, a](Platform &p) { return p.addAddress(name, a); });
        if (nd && nd->up && nd->master.empty())
            planner.add("set-down", cur->name, _("set the link down"), x.origin.id,
                        [name = cur->name](Platform &p) { return p.setUp(name, false); },
                        [name = cur->name](Platform &p) { return p.setUp(name, true); });
    }
    for (const auto &x : desired.bonds) {
        if (options.rdmaOnly)
            break;
        const model::Bond *cur = planner.index().bond(x.ifname);
        if (cur == nullptr)
            continue;
        model::Bond old = *cur;
        const auto *nd = planner.index().netdev(x.ifname);
        unsigned mtu = nd ? nd->mtu : 0;
        bool wasUp = nd && nd->up;
        planner.add("delete-bond", x.ifname, strprintf(_("delete the bond %s"), x.ifname.c_str()), x.origin.id,
                    [name = x.ifname](Platform &p) { return p.deleteLink(name); },
                    [old, mtu, wasUp](Platform &p) -> Status {
                        platform::BondSpec spec;
                        spec.name = old.name;
                        spec.mode = old.mode;
                        spec.miimon = old.miimon;
                        spec.primary = old.primary;
                        spec.failOverMac = old.failOverMac;
                        if (Status s = p.createBond(spec); !s.ok())
                            return s;
                        for (const auto &port : old.ports)
                            if (Status s = p.enslave(port, old.name); !s.ok())
                                return s;
                        if (mtu != 0)
                            if (Status s = p.setMtu(old.name, mtu); !s.ok())
                                return s;
                        return wasUp ? p.setUp(old.name, true) : Status{};
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report);
    finish(steps, report);
    return report;
}

std::string memlockPolicy()
{
    return "# Written by ibnm. Members of group rdma may pin unlimited memory for RDMA\n"
           "# (libibverbs warns when RLIMIT_MEMLOCK is 32 KiB or less).\n"
           "@rdma    soft    memlock    unlimited\n"
           "@rdma    hard    memlock    unlimited\n";
}

std::string udevRules(const std::vector<NMConnection *> &profiles)
{
    std::string out = "# Written by ibnm: persistent names for IPoIB ports, matched by the last 8 bytes\n"
                      "# of the hardware address (the port GUID), as rdma-core's persistent-ipoib.rules.\n";
    std::vector<std::string> lines;
    for (NMConnection *c : profiles) {
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        const char *ifname = nm_connection_get_interface_name(c);
        if (ib == nullptr || ifname == nullptr || nm_setting_infiniband_get_p_key(ib) >= 0)
            continue;
        std::string guid = guidPart(nm_setting_infiniband_get_mac_address(ib) ? nm_setting_infiniband_get_mac_address(ib) : "");
        if (guid.empty())
            continue;
        lines.push_back(strprintf("ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
                                  "ATTR{address}==\"?*%s\", NAME=\"%s\"\n",
                                  guid.c_str(), ifname));
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    for (const auto &l : lines)
        out += l;
    return out;
}

Report writeHostFiles(Platform &platform, const std::vector<NMConnection *> &profiles, const Options &options)
{
    Report report;
    Planner planner(Host{}, report);
    struct File {
        const char *path;
        std::string contents;
    };
    for (const File &f : {File{kMemlockPolicyPath, memlockPolicy()}, File{kUdevRulesPath, udevRules(profiles)}}) {
        auto cur = platform.readHostFile(f.path);
        if (!cur.ok())
            return planningFailed(std::move(report), std::move(cur).error());
        if (*cur && **cur == f.contents)
            continue;
        std::optional<std::string> old = *cur;
        std::string path = f.path;
        planner.add("write-file", path, strprintf(_("write %s"), path.c_str()), "",
                    [path, c = f.contents](Platform &p) { return p.writeHostFile(path, c, 0644); },
                    [path, old](Platform &p) {
                        return old ? p.writeHostFile(path, *old, 0644) : p.removeHostFile(path);
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report);
    finish(steps, report);
    return report;
}

} // namespace ibnm::activation
