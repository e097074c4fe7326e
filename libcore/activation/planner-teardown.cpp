// SPDX-License-Identifier: LGPL-2.1-or-later
// The planner, for deactivating active connections from their records
// (active.hpp): the steps that delete what an activation created and put
// back what it changed, each with the undo that makes it again (so that a
// failed deactivation is rolled back whole, the addresses of a re-created
// child or bond included), and the host as the kernel leaves it after them
// (what `up` of a changed profile then plans on).
//
// As NetworkManager 1.42 deactivates (nm_device_cleanup(): software devices
// it created deleted, the addresses and routes it configured removed, the
// MTU it set back to the device's original; checked in the NM lab on veth
// devices), with one difference NetworkManager does not have: it keeps
// every device it manages up, and ibnm, which manages nothing between
// activations, puts the link state back as the activation found it.
// Addresses the activation removed (NetworkManager replaces what was on
// the device, and empties a port) are put back: issue 27's "down restores
// what it changed", where NetworkManager leaves them removed
// (docs/active-connections.md).
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::activation::detail {

namespace {

using model::Netdev;

// What a link loses going down, and how to bring it back (as planner.cpp's).
struct Lost {
    std::vector<std::string> addresses;
    std::vector<model::Route> routes;
    // Puts its P_Key children back as they were once it is open again
    // (they went down with it, model::childAfterParentLink).
    Op children = [](Platform &) { return Status{}; };
};

class Teardown {
public:
    Teardown(const Host &host, Report &report) : h_(host), report_(report) {}

    void rdma(const ActiveRecord &r);
    void children(const ActiveRecord &r);
    void interfaces(const ActiveRecord &r);
    void bonds(const ActiveRecord &r);
    void dns(const ActiveRecord &r);

    TeardownPlan finish() { return {std::move(steps_), std::move(h_)}; }

private:
    template <typename Run, typename Undo>
    void add(IbnmStepAction action, const std::string &object, std::string detail, const std::string &origin, Run &&run,
             Undo &&undo)
    {
        Step s;
        s.rec.action = action;
        s.rec.object = object;
        s.rec.detail = std::move(detail);
        s.rec.origin = origin;
        s.run = std::forward<Run>(run);
        s.undo = std::forward<Undo>(undo);
        steps_.push_back(std::move(s));
    }

    Netdev *netdev(const std::string &name) { return const_cast<Netdev *>(h_.findNetdev(name)); }
    model::IpoibNetdev *ipoib(const std::string &name) { return const_cast<model::IpoibNetdev *>(h_.findIpoib(name)); }
    model::Port *port(const std::string &device, unsigned number);

    // The kernel's side of each step, on the host copy.
    Op followedBy(const std::string &parent, bool up);
    Lost close(Netdev &nd);
    void removeNetdev(const std::string &name);
    Lost releasePort(Netdev &nd);

    void restorePort(const std::string &origin, const RdmaPortChange &c);
    void takeDown(const std::string &origin, Netdev &nd, Lost &lost, std::string detail);
    void bringUp(const std::string &origin, Netdev &nd, const Lost &lost, const InterfaceChange &c);
    void restoreLink(const std::string &origin, Netdev &nd, const InterfaceChange &c, Lost &lost, bool mtuKnown,
                     bool wasUp);
    void readdRemoved(const std::string &origin, Netdev &nd, const InterfaceChange &c);
    void deleteChild(const std::string &origin, const CreatedObject &c);
    void deleteBond(const std::string &origin, const CreatedObject &c);

    Host h_;
    Report &report_;
    std::vector<Step> steps_;
};

model::Port *Teardown::port(const std::string &device, unsigned number)
{
    for (auto &d : h_.devices)
        if (d.name == device)
            for (auto &p : d.ports)
                if (p.number == number)
                    return &p;
    return nullptr;
}

// The P_Key children of `parent` follow its link going up or down
// (ipoib_open(), ipoib_stop(): model::childAfterParentLink); the op that
// brings them back as they were once the parent's link is back.
Op Teardown::followedBy(const std::string &parent, bool up)
{
    std::vector<Netdev> before;
    for (const auto &ib : h_.ipoib)
        if (ib.parent == parent)
            if (const Netdev *c = h_.findNetdev(ib.name))
                before.push_back(*c);
    std::vector<Netdev> after = followParent(before, up);
    for (const auto &c : after)
        if (Netdev *n = netdev(c.name))
            *n = c;
    return convergeChildren(followParent(after, !up), before);
}

// dev_close(): down, its IPv6 addresses and routes flushed, its P_Key
// children closed.
Lost Teardown::close(Netdev &nd)
{
    Lost lost;
    if (!nd.up)
        return lost;
    lost.children = followedBy(nd.name, false);
    nd.up = false;
    for (const auto &a : nd.addresses)
        if (model::flushedOnLinkDown(a))
            lost.addresses.push_back(a);
    nd.addresses.erase(std::remove_if(nd.addresses.begin(), nd.addresses.end(), model::flushedOnLinkDown),
                       nd.addresses.end());
    lost.routes = std::move(nd.routes);
    nd.routes.clear();
    return lost;
}

void Teardown::removeNetdev(const std::string &name)
{
    for (auto &b : h_.bonds)
        b.ports.erase(std::remove(b.ports.begin(), b.ports.end(), name), b.ports.end());
    std::vector<std::string> links;
    for (const auto &l : h_.softLinks)
        if (l.netdev == name)
            links.push_back(l.name);
    h_.softLinks.erase(std::remove_if(h_.softLinks.begin(), h_.softLinks.end(),
                                      [&](const model::SoftLink &l) { return l.netdev == name; }),
                       h_.softLinks.end());
    h_.devices.erase(std::remove_if(h_.devices.begin(), h_.devices.end(),
                                    [&](const model::Device &d) { return contains(links, d.name); }),
                     h_.devices.end());
    h_.ipoib.erase(std::remove_if(h_.ipoib.begin(), h_.ipoib.end(),
                                  [&](const model::IpoibNetdev &x) { return x.name == name; }),
                   h_.ipoib.end());
    h_.netdevs.erase(
        std::remove_if(h_.netdevs.begin(), h_.netdevs.end(), [&](const Netdev &x) { return x.name == name; }),
        h_.netdevs.end());
}

// __bond_release_one() (model::portAfterRelease): out of its bond, closed,
// with the MTU it had before the enslave (which no reader sees).
Lost Teardown::releasePort(Netdev &nd)
{
    for (auto &b : h_.bonds)
        if (b.name == nd.master)
            b.ports.erase(std::remove(b.ports.begin(), b.ports.end(), nd.name), b.ports.end());
    nd.master.clear();
    return close(nd);
}

void Teardown::restorePort(const std::string &origin, const RdmaPortChange &c)
{
    model::Port *p = port(c.device, c.port);
    if (p == nullptr)
        return;
    std::string object = strprintf("%s/%u", c.device.c_str(), c.port);
    for (const auto &was : c.tcRules) {
        model::TcRule now = model::tcRuleRemoval(was);
        for (const auto &r : p->tcRules)
            if (r.sameMatch(was))
                now = r;
        const model::TcRule &shown = was.tclass < 0 ? now : was;
        add(was.tclass < 0 ? IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE : IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE, object,
            strprintf(was.tclass < 0 ? _("remove the traffic class rule %s") : _("set the traffic class rule %s"),
                      model::formatTcRule(shown).c_str()),
            origin, [d = c.device, n = c.port, was](Platform &pl) { return pl.setTrafficClassRule(d, n, was); },
            [d = c.device, n = c.port, now](Platform &pl) { return pl.setTrafficClassRule(d, n, now); });
        p->tcRules.erase(std::remove_if(p->tcRules.begin(), p->tcRules.end(),
                                        [&](const model::TcRule &r) { return r.sameMatch(was); }),
                         p->tcRules.end());
        if (was.tclass >= 0)
            p->tcRules.push_back(was);
    }
    if (c.trafficClassChanged) {
        std::optional<unsigned> now = p->trafficClass;
        Op back = now ? Op([d = c.device, n = c.port, v = *now](Platform &pl) { return pl.setTrafficClass(d, n, v); })
                      : Op([d = c.device, n = c.port](Platform &pl) { return pl.clearTrafficClass(d, n); });
        if (c.trafficClass)
            add(IBNM_STEP_ACTION_SET_TRAFFIC_CLASS, object, strprintf(_("set the traffic class back to %u"), *c.trafficClass),
                origin, [d = c.device, n = c.port, v = *c.trafficClass](Platform &pl) { return pl.setTrafficClass(d, n, v); },
                back);
        else
            add(IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS, object,
                strprintf(_("disable the traffic class of %s port %u"), c.device.c_str(), c.port), origin,
                [d = c.device, n = c.port](Platform &pl) { return pl.clearTrafficClass(d, n); }, back);
        p->trafficClass = c.trafficClass;
    }
    if (c.ttlChanged && c.ttl) {
        Op back;
        if (p->ttl)
            back = [d = c.device, n = c.port, v = *p->ttl](Platform &pl) { return pl.setTtl(d, n, v); };
        add(IBNM_STEP_ACTION_SET_TTL, object, strprintf(_("set the TTL back to %u"), *c.ttl), origin,
            [d = c.device, n = c.port, v = *c.ttl](Platform &pl) { return pl.setTtl(d, n, v); }, back);
        p->ttl = c.ttl;
    } else if (c.ttlChanged) {
        report_.notes.push_back({origin, object,
                                 _("the TTL stays as the activation set it: the kernel did not show the value it had "
                                   "before")});
    }
    if (c.roceMode && p->defaultRoceMode && *p->defaultRoceMode != *c.roceMode) {
        add(IBNM_STEP_ACTION_SET_ROCE_MODE, object,
            strprintf(_("set the default RoCE mode for RDMA-CM back to %s"), model::roceModeName(*c.roceMode)),
            origin, [d = c.device, n = c.port, m = *c.roceMode](Platform &pl) { return pl.setDefaultRoceMode(d, n, m); },
            [d = c.device, n = c.port, m = *p->defaultRoceMode](Platform &pl) { return pl.setDefaultRoceMode(d, n, m); });
        p->defaultRoceMode = c.roceMode;
    }
    if (c.roceTos && p->defaultRoceTos.value_or(0) != *c.roceTos) {
        add(IBNM_STEP_ACTION_SET_ROCE_TOS, object, strprintf(_("set the default RoCE ToS for RDMA-CM back to %u"), *c.roceTos),
            origin, [d = c.device, n = c.port, t = *c.roceTos](Platform &pl) { return pl.setDefaultRoceTos(d, n, t); },
            [d = c.device, n = c.port, t = p->defaultRoceTos.value_or(0)](Platform &pl) {
                return pl.setDefaultRoceTos(d, n, t);
            });
        p->defaultRoceTos = c.roceTos;
    }
}

void Teardown::rdma(const ActiveRecord &r)
{
    for (const auto &c : r.rdmaPorts)
        restorePort(r.id, c);
    for (const auto &c : r.created) {
        if (c.kind != CreatedObject::Kind::RdmaCm)
            continue;
        model::Device *dev = nullptr;
        for (auto &d : h_.devices)
            if (d.name == c.name)
                dev = &d;
        if (dev == nullptr)
            continue;
        std::vector<std::tuple<unsigned, std::optional<model::RoceMode>, std::optional<unsigned>>> old;
        for (auto &p : dev->ports) {
            old.emplace_back(p.number, p.defaultRoceMode, p.defaultRoceTos);
            p.defaultRoceMode.reset();
            p.defaultRoceTos.reset();
        }
        add(IBNM_STEP_ACTION_REMOVE_ROCE_DEFAULTS, c.name,
            strprintf(_("remove the RDMA-CM defaults of %s (the kernel's apply again)"), c.name.c_str()), r.id,
            [name = c.name](Platform &p) { return p.removeRoceDefaults(name); },
            [name = c.name, old](Platform &p) -> Status {
                for (const auto &[n, mode, tos] : old) {
                    if (mode)
                        if (Status s = p.setDefaultRoceMode(name, n, *mode); !s.ok())
                            return s;
                    if (tos)
                        if (Status s = p.setDefaultRoceTos(name, n, *tos); !s.ok())
                            return s;
                }
                return {};
            });
    }
    for (const auto &d : r.rdmaDevices) {
        for (auto &dev : h_.devices) {
            if (dev.name != d.device || !d.roceEnabled || dev.roceEnabled.value_or(true) == *d.roceEnabled)
                continue;
            add(IBNM_STEP_ACTION_SET_ROCE_ENABLE, d.device, *d.roceEnabled ? std::string(_("enable RoCE again")) : _("disable RoCE again"),
                r.id, [name = d.device, v = *d.roceEnabled](Platform &p) { return p.setRoceEnabled(name, v); },
                [name = d.device, v = !*d.roceEnabled](Platform &p) { return p.setRoceEnabled(name, v); });
            dev.roceEnabled = d.roceEnabled;
        }
    }
    for (const auto &c : r.created) {
        if (c.kind != CreatedObject::Kind::SoftLink || h_.findSoftLink(c.name) == nullptr)
            continue;
        // The link's RDMA-CM defaults go with it: the undo sets them again.
        std::vector<std::tuple<unsigned, std::optional<model::RoceMode>, std::optional<unsigned>>> cm;
        if (const model::Device *dev = h_.findDevice(c.name))
            for (const auto &p : dev->ports)
                if (p.defaultRoceMode || p.defaultRoceTos)
                    cm.emplace_back(p.number, p.defaultRoceMode, p.defaultRoceTos);
        add(IBNM_STEP_ACTION_DELETE_RDMA_LINK, c.name, strprintf(_("delete the RDMA link %s"), c.name.c_str()), r.id,
            [name = c.name](Platform &p) { return p.deleteSoftLink(name); },
            [c, cm](Platform &p) -> Status {
                if (Status s = p.addSoftLink(c.name, c.linkType, c.netdev); !s.ok())
                    return s;
                for (const auto &[n, mode, tos] : cm) {
                    if (mode)
                        if (Status s = p.setDefaultRoceMode(c.name, n, *mode); !s.ok())
                            return s;
                    if (tos)
                        if (Status s = p.setDefaultRoceTos(c.name, n, *tos); !s.ok())
                            return s;
                }
                return {};
            });
        h_.softLinks.erase(std::remove_if(h_.softLinks.begin(), h_.softLinks.end(),
                                          [&](const model::SoftLink &l) { return l.name == c.name; }),
                           h_.softLinks.end());
        h_.devices.erase(std::remove_if(h_.devices.begin(), h_.devices.end(),
                                        [&](const model::Device &d) { return d.name == c.name; }),
                         h_.devices.end());
    }
}

// `routes` in an order the kernel adds them in: those without gateway (a
// host route NetworkManager adds to an off-link gateway,
// model::withOnlinkRoutes) before the routes through a gateway they make
// on link, which the kernel refuses before (ENETUNREACH). Removing, the
// reverse.
std::vector<model::Route> directFirst(std::vector<model::Route> routes, bool direct = true)
{
    std::stable_partition(routes.begin(), routes.end(),
                          [direct](const model::Route &r) { return r.gateway.empty() == direct; });
    return routes;
}

// Re-creating a deleted interface (the undo of its deletion): its addresses
// and routes as they were, the kernel's own link-local address excepted
// (the kernel adds it again when the link comes up).
Status readdIp(Platform &p, const std::string &name, const std::vector<std::string> &addresses,
               const std::vector<model::Route> &routes)
{
    for (const auto &a : addresses)
        if (g_ascii_strncasecmp(a.c_str(), "fe80:", 5) != 0)
            if (Status s = p.addAddress(name, a); !s.ok())
                return s;
    for (const auto &r : directFirst(routes))
        if (Status s = p.addRoute(name, r); !s.ok())
            return s;
    return {};
}

void Teardown::deleteChild(const std::string &origin, const CreatedObject &c)
{
    const model::IpoibNetdev *ib = model::findChild(h_, c.parent, c.pkey);
    const Netdev *nd = ib ? h_.findNetdev(ib->name) : nullptr;
    if (nd == nullptr)
        return;
    platform::IpoibChildSpec spec{c.parent, c.pkey, ib->mode, ib->umcast, ib->name};
    add(IBNM_STEP_ACTION_DELETE_IPOIB_CHILD, nd->name,
        strprintf(_("delete the P_Key %s child of %s"), pkeyHex(c.pkey).c_str(), c.parent.c_str()), origin,
        [parent = c.parent, pkey = c.pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); },
        [spec, was = *nd](Platform &p) -> Status {
            auto r = p.createIpoibChild(spec);
            if (!r.ok())
                return std::move(r).error();
            if (!was.master.empty())
                return p.enslave(*r, was.master);
            if (Status s = p.setMtu(*r, was.mtu); !s.ok())
                return s;
            if (was.up)
                if (Status s = p.setUp(*r, true); !s.ok())
                    return s;
            return readdIp(p, *r, was.addresses, was.routes);
        });
    removeNetdev(nd->name);
}

void Teardown::deleteBond(const std::string &origin, const CreatedObject &c)
{
    const model::Bond *b = h_.findBond(c.name);
    Netdev *nd = netdev(c.name);
    if (b == nullptr || nd == nullptr)
        return;
    std::vector<std::string> ports;
    for (const auto &n : h_.netdevs)
        if (n.master == c.name)
            ports.push_back(n.name);
    add(IBNM_STEP_ACTION_DELETE_BOND, c.name, strprintf(_("delete the bond %s"), c.name.c_str()), origin,
        [name = c.name](Platform &p) { return p.deleteLink(name); },
        [old = *b, was = *nd, ports](Platform &p) -> Status {
            if (Status s = p.createBond(bondSpec(old.name, old)); !s.ok())
                return s;
            for (const auto &port : ports)
                if (Status s = p.enslave(port, old.name); !s.ok())
                    return s;
            if (Status s = p.setMtu(old.name, was.mtu); !s.ok())
                return s;
            if (!was.up)
                return {};
            if (Status s = p.setUp(old.name, true); !s.ok())
                return s;
            return readdIp(p, old.name, was.addresses, was.routes);
        });
    for (const auto &port : ports)
        if (Netdev *pn = netdev(port))
            releasePort(*pn);
    h_.bonds.erase(std::remove_if(h_.bonds.begin(), h_.bonds.end(), [&](const model::Bond &x) { return x.name == c.name; }),
                   h_.bonds.end());
    removeNetdev(c.name);
}

void Teardown::children(const ActiveRecord &r)
{
    for (const auto &c : r.created)
        if (c.kind == CreatedObject::Kind::IpoibChild)
            deleteChild(r.id, c);
}

void Teardown::takeDown(const std::string &origin, Netdev &nd, Lost &lost, std::string detail)
{
    Lost now = close(nd);
    add(IBNM_STEP_ACTION_SET_DOWN, nd.name, std::move(detail), origin, [name = nd.name](Platform &p) { return p.setUp(name, false); },
        andThen(
            [name = nd.name, now](Platform &p) -> Status {
                if (Status s = p.setUp(name, true); !s.ok())
                    return s;
                return readdIp(p, name, now.addresses, now.routes);
            },
            now.children));
    lost.children = andThen(lost.children, now.children);
    lost.addresses.insert(lost.addresses.end(), now.addresses.begin(), now.addresses.end());
    lost.routes.insert(lost.routes.end(), now.routes.begin(), now.routes.end());
}

// The link up again as the activation found it, with what going down took
// that was not the activation's.
void Teardown::bringUp(const std::string &origin, Netdev &nd, const Lost &lost, const InterfaceChange &c)
{
    add(IBNM_STEP_ACTION_SET_UP, nd.name, _("set the link up again"), origin,
        [name = nd.name](Platform &p) { return p.setUp(name, true); },
        andThen([name = nd.name](Platform &p) { return p.setUp(name, false); }, followedBy(nd.name, true)));
    nd.up = true;
    for (const auto &a : lost.addresses) {
        if (contains(c.addedAddresses, a) || g_ascii_strncasecmp(a.c_str(), "fe80:", 5) == 0)
            continue;
        add(IBNM_STEP_ACTION_ADD_ADDRESS, nd.name, strprintf(_("add address %s"), a.c_str()), origin,
            [name = nd.name, a](Platform &p) { return p.addAddress(name, a); },
            [name = nd.name, a](Platform &p) { return p.removeAddress(name, a); });
        nd.addresses.push_back(a);
    }
    for (const auto &rt : directFirst(lost.routes)) {
        if (std::find(c.addedRoutes.begin(), c.addedRoutes.end(), rt) != c.addedRoutes.end())
            continue;
        add(IBNM_STEP_ACTION_ADD_ROUTE, nd.name, strprintf(_("add route %s"), model::formatRoute(rt).c_str()), origin,
            [name = nd.name, rt](Platform &p) { return p.addRoute(name, rt); },
            [name = nd.name, rt](Platform &p) { return p.removeRoute(name, rt); });
        nd.routes.push_back(rt);
    }
}

void Teardown::interfaces(const ActiveRecord &r)
{
    for (const auto &c : r.interfaces) {
        Netdev *nd = netdev(c.name);
        if (nd == nullptr || (c.ifindex != 0 && nd->ifindex != c.ifindex))
            continue;
        const std::string &origin = r.id;
        const std::string name = nd->name;
        const bool wasUp = nd->up;
        Lost lost;
        bool mtuKnown = true;
        if (c.master && nd->master != *c.master && !nd->master.empty()) {
            std::string bond = nd->master;
            unsigned mtu = nd->mtu;
            bool up = nd->up;
            lost = releasePort(*nd);
            add(IBNM_STEP_ACTION_RELEASE, name, strprintf(_("remove from bond %s"), bond.c_str()), origin,
                [name](Platform &p) { return p.release(name); },
                andThen(
                    [name, bond, mtu, up](Platform &p) -> Status {
                        // Enslaving opens the port again (dev_open in bond_enslave()).
                        if (Status s = p.enslave(name, bond); !s.ok())
                            return s;
                        if (Status s = p.setMtu(name, mtu); !s.ok())
                            return s;
                        return up ? Status{} : p.setUp(name, false);
                    },
                    lost.children));
            mtuKnown = false;
        }
        for (const auto &rt : directFirst(c.addedRoutes, false))
            if (std::find(nd->routes.begin(), nd->routes.end(), rt) != nd->routes.end()) {
                add(IBNM_STEP_ACTION_REMOVE_ROUTE, name, strprintf(_("remove route %s"), model::formatRoute(rt).c_str()), origin,
                    [name, rt](Platform &p) { return p.removeRoute(name, rt); },
                    [name, rt](Platform &p) { return p.addRoute(name, rt); });
                nd->routes.erase(std::remove(nd->routes.begin(), nd->routes.end(), rt), nd->routes.end());
            }
        for (const auto &a : c.addedAddresses)
            if (contains(nd->addresses, a)) {
                add(IBNM_STEP_ACTION_REMOVE_ADDRESS, name, strprintf(_("remove address %s"), a.c_str()), origin,
                    [name, a](Platform &p) { return p.removeAddress(name, a); },
                    [name, a](Platform &p) { return p.addAddress(name, a); });
                nd->addresses.erase(std::remove(nd->addresses.begin(), nd->addresses.end(), a), nd->addresses.end());
            }
        restoreLink(origin, *nd, c, lost, mtuKnown, wasUp);
        if (nd->master.empty())
            readdRemoved(origin, *nd, c);
    }
}

// What was on the interface before the activation removed it, once the
// interface is out of any bond and its link as the activation found it (an
// address added to a link that is down stays: only going down flushes).
void Teardown::readdRemoved(const std::string &origin, Netdev &nd, const InterfaceChange &c)
{
    for (const auto &a : c.removedAddresses) {
        if (contains(nd.addresses, a))
            continue;
        add(IBNM_STEP_ACTION_ADD_ADDRESS, nd.name, strprintf(_("add address %s again"), a.c_str()), origin,
            [name = nd.name, a](Platform &p) { return p.addAddress(name, a); },
            [name = nd.name, a](Platform &p) { return p.removeAddress(name, a); });
        nd.addresses.push_back(a);
    }
}

// The transport mode, umcast, MTU, bond and link state as the activation
// found them.
void Teardown::restoreLink(const std::string &origin, Netdev &nd, const InterfaceChange &c, Lost &lost,
                           bool mtuKnown, bool wasUp)
{
    const std::string name = nd.name;
    model::IpoibNetdev *ib = ipoib(name);
    if (c.mode && ib && ib->mode != *c.mode) {
        if (nd.up)
            takeDown(origin, nd, lost, _("set the link down to change the transport mode"));
        model::IpoibMode old = ib->mode;
        add(IBNM_STEP_ACTION_SET_TRANSPORT_MODE, name,
            strprintf(_("set the transport mode back to %s"), model::modeName(*c.mode)), origin,
            [name, m = *c.mode](Platform &p) { return p.setIpoibMode(name, m); },
            [name, old, mtu = nd.mtu, mtuKnown](Platform &p) -> Status {
                if (Status s = p.setIpoibMode(name, old); !s.ok() || !mtuKnown)
                    return s;
                return p.setMtu(name, mtu);
            });
        ib->mode = *c.mode;
        nd.mtu = model::mtuAfterModeChange(nd.mtu, *c.mode, model::portOf(h_, name));
    }
    if (c.umcast && ib && ib->umcast != *c.umcast) {
        add(IBNM_STEP_ACTION_SET_UMCAST, name, strprintf(_("set umcast back to %s"), *c.umcast ? "yes" : "no"), origin,
            [name, v = *c.umcast](Platform &p) { return p.setIpoibUmcast(name, v); },
            [name, v = ib->umcast](Platform &p) { return p.setIpoibUmcast(name, v); });
        ib->umcast = *c.umcast;
    }
    if (c.mtu && nd.master.empty() && (!mtuKnown || nd.mtu != *c.mtu)) {
        // After a release the MTU is the kernel's (the one before the
        // enslave), which no reader sees: set whatever it is; undoing the
        // release sets the bond's again, so this step's undo has nothing to
        // put back.
        Op back = mtuKnown ? Op([name, m = nd.mtu](Platform &p) { return p.setMtu(name, m); })
                           : Op([](Platform &) { return Status{}; });
        add(IBNM_STEP_ACTION_SET_MTU, name, strprintf(_("set the MTU back to %u"), *c.mtu), origin,
            [name, m = *c.mtu](Platform &p) { return p.setMtu(name, m); }, back);
        nd.mtu = *c.mtu;
    }
    if (c.master && !c.master->empty() && nd.master != *c.master && h_.findBond(*c.master)) {
        add(IBNM_STEP_ACTION_ENSLAVE, name, strprintf(_("add to bond %s again"), c.master->c_str()), origin,
            [name, bond = *c.master](Platform &p) { return p.enslave(name, bond); },
            [name, mtu = nd.mtu, up = nd.up](Platform &p) -> Status {
                if (Status s = p.release(name); !s.ok())
                    return s;
                if (Status s = p.setMtu(name, mtu); !s.ok())
                    return s;
                return up ? p.setUp(name, true) : Status{};
            });
        nd.master = *c.master;
        nd.up = true;
        if (const Netdev *b = h_.findNetdev(*c.master))
            nd.mtu = b->mtu;
        for (auto &b : h_.bonds)
            if (b.name == *c.master)
                b.ports.push_back(name);
        return;
    }
    bool wantUp = c.up ? *c.up : wasUp;
    if (!nd.master.empty())
        return;
    if (wantUp && !nd.up)
        bringUp(origin, nd, lost, c);
    else if (!wantUp && nd.up)
        takeDown(origin, nd, lost, _("set the link down again"));
}

void Teardown::bonds(const ActiveRecord &r)
{
    for (const auto &c : r.bonds) {
        model::Bond *b = nullptr;
        for (auto &x : h_.bonds)
            if (x.name == c.name)
                b = &x;
        if (b == nullptr || ((!c.miimon || b->miimon == *c.miimon) && (!c.primary || b->primary == *c.primary)))
            continue;
        std::optional<unsigned> oldMiimon = c.miimon ? std::optional<unsigned>(b->miimon) : std::nullopt;
        std::optional<std::string> oldPrimary = c.primary ? std::optional<std::string>(b->primary) : std::nullopt;
        add(IBNM_STEP_ACTION_SET_BOND_OPTIONS, c.name, strprintf(_("set the options of bond %s back"), c.name.c_str()), r.id,
            [name = c.name, m = c.miimon, p = c.primary](Platform &pl) { return pl.setBondOptions(name, m, p); },
            [name = c.name, oldMiimon, oldPrimary](Platform &pl) { return pl.setBondOptions(name, oldMiimon, oldPrimary); });
        if (c.miimon)
            b->miimon = *c.miimon;
        if (c.primary)
            b->primary = *c.primary;
    }
    for (const auto &c : r.created)
        if (c.kind == CreatedObject::Kind::Bond)
            deleteBond(r.id, c);
}

// What systemd-resolved held for each link before the activation gave it
// DNS, back (as planner.cpp's set-dns undo): RevertLink where it held
// none, its servers and domains otherwise. The undo gives the link what it
// holds now, where the host says (else the activation's, as the record
// does not keep them: RevertLink then).
void Teardown::dns(const ActiveRecord &r)
{
    for (const auto &d : r.dns) {
        std::optional<model::LinkDns> now;
        if (h_.resolver) {
            if (!h_.resolver->running)
                continue;
            if (auto it = h_.resolver->links.find(d.link); it != h_.resolver->links.end())
                now = it->second;
        }
        Op back = now ? Op([link = d.link, v = *now](Platform &p) { return p.setLinkDns(link, v); })
                      : Op([link = d.link](Platform &p) { return p.revertLinkDns(link); });
        if (d.had)
            add(IBNM_STEP_ACTION_SET_DNS, d.link, dnsDetail(d.before), r.id,
                [link = d.link, v = d.before](Platform &p) { return p.setLinkDns(link, v); }, back);
        else
            add(IBNM_STEP_ACTION_REVERT_DNS, d.link, _("give the link back to systemd-resolved's own DNS configuration"), r.id,
                [link = d.link](Platform &p) { return p.revertLinkDns(link); }, back);
        if (h_.resolver) {
            if (d.had)
                h_.resolver->links[d.link] = d.before;
            else
                h_.resolver->links.erase(d.link);
        }
    }
}

} // namespace

// The steps that take the activations of `records` down, and the host
// after them. In the reverse order of activation: DNS, RDMA settings and soft
// links, then P_Key children, then the interfaces the activations changed
// (out of their bonds first), then the bonds they created.
TeardownPlan makeTeardownPlan(const Host &host, const std::vector<ActiveRecord> &records, Report &report)
{
    std::vector<ActiveRecord> now;
    for (const auto &r : records)
        now.push_back(prune(r, host));
    Teardown t(host, report);
    for (const auto &r : now)
        t.dns(r);
    for (const auto &r : now)
        t.rdma(r);
    for (const auto &r : now)
        t.children(r);
    for (const auto &r : now)
        t.interfaces(r);
    for (const auto &r : now)
        t.bonds(r);
    return t.finish();
}

} // namespace ibnm::activation::detail
