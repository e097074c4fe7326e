// SPDX-License-Identifier: LGPL-2.1-or-later
// The planner, for taking down: the steps that undo what up() of the same
// profiles made (soft links, RDMA-CM defaults, traffic classes, P_Key
// children, bond membership, addresses, bonds), each with the undo that
// makes it again.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

#include <tuple>

namespace ibnm::activation::detail {

namespace {

// A base interface (IPoIB port, Ethernet NIC): out of its bond, its
// profile's routes and addresses removed, link down.
void takeDown(Planner &planner, const Host &host, const std::string &origin, const std::string &name,
              const DesiredIp &ip)
{
    const auto *nd = host.findNetdev(name);
    if (nd == nullptr)
        return;
    if (!nd->master.empty())
        planner.planRelease(origin, *nd);
    // In the reverse of up's order: a route through a gateway before the
    // host route that makes the gateway on link (model::withOnlinkRoutes).
    for (auto it = ip.routes.rbegin(); it != ip.routes.rend(); ++it)
        if (const model::Route &r = *it; std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            planner.add(IBNM_STEP_ACTION_REMOVE_ROUTE, name, strprintf(_("remove route %s"), model::formatRoute(r).c_str()),
                        origin, [name, r](Platform &p) { return p.removeRoute(name, r); },
                        [name, r](Platform &p) { return p.addRoute(name, r); });
    for (const auto &a : ip.addresses)
        if (contains(nd->addresses, a))
            planner.add(IBNM_STEP_ACTION_REMOVE_ADDRESS, name, strprintf(_("remove address %s"), a.c_str()), origin,
                        [name, a](Platform &p) { return p.removeAddress(name, a); },
                        [name, a](Platform &p) { return p.addAddress(name, a); });
    planner.planDnsRevert(origin, name, ip.dns);
    if (nd->up && nd->master.empty())
        planner.planDown(origin, name, _("set the link down"));
}

// Stage 1, soft links: each profile's link is deleted; its RDMA-CM
// defaults go with it (its configfs directory), and the undo sets them
// again on the new link.
void planDownSoftLinks(Planner &planner, const Host &host, const Desired &desired)
{
    for (const auto &x : desired.rdma) {
        if (!x.linkType)
            continue;
        for (const auto &l : host.softLinks) {
            if (l.name != x.linkName)
                continue;
            std::vector<std::tuple<unsigned, std::optional<model::RoceMode>, std::optional<unsigned>>> cm;
            if (const model::Device *dev = host.findDevice(l.name))
                for (const auto &port : dev->ports)
                    if (port.defaultRoceMode || port.defaultRoceTos)
                        cm.emplace_back(port.number, port.defaultRoceMode, port.defaultRoceTos);
            planner.add(IBNM_STEP_ACTION_DELETE_RDMA_LINK, l.name, strprintf(_("delete the RDMA link %s"), l.name.c_str()),
                        x.origin.id, [name = l.name](Platform &p) { return p.deleteSoftLink(name); },
                        [l, cm](Platform &p) -> Status {
                            if (Status s = p.addSoftLink(l.name, l.type, l.netdev); !s.ok())
                                return s;
                            for (const auto &[n, mode, tos] : cm) {
                                if (mode)
                                    if (Status s = p.setDefaultRoceMode(l.name, n, *mode); !s.ok())
                                        return s;
                                if (tos)
                                    if (Status s = p.setDefaultRoceTos(l.name, n, *tos); !s.ok())
                                        return s;
                            }
                            return {};
                        });
        }
    }
}

// Stage 2, RDMA-CM defaults a profile set on a hardware device: the
// configfs directory goes, so the kernel's defaults apply again.
void planDownRoceDefaults(Planner &planner, const Host &host, const Desired &desired)
{
    for (const auto &x : desired.rdma) {
        if (x.linkType || !(x.roceMode || x.roceTos))
            continue;
        const auto *nd = host.findNetdev(x.netdev);
        const model::Device *dev = nd ? host.findDevice(nd->rdmaDevice) : nullptr;
        if (dev == nullptr)
            continue;
        std::vector<std::pair<unsigned, const model::Port *>> set;
        for (const auto &p : dev->ports)
            if (p.defaultRoceMode)
                set.emplace_back(p.number, &p);
        if (set.empty())
            continue;
        std::vector<std::tuple<unsigned, model::RoceMode, unsigned>> old;
        for (const auto &[n, p] : set)
            old.emplace_back(n, *p->defaultRoceMode, p->defaultRoceTos.value_or(0));
        planner.add(IBNM_STEP_ACTION_REMOVE_ROCE_DEFAULTS, dev->name,
                    strprintf(_("remove the RDMA-CM defaults of %s (the kernel's apply again)"), dev->name.c_str()),
                    x.origin.id, [name = dev->name](Platform &p) { return p.removeRoceDefaults(name); },
                    [name = dev->name, old](Platform &p) -> Status {
                        for (const auto &[n, mode, tos] : old) {
                            if (Status s = p.setDefaultRoceMode(name, n, mode); !s.ok())
                                return s;
                            if (Status s = p.setDefaultRoceTos(name, n, tos); !s.ok())
                                return s;
                        }
                        return {};
                    });
    }
}

// Stage 3, a traffic class a profile set on a hardware port: disabled
// again ("-1", what an unset one is), as the RDMA-CM defaults go.
void planDownTrafficClasses(Planner &planner, const Host &host, const Desired &desired)
{
    for (const auto &x : desired.rdma) {
        if (x.linkType || !x.trafficClass)
            continue;
        const auto *nd = host.findNetdev(x.netdev);
        const model::Device *dev = nd ? host.findDevice(nd->rdmaDevice) : nullptr;
        if (dev == nullptr)
            continue;
        for (const auto &port : dev->ports) {
            if (!port.trafficClass || (nd->rdmaPort != 0 && nd->rdmaPort != port.number))
                continue;
            planner.add(IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS, dev->name + "/" + std::to_string(port.number),
                        strprintf(_("disable the traffic class of %s port %u"), dev->name.c_str(), port.number),
                        x.origin.id,
                        [name = dev->name, n = port.number](Platform &p) { return p.clearTrafficClass(name, n); },
                        [name = dev->name, n = port.number, old = *port.trafficClass](Platform &p) {
                            return p.setTrafficClass(name, n, old);
                        });
        }
    }
}

// Stage 4, IPoIB: a P_Key child that is there is deleted (the undo makes
// it again with its mode, umcast, MTU and link); a base interface is taken
// down (takeDown).
void planDownIpoib(Planner &planner, const Host &host, const Desired &desired)
{
    for (const auto &x : desired.ipoib) {
        const model::IpoibNetdev *cur = nullptr;
        if (x.pkey) {
            cur = model::findChild(host, x.parent, *x.pkey);
            if (cur == nullptr)
                continue;
            const auto *nd = host.findNetdev(cur->name);
            platform::IpoibChildSpec spec{x.parent, *x.pkey, cur->mode, cur->umcast, cur->name};
            unsigned mtu = nd ? nd->mtu : cur->mtu;
            bool wasUp = nd && nd->up;
            planner.add(IBNM_STEP_ACTION_DELETE_IPOIB_CHILD, cur->name,
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
        takeDown(planner, host, x.origin.id, cur->name, x.ip);
    }
}

// Stage 5, bonds: each is deleted; the undo makes it again with its
// options, ports, MTU and link as they were.
void planDownBonds(Planner &planner, const Host &host, const Desired &desired)
{
    for (const auto &x : desired.bonds) {
        const model::Bond *cur = host.findBond(x.ifname);
        if (cur == nullptr)
            continue;
        model::Bond old = *cur;
        const auto *nd = host.findNetdev(x.ifname);
        unsigned mtu = nd ? nd->mtu : 0;
        bool wasUp = nd && nd->up;
        planner.add(IBNM_STEP_ACTION_DELETE_BOND, x.ifname, strprintf(_("delete the bond %s"), x.ifname.c_str()), x.origin.id,
                    [name = x.ifname](Platform &p) { return p.deleteLink(name); },
                    [old, mtu, wasUp](Platform &p) -> Status {
                        if (Status s = p.createBond(bondSpec(old.name, old)); !s.ok())
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
}

} // namespace

// The stages in the reverse of up's order: soft links first, then RDMA
// settings, children and ports, then bonds (these last three not with
// Options::rdmaOnly).
std::vector<Step> makeDownPlan(const Host &host, const Desired &desired, const Options &options, Report &report)
{
    Planner planner(host, report);
    planDownSoftLinks(planner, host, desired);
    planDownRoceDefaults(planner, host, desired);
    planDownTrafficClasses(planner, host, desired);
    if (!options.rdmaOnly) {
        planDownIpoib(planner, host, desired);
        for (const auto &x : desired.ethernet)
            if (host.findNetdev(x.ifname))
                takeDown(planner, host, x.origin.id, x.ifname, x.ip);
        planDownBonds(planner, host, desired);
    }
    return std::move(planner.steps);
}

} // namespace ibnm::activation::detail
