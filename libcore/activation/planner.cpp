// SPDX-License-Identifier: LGPL-2.1-or-later
// The planner, for interfaces: compares what the profiles ask of IPoIB
// interfaces, Ethernet ports and bonds (mode, MTU, bond membership, link
// state, addresses and routes) with the host and emits only the steps that
// make a difference. makePlan() puts the whole plan in dependency order (the
// RDMA part is planner-rdma.cpp); plan() and activeInterface() ask it
// without a platform.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::activation::detail {

namespace {

// A planning error: the code and errno of the fact that refused, the
// property and the profile as context.
Error refused(Error e, const char *property, const std::string &origin)
{
    return std::move(e).withProperty(property).withProfile(origin);
}

} // namespace

// NetworkManager has created and configured the interface: only umcast,
// and a clear error where the device cannot do the transport mode asked.
Status Planner::planIpoibExtras(const DesiredIpoib &x)
{
    const std::string &origin = x.origin.id;
    const model::IpoibNetdev *cur = find(x);
    if (cur == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("the interface %s does not exist (yet)"), x.ifname.c_str()))
            .withProperty("connection.interface-name")
            .withProfile(origin);
    const model::Device *dev = model::deviceOf(index_, cur->name);
    if (x.mode == IpoibMode::Connected && dev && !model::connectedModeAvailable(*dev))
        return Error(IBNM_ERROR_NOT_SUPPORTED, model::connectedModeRefusal(*dev), EOPNOTSUPP)
            .withProperty("infiniband.transport-mode")
            .withProfile(origin);
    if (x.umcast && *x.umcast != cur->umcast) {
        bool old = cur->umcast;
        std::string ifname = cur->name;
        add(
            IBNM_STEP_ACTION_SET_UMCAST, ifname, [&] { return strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"); }, origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    return {};
}

namespace {

// What a link loses when it goes down (dev_close): its IPv6 addresses
// (model::flushedOnLinkDown) and the routes through it.
struct LinkDownLoss {
    std::vector<std::string> addresses;
    std::vector<model::Route> routes;
};

LinkDownLoss lossOnLinkDown(const model::Netdev *nd)
{
    LinkDownLoss lost;
    if (nd == nullptr)
        return lost;
    for (const auto &a : nd->addresses)
        if (model::flushedOnLinkDown(a))
            lost.addresses.push_back(a);
    lost.routes = nd->routes;
    // Routes without gateway first: a route through a gateway that only
    // such a route reaches needs it back first (model::gatewayOnLink).
    std::stable_partition(lost.routes.begin(), lost.routes.end(),
                          [](const model::Route &r) { return r.gateway.empty(); });
    return lost;
}

// The undo of a link going down: up, with what it lost.
Status bringBack(Platform &p, const std::string &ifname, const LinkDownLoss &lost)
{
    if (Status s = p.setUp(ifname, true); !s.ok())
        return s;
    for (const auto &a : lost.addresses)
        if (Status s = p.addAddress(ifname, a); !s.ok())
            return s;
    for (const auto &r : lost.routes)
        if (Status s = p.addRoute(ifname, r); !s.ok())
            return s;
    return {};
}

} // namespace

void Planner::planIp(const std::string &origin, const std::string &ifname, const DesiredIp &ip, bool flushed)
{
    const auto *nd = index_.findNetdev(ifname);
    std::vector<std::string> have;
    if (nd)
        for (const auto &a : nd->addresses)
            if (!(flushed && model::flushedOnLinkDown(a)))
                have.push_back(a);
    for (const auto &a : have) {
        if (!ip.manages(a) || contains(ip.addresses, a))
            continue;
        add(
            IBNM_STEP_ACTION_REMOVE_ADDRESS, ifname, [&] { return strprintf(_("remove address %s"), a.c_str()); }, origin,
            [ifname, a](Platform &p) { return p.removeAddress(ifname, a); },
            [ifname, a](Platform &p) { return p.addAddress(ifname, a); });
    }
    for (const auto &a : ip.addresses) {
        if (contains(have, a))
            continue;
        add(
            IBNM_STEP_ACTION_ADD_ADDRESS, ifname, [&] { return strprintf(_("add address %s"), a.c_str()); }, origin,
            [ifname, a](Platform &p) { return p.addAddress(ifname, a); },
            [ifname, a](Platform &p) { return p.removeAddress(ifname, a); });
    }
    for (const auto &r : ip.routes) {
        if (nd && !flushed && std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            continue;
        add(
            IBNM_STEP_ACTION_ADD_ROUTE, ifname, [&] { return strprintf(_("add route %s"), model::formatRoute(r).c_str()); }, origin,
            [ifname, r](Platform &p) { return p.addRoute(ifname, r); },
            [ifname, r](Platform &p) { return p.removeRoute(ifname, r); });
    }
    planDns(origin, ifname, ip.dns);
}

namespace {

std::string commaList(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

} // namespace

std::string dnsDetail(const model::LinkDns &dns)
{
    if (dns.domains.empty())
        return strprintf(_("give systemd-resolved the DNS servers %s"), commaList(dns.servers).c_str());
    if (dns.servers.empty())
        return strprintf(_("give systemd-resolved the search domains %s"), commaList(dns.domains).c_str());
    return strprintf(_("give systemd-resolved the DNS servers %s and the search domains %s"),
                     commaList(dns.servers).c_str(), commaList(dns.domains).c_str());
}

bool Planner::dnsApplies(const std::string &origin, const std::string &ifname, const model::LinkDns &dns)
{
    if (dns.empty())
        return false;
    if (host_.resolver && host_.resolver->running)
        return true;
    // Never silent: the report says what is left out (`ibnm check` warns).
    std::string why = host_.resolver ? host_.resolver->reason : std::string(_("it was not asked whether systemd-resolved runs"));
    note(origin, ifname, [&] {
        return strprintf(_("the DNS servers and search domains are not applied: %s"), why.c_str());
    });
    return false;
}

void Planner::planDns(const std::string &origin, const std::string &ifname, const model::LinkDns &dns)
{
    if (!dnsApplies(origin, ifname, dns))
        return;
    model::LinkDns cur;
    if (auto it = host_.resolver->links.find(ifname); it != host_.resolver->links.end())
        cur = it->second;
    if (cur == dns)
        return;
    add(
        IBNM_STEP_ACTION_SET_DNS, ifname, [&] { return dnsDetail(dns); }, origin,
        [ifname, dns](Platform &p) { return p.setLinkDns(ifname, dns); },
        [ifname, cur](Platform &p) { return cur.empty() ? p.revertLinkDns(ifname) : p.setLinkDns(ifname, cur); });
}

void Planner::planDnsRevert(const std::string &origin, const std::string &ifname, const model::LinkDns &dns)
{
    if (dns.empty())
        return;
    // What systemd-resolved holds for the link, where the host says: nothing
    // to give back where it does not run or holds nothing. Unknown (the
    // host was read without it): RevertLink, which does nothing then, and
    // an undo that gives the profile's back where it runs.
    model::LinkDns back = dns;
    if (host_.resolver) {
        auto it = host_.resolver->links.find(ifname);
        if (!host_.resolver->running || it == host_.resolver->links.end())
            return;
        back = it->second;
    }
    add(
        IBNM_STEP_ACTION_REVERT_DNS, ifname, _("give the link back to systemd-resolved's own DNS configuration"), origin,
        [ifname](Platform &p) { return p.revertLinkDns(ifname); },
        [ifname, back](Platform &p) -> Status {
            Status s = p.setLinkDns(ifname, back);
            // Not running: RevertLink gave nothing back either.
            return s.ok() || s.error().code() == IBNM_ERROR_NOT_SUPPORTED ? Status{} : s;
        });
}

// `children` after their parent's link went from up to down or from down to
// up (model::childAfterParentLink): what the kernel does to P_Key children.
std::vector<model::Netdev> followParent(std::vector<model::Netdev> children, bool parentUp)
{
    for (auto &c : children)
        c = model::childAfterParentLink(c, parentUp);
    return children;
}

// Brings each child from `now` to `target` (the same children in the same
// order): its link, then the addresses and routes it lacks (setting a child
// down flushes some: model::afterLinkDown). Nothing to do for none.
Op convergeChildren(std::vector<model::Netdev> now, const std::vector<model::Netdev> &target)
{
    auto same = [](const model::Netdev &a, const model::Netdev &b) {
        return a.up == b.up && a.addresses == b.addresses && a.routes == b.routes;
    };
    if (std::equal(now.begin(), now.end(), target.begin(), target.end(), same))
        return [](Platform &) { return Status{}; };
    return [now = std::move(now), target](Platform &p) -> Status {
        for (size_t i = 0; i < now.size() && i < target.size(); i++) {
            model::Netdev n = now[i];
            const model::Netdev &t = target[i];
            if (n.up != t.up) {
                if (Status s = p.setUp(t.name, t.up); !s.ok())
                    return s;
                n = t.up ? model::childAfterParentLink(n, true) : model::afterLinkDown(n);
            }
            for (const auto &a : t.addresses)
                if (!contains(n.addresses, a))
                    if (Status s = p.addAddress(t.name, a); !s.ok())
                        return s;
            LinkDownLoss wanted = lossOnLinkDown(&t); // its routes, those without gateway first
            for (const auto &r : wanted.routes)
                if (std::find(n.routes.begin(), n.routes.end(), r) == n.routes.end())
                    if (Status s = p.addRoute(t.name, r); !s.ok())
                        return s;
        }
        return {};
    };
}

// `undo`, then `more`.
Op andThen(Op undo, Op more)
{
    return [undo = std::move(undo), more = std::move(more)](Platform &p) -> Status {
        if (Status s = undo(p); !s.ok())
            return s;
        return more(p);
    };
}

std::vector<model::Netdev> &Planner::children(const std::string &parent)
{
    auto it = childLinks_.find(parent);
    if (it != childLinks_.end())
        return it->second;
    std::vector<model::Netdev> now;
    for (const model::IpoibNetdev *c : index_.childrenOf(parent))
        if (const model::Netdev *nd = index_.findNetdev(c->name))
            now.push_back(*nd);
    return childLinks_.emplace(parent, std::move(now)).first->second;
}

void Planner::planChildrenBack(const std::string &origin, const std::string &parent)
{
    std::vector<model::Netdev> &now = children(parent);
    for (size_t i = 0; i < now.size(); i++) {
        const model::Netdev *target = index_.findNetdev(now[i].name);
        if (target == nullptr)
            continue;
        if (childrenBefore_)
            if (auto it = childrenBefore_->find(target->name); it != childrenBefore_->end())
                target = &it->second;
        const std::string name = target->name;
        if (now[i].up && !target->up) {
            LinkDownLoss lost = lossOnLinkDown(&now[i]);
            add(
                IBNM_STEP_ACTION_SET_DOWN, name,
                [&] { return strprintf(_("set the link down again (it came up with its parent %s)"), parent.c_str()); },
                origin, [name](Platform &p) { return p.setUp(name, false); },
                [name, lost](Platform &p) { return bringBack(p, name, lost); });
            now[i] = model::afterLinkDown(now[i]);
        } else if (!now[i].up && target->up) {
            add(IBNM_STEP_ACTION_SET_UP, name, _("set the link up"), origin, [name](Platform &p) { return p.setUp(name, true); },
                [name](Platform &p) { return p.setUp(name, false); });
            now[i].up = true;
        }
        for (const auto &a : target->addresses) {
            if (contains(now[i].addresses, a))
                continue;
            add(
                IBNM_STEP_ACTION_ADD_ADDRESS, name,
                [&] {
                    return strprintf(_("add address %s again (lost when its parent %s went down)"), a.c_str(),
                                     parent.c_str());
                },
                origin, [name, a](Platform &p) { return p.addAddress(name, a); },
                [name, a](Platform &p) { return p.removeAddress(name, a); });
        }
        for (const auto &r : lossOnLinkDown(target).routes) {
            if (std::find(now[i].routes.begin(), now[i].routes.end(), r) != now[i].routes.end())
                continue;
            add(
                IBNM_STEP_ACTION_ADD_ROUTE, name,
                [&] {
                    return strprintf(_("add route %s again (lost when its parent %s went down)"),
                                     model::formatRoute(r).c_str(), parent.c_str());
                },
                origin, [name, r](Platform &p) { return p.addRoute(name, r); },
                [name, r](Platform &p) { return p.removeRoute(name, r); });
        }
        now[i] = *target;
    }
}

void Planner::planUp(const std::string &origin, const std::string &ifname, bool isUp)
{
    if (isUp)
        return;
    // Its P_Key children come up with it (model::childAfterParentLink);
    // taking it down again (the undo) closes them: both put back as they
    // were.
    std::vector<model::Netdev> before = children(ifname);
    std::vector<model::Netdev> after = followParent(before, true);
    Op undo = andThen([ifname](Platform &p) { return p.setUp(ifname, false); },
                      convergeChildren(followParent(after, false), before));
    add(IBNM_STEP_ACTION_SET_UP, ifname, _("set the link up"), origin, [ifname](Platform &p) { return p.setUp(ifname, true); },
        std::move(undo));
    children(ifname) = std::move(after);
    planChildrenBack(origin, ifname);
}

void Planner::planDown(const std::string &origin, const std::string &ifname, std::string detail)
{
    LinkDownLoss lost = lossOnLinkDown(index_.findNetdev(ifname));
    // Its P_Key children go down with it and lose their IPv6 addresses and
    // routes (model::childAfterParentLink); the undo brings them back.
    std::vector<model::Netdev> before = children(ifname);
    std::vector<model::Netdev> after = followParent(before, false);
    Op undo = andThen([ifname, lost](Platform &p) { return bringBack(p, ifname, lost); },
                      convergeChildren(followParent(after, true), before));
    add(IBNM_STEP_ACTION_SET_DOWN, ifname, std::move(detail), origin, [ifname](Platform &p) { return p.setUp(ifname, false); },
        std::move(undo));
    children(ifname) = std::move(after);
}

void Planner::planEnslave(const std::string &origin, const std::string &ifname, const std::string &bond,
                          unsigned mtu, bool wasUp, bool flushedBefore)
{
    // The undo: release closes the port (dev_close: its IPv6 addresses and
    // routes flushed) and gives it its own MTU; what it had before the
    // enslave (up or not, as the steps before left it) comes back.
    LinkDownLoss lost = wasUp && !flushedBefore ? lossOnLinkDown(index_.findNetdev(ifname)) : LinkDownLoss{};
    // Enslaving opens a port that is down, and its P_Key children with it;
    // the undo's release closes it (and them) again.
    std::vector<model::Netdev> before = children(ifname);
    std::vector<model::Netdev> after = wasUp ? before : followParent(before, true);
    std::vector<model::Netdev> undone = followParent(after, false);
    if (wasUp)
        undone = followParent(undone, true);
    Op undo = andThen(
        [ifname, mtu, wasUp, lost](Platform &p) -> Status {
            if (Status s = p.release(ifname); !s.ok())
                return s;
            if (mtu)
                if (Status s = p.setMtu(ifname, mtu); !s.ok())
                    return s;
            return wasUp ? bringBack(p, ifname, lost) : Status{};
        },
        convergeChildren(std::move(undone), before));
    add(
        IBNM_STEP_ACTION_ENSLAVE, ifname, [&] { return strprintf(_("add to bond %s"), bond.c_str()); }, origin,
        [ifname, bond](Platform &p) { return p.enslave(ifname, bond); }, std::move(undo));
    children(ifname) = std::move(after);
    planChildrenBack(origin, ifname);
}

model::PortAfterRelease Planner::planRelease(const std::string &origin, const model::Netdev &nd)
{
    // Release closes the port, and its P_Key children with it; the undo's
    // enslave opens it again (then closes it when it was down).
    std::vector<model::Netdev> before = children(nd.name);
    std::vector<model::Netdev> after = nd.up ? followParent(before, false) : before;
    std::vector<model::Netdev> undone = followParent(after, true);
    if (!nd.up)
        undone = followParent(undone, false);
    // The active port of an active-backup bond that leaves hands over to
    // another; enslaved again it stays a backup. The undo makes it the
    // active port again as primary does (primary_reselect "always"), then
    // puts primary back.
    const model::Bond *bond = index_.findBond(nd.master);
    std::optional<std::string> activeAgain;
    if (bond && bond->activePort == nd.name && bond->ports.size() > 1)
        activeAgain = bond->primary;
    Op undo = andThen(
        [name = nd.name, bond = nd.master, mtu = nd.mtu, up = nd.up, activeAgain](Platform &p) -> Status {
            // Enslaving opens the port again (dev_open in bond_enslave()).
            if (Status s = p.enslave(name, bond); !s.ok())
                return s;
            if (Status s = p.setMtu(name, mtu); !s.ok())
                return s;
            if (activeAgain && *activeAgain != name) {
                if (Status s = p.setBondOptions(bond, std::nullopt, name); !s.ok())
                    return s;
                if (Status s = p.setBondOptions(bond, std::nullopt, *activeAgain); !s.ok())
                    return s;
            }
            return up ? Status{} : p.setUp(name, false);
        },
        convergeChildren(std::move(undone), before));
    add(
        IBNM_STEP_ACTION_RELEASE, nd.name, [&] { return strprintf(_("remove from bond %s"), nd.master.c_str()); }, origin,
        [name = nd.name](Platform &p) { return p.release(name); }, std::move(undo));
    children(nd.name) = std::move(after);
    // A port leaving a RoCE LAG bond splits its device: each port gets an
    // RDMA device of its own back, which later steps configure.
    if (bond)
        for (const auto &lag : model::roceLags(host_))
            if (lag.bond == nd.master)
                for (auto &split : model::roceLagSplit(host_, lag))
                    splitDevices_.emplace(split.netdev, std::move(split.device));
    return model::portAfterRelease(nd);
}

Status Planner::checkPortMtu(const std::string &origin, const std::string &port, const std::string &bond,
                             IpoibMode mode, const model::Port *rdmaPort) const
{
    unsigned mtu = bondMtu(bond);
    auto r = model::portMtuAtEnslave(mtu, mode, rdmaPort);
    if (r.ok())
        return {};
    return Error(IBNM_ERROR_INVALID_PROPERTY,
                 strprintf(_("the bond %s has MTU %u, which the kernel sets on its port %s at enslave: %s"),
                           bond.c_str(), mtu, port.c_str(), r.error().message().c_str()),
                 EINVAL)
        .withProperty("connection.master")
        .withProfile(origin);
}

// Stage 1, the interface: the P_Key child (refused where it cannot be
// made; null when it is not there yet) or the base interface (refused when
// it is not there).
Status Planner::findIpoib(const DesiredIpoib &x, const model::IpoibNetdev *&cur) const
{
    const std::string &origin = x.origin.id;
    if (x.pkey) {
        if (Status s = model::childCreatable(index_, x.parent, *x.pkey); !s.ok())
            return refused(std::move(s).error(),
                           s.error().code() == IBNM_ERROR_NOT_FOUND ? "infiniband.parent" : "infiniband.p-key",
                           origin);
        cur = index_.child(x.parent, *x.pkey);
        return {};
    }
    cur = findBase(x);
    if (cur == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND,
                     x.ifname.empty()
                         ? strprintf(_("no IPoIB interface has the address %s"), x.macAddress.c_str())
                         : strprintf(_("no IPoIB interface %s on this host"), x.ifname.c_str()))
            .withProperty(x.ifname.empty() ? "infiniband.mac-address" : "connection.interface-name")
            .withProfile(origin);
    return {};
}

// Stage 2, transport mode and MTU: refuses connected mode where the
// device has none and an MTU the kernel refuses; `eff` is the MTU the
// kernel uses (0 when the profile sets none), noted where it differs.
Status Planner::checkIpoibMtu(const DesiredIpoib &x, const model::Port *port, const model::Device *dev,
                              unsigned &eff)
{
    const std::string &origin = x.origin.id;
    if (x.mode == IpoibMode::Connected && dev && !model::connectedModeAvailable(*dev))
        return Error(IBNM_ERROR_NOT_SUPPORTED, model::connectedModeRefusal(*dev), EOPNOTSUPP)
            .withProperty("infiniband.transport-mode")
            .withProfile(origin);
    eff = 0;
    if (x.mtu != 0) {
        auto e = model::effectiveMtu(x.mtu, x.mode, port);
        if (!e.ok())
            return refused(std::move(e).error(), "infiniband.mtu", origin);
        eff = *e;
        if (eff != x.mtu)
            note(origin, x.ifname, [&] {
                return strprintf(
                    _("the kernel uses the MTU %u, not %u: the partition's broadcast group and the IB link "
                      "allow no more in datagram mode"),
                    eff, x.mtu);
            });
    }
    return {};
}

// Stage 3, the bond (connection.master): the port's MTU there, and a bond
// that is there already (not recreated by this plan) takes IPoIB ports
// only as bond_enslave() allows (its mode, fail_over_mac).
Status Planner::checkIpoibBond(const DesiredIpoib &x, const model::IpoibNetdev *cur, const std::string &base,
                               const model::Port *port) const
{
    const std::string &origin = x.origin.id;
    if (x.master.empty())
        return {};
    if (Status s = checkPortMtu(origin, x.ifname.empty() ? base : x.ifname, x.master, x.mode, port); !s.ok())
        return s;
    const model::Bond *b = index_.findBond(x.master);
    if (!b || bondPlanned(x.master))
        return {};
    if (!model::ipoibBondModeSupported(b->mode))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the bond %s has mode %s; IPoIB ports can only join an active-backup bond"),
                               x.master.c_str(), b->mode.c_str()),
                     EOPNOTSUPP)
            .withProperty("connection.master")
            .withProfile(origin);
    bool alreadyIn = cur && index_.findNetdev(cur->name) && index_.findNetdev(cur->name)->master == x.master;
    // A port whose mode changes leaves and joins again (planIpoibExisting).
    bool joins = !alreadyIn || cur->mode != x.mode;
    bool otherPorts = std::any_of(b->ports.begin(), b->ports.end(),
                                  [&](const std::string &p) { return !cur || p != cur->name; });
    if (joins && model::failOverMacAfterIpoibEnslave(b->failOverMac, otherPorts) != "active")
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the bond %s has ports and fail_over_mac=%s; the kernel refuses further IPoIB "
                                 "ports"),
                               x.master.c_str(), b->failOverMac.c_str()),
                     EOPNOTSUPP)
            .withProperty("connection.master")
            .withProfile(origin);
    return {};
}

// Stage 4a, a new P_Key child: created with its mode and umcast, then its
// MTU, link or bond, addresses, routes and DNS; its deletion undoes them
// all, and every step reports the name the kernel gave it.
void Planner::planIpoibChild(const DesiredIpoib &x)
{
    const std::string &origin = x.origin.id;
    platform::IpoibChildSpec spec;
    spec.parent = x.parent;
    spec.pkey = *x.pkey;
    spec.mode = x.mode;
    spec.umcast = x.umcast;
    // The planner names the child where the kernel takes a name; where it
    // does not (create_child), later steps use the name it gave, and the
    // report names it too.
    auto name = std::make_shared<std::string>();
    std::string parent = x.parent;
    uint16_t pkey = *x.pkey;
    std::string guess = model::childName(parent, pkey, host_.childNaming);
    spec.name = guess;
    const size_t first = steps.size(); // the creation's step (none kept for a verdict)
    add(
        IBNM_STEP_ACTION_CREATE_IPOIB_CHILD, guess,
        [&] {
            return strprintf(_("create the P_Key %s child of %s (%s mode)"), pkeyHex(pkey).c_str(), parent.c_str(),
                model::modeName(x.mode));
        },
        origin,
        [spec, name](Platform &p) -> Status {
            auto r = p.createIpoibChild(spec);
            if (!r.ok())
                return std::move(r).error();
            *name = *r;
            return {};
        },
        [parent, pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); });
    if (x.mtu != 0)
        add(
            IBNM_STEP_ACTION_SET_MTU, guess, [&] { return strprintf(_("set the MTU to %u"), x.mtu); }, origin,
            [name, mtu = x.mtu](Platform &p) { return p.setMtu(*name, mtu); }, {});
    if (x.master.empty())
        add(IBNM_STEP_ACTION_SET_UP, guess, _("set the link up"), origin, [name](Platform &p) { return p.setUp(*name, true); },
            {});
    else
        add(
            IBNM_STEP_ACTION_ENSLAVE, guess, [&] { return strprintf(_("add to bond %s"), x.master.c_str()); }, origin,
            [name, bond = x.master](Platform &p) { return p.enslave(*name, bond); }, {});
    for (const auto &a : x.ip->addresses)
        add(
            IBNM_STEP_ACTION_ADD_ADDRESS, guess, [&] { return strprintf(_("add address %s"), a.c_str()); }, origin,
            [name, a](Platform &p) { return p.addAddress(*name, a); }, {});
    for (const auto &r : x.ip->routes)
        add(
            IBNM_STEP_ACTION_ADD_ROUTE, guess, [&] { return strprintf(_("add route %s"), model::formatRoute(r).c_str()); }, origin,
            [name, r](Platform &p) { return p.addRoute(*name, r); }, {});
    if (dnsApplies(origin, guess, x.ip->dns))
        add(
            IBNM_STEP_ACTION_SET_DNS, guess, [&] { return dnsDetail(x.ip->dns); }, origin,
            [name, dns = x.ip->dns](Platform &p) { return p.setLinkDns(*name, dns); }, {});
    // The steps of the new child report the name the kernel gave; its
    // deletion undoes them all.
    coverFrom(first);
    for (size_t i = first; i < steps.size(); i++)
        steps[i].kernelName = name;
}

// Stage 4b, an interface that is there: it leaves a bond it must leave,
// goes down for a transport mode change, then umcast and MTU, and it joins
// its bond or comes up, with its addresses and routes.
void Planner::planIpoibExisting(const DesiredIpoib &x, const model::IpoibNetdev &cur, const model::Port *port,
                                unsigned eff)
{
    const std::string &origin = x.origin.id;
    std::string ifname = cur.name;
    const auto *nd = index_.findNetdev(ifname);
    bool isUp = nd ? nd->up : false;
    bool flushed = false;
    unsigned curMtu = nd ? nd->mtu : cur.mtu;

    // A port of another bond than the profile's, or of one when the profile
    // has none, leaves it first (as NetworkManager releases a port whose
    // device activates another profile): the kernel refuses enslaving a
    // port twice and changing a port's MTU.
    // Release closes the port and gives it back an MTU the host does not
    // show (model::portAfterRelease).
    // A port whose transport mode changes leaves its bond too, and joins it
    // again once the mode is set: the mode change sets the port's MTU
    // (model::mtuAfterModeChange), and only bond_enslave() gives it the
    // bond's again (model::portMtuAtEnslave), as NetworkManager re-activates
    // a port whose profile changed.
    bool mtuUnknown = false;
    bool released = false;
    if (nd && !nd->master.empty() && (nd->master != x.master || cur.mode != x.mode)) {
        auto after = planRelease(origin, *nd);
        isUp = after.up;
        flushed = after.flushed;
        mtuUnknown = !after.mtuKnown;
        released = true;
    }

    if (cur.mode != x.mode) {
        if (isUp)
            planDown(origin, ifname, _("set the link down to change the transport mode"));
        flushed = flushed || isUp;
        IpoibMode old = cur.mode;
        // The mode change sets the MTU as a side effect: the undo puts the
        // mode and the MTU back.
        add(
            IBNM_STEP_ACTION_SET_TRANSPORT_MODE, ifname,
            [&] { return strprintf(_("set the transport mode to %s"), model::modeName(x.mode)); }, origin,
            [ifname, m = x.mode](Platform &p) { return p.setIpoibMode(ifname, m); },
            [ifname, old, curMtu](Platform &p) -> Status {
                if (Status s = p.setIpoibMode(ifname, old); !s.ok())
                    return s;
                return p.setMtu(ifname, curMtu);
            });
        curMtu = model::mtuAfterModeChange(curMtu, x.mode, port);
        isUp = false;
    }
    if (x.umcast && *x.umcast != cur.umcast) {
        bool old = cur.umcast;
        add(
            IBNM_STEP_ACTION_SET_UMCAST, ifname, [&] { return strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"); }, origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    if (x.mtu != 0 && (mtuUnknown || curMtu != eff) && x.master.empty()) {
        add(
            IBNM_STEP_ACTION_SET_MTU, ifname, [&] { return strprintf(_("set the MTU to %u"), x.mtu); }, origin,
            [ifname, mtu = x.mtu](Platform &p) { return p.setMtu(ifname, mtu); },
            [ifname, curMtu](Platform &p) { return p.setMtu(ifname, curMtu); });
        curMtu = eff;
    }
    if (!x.master.empty()) {
        if (!nd || nd->master != x.master || released)
            planEnslave(origin, ifname, x.master, curMtu, isUp, flushed);
        planIp(origin, ifname, x.ip, flushed); // removes what it had (desired.cpp portIp)
        return;
    }
    planUp(origin, ifname, isUp);
    planIp(origin, ifname, x.ip, flushed);
}

// The stages in order: the interface, mode and MTU, the bond, then the
// steps for a new child or for the interface that is there.
Status Planner::planIpoib(const DesiredIpoib &x)
{
    if (rdmaOnly_)
        return planIpoibExtras(x);
    const model::IpoibNetdev *cur = nullptr;
    if (Status s = findIpoib(x, cur); !s.ok())
        return s;
    const std::string base = x.pkey ? x.parent : cur->name;
    const model::Port *port = model::portOf(index_, base);
    const model::Device *dev = model::deviceOf(index_, base);
    unsigned eff = 0;
    if (Status s = checkIpoibMtu(x, port, dev, eff); !s.ok())
        return s;
    if (Status s = checkIpoibBond(x, cur, base, port); !s.ok())
        return s;
    if (cur == nullptr)
        planIpoibChild(x);
    else
        planIpoibExisting(x, *cur, port, eff);
    return {};
}

Status Planner::planEthernet(const DesiredEthernet &x)
{
    const std::string &origin = x.origin.id;
    const auto *nd = index_.findNetdev(x.ifname);
    if (nd == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no interface %s on this host"), x.ifname.c_str()), ENODEV)
            .withProperty("connection.interface-name")
            .withProfile(origin);
    if (nd->type != 1)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s is not an Ethernet interface"), x.ifname.c_str()), EINVAL)
            .withProperty("connection.interface-name")
            .withProfile(origin);
    // dev_set_mtu() refuses less than ETH_MIN_MTU and more than the NIC's
    // maximum (model::linkMtuAccepted), for the profile's MTU and for the
    // bond's, which the port takes at enslave.
    unsigned wantMtu = x.master.empty() ? x.mtu : bondMtu(x.master);
    if (wantMtu != 0)
        if (Status s = model::linkMtuAccepted(x.ifname, wantMtu, nd->maxMtu); !s.ok())
            return refused(std::move(s).error(), x.master.empty() ? "802-3-ethernet.mtu" : "connection.master",
                           origin);
    unsigned curMtu = nd->mtu;
    bool isUp = nd->up, flushed = false, mtuUnknown = false;
    if (!nd->master.empty() && nd->master != x.master) {
        auto after = planRelease(origin, *nd); // as for IPoIB (planIpoib)
        isUp = after.up;
        flushed = after.flushed;
        mtuUnknown = !after.mtuKnown;
    }
    if (x.mtu != 0 && (mtuUnknown || curMtu != x.mtu) && x.master.empty()) {
        add(
            IBNM_STEP_ACTION_SET_MTU, x.ifname, [&] { return strprintf(_("set the MTU to %u"), x.mtu); }, origin,
            [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); },
            [name = x.ifname, curMtu](Platform &p) { return p.setMtu(name, curMtu); });
        curMtu = x.mtu;
    }
    if (!x.master.empty()) {
        if (nd->master != x.master)
            planEnslave(origin, x.ifname, x.master, curMtu, isUp, flushed);
        planIp(origin, x.ifname, x.ip, flushed); // removes what it had (desired.cpp portIp)
        return {};
    }
    planUp(origin, x.ifname, isUp);
    planIp(origin, x.ifname, x.ip, flushed);
    return {};
}

Status Planner::planBond(const DesiredBond &x)
{
    const std::string &origin = x.origin.id;
    // ETH_MIN_MTU to ETH_MAX_MTU (model::linkMtuAccepted): a bond's MTU the
    // kernel refuses fails here, not at up.
    if (x.mtu != 0)
        if (Status s = model::linkMtuAccepted(x.ifname, x.mtu, model::kBondMaxMtu); !s.ok())
            return refused(std::move(s).error(), x.mtuProperty, origin);
    const model::Bond *cur = index_.findBond(x.ifname);
    if (cur == nullptr) {
        if (index_.findNetdev(x.ifname))
            return Error(IBNM_ERROR_EXISTS,
                         strprintf(_("%s exists and is not a bond"), x.ifname.c_str()), EEXIST)
                .withProperty("connection.interface-name")
                .withProfile(origin);
        platform::BondSpec spec = bondSpec(x.ifname, x);
        const size_t first = steps.size(); // the creation's step (none kept for a verdict)
        add(
            IBNM_STEP_ACTION_CREATE_BOND, x.ifname, [&] { return strprintf(_("create the %s bond"), x.mode.c_str()); }, origin,
            [spec](Platform &p) { return p.createBond(spec); },
            [name = x.ifname](Platform &p) { return p.deleteLink(name); });
        if (x.mtu != 0 && x.mtu != model::kBondDefaultMtu)
            add(
                IBNM_STEP_ACTION_SET_MTU, x.ifname, [&] { return strprintf(_("set the MTU to %u"), x.mtu); }, origin,
                [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); }, {});
        coverFrom(first);
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
            .withProperty("bond.options.mode")
            .withProfile(origin);
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
        add(
            IBNM_STEP_ACTION_SET_BOND_OPTIONS, x.ifname, [&] { return strprintf(_("set %s"), what.c_str()); }, origin,
            [name = x.ifname, miimon, primary](Platform &p) { return p.setBondOptions(name, miimon, primary); },
            [name = x.ifname, oldMiimon, oldPrimary](Platform &p) {
                return p.setBondOptions(name, oldMiimon, oldPrimary);
            });
    }
    const auto *nd = index_.findNetdev(x.ifname);
    if (x.mtu != 0 && nd && nd->mtu != x.mtu) {
        // The driver sets the new MTU on every port too; the undo puts the
        // bond's back, which the driver also passes on.
        unsigned old = nd->mtu;
        add(
            IBNM_STEP_ACTION_SET_MTU, x.ifname, [&] { return strprintf(_("set the MTU to %u"), x.mtu); }, origin,
            [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); },
            [name = x.ifname, old](Platform &p) { return p.setMtu(name, old); });
    }
    if (!nd || !nd->up)
        pendingUp.emplace_back(origin, x.ifname);
    return {};
}
// The steps that bring `desired` onto `host`, in order; a planning error
// (a fact that refuses) fails before anything is changed.
Result<std::vector<Step>> makePlan(const Host &host, const Desired &desired, const Options &options, Report &report,
                                   bool record)
{
    Planner planner(host, report, options.rdmaOnly, options.index, record);
    planner.setChildrenBefore(options.childrenBefore);
    planner.setDesiredBonds(desired.bonds);
    planner.predictRoceLags(desired);
    std::set<std::string> newNetdevs;
    if (!options.rdmaOnly)
        for (const auto &b : desired.bonds)
            newNetdevs.insert(b.ifname);

    // Order: bonds are created first so ports can join them; ports and other
    // interfaces are configured (mode, MTU) and then enslaved or set up;
    // bonds come up after their ports; soft RDMA links come last, over
    // netdevs that now exist.
    std::vector<Step> bondSteps, ipoibSteps, upSteps, rdmaSteps;
    for (const auto &b : desired.bonds)
        if (Status s = options.rdmaOnly ? Status{} : planner.planBond(b); !s.ok())
            return std::move(s).error();
    bondSteps = std::move(planner.steps);
    planner.steps.clear();
    // A few steps per interface (create, mode, MTU, enslave): sized once.
    if (record)
        planner.steps.reserve(4 * (desired.ipoib.size() + desired.ethernet.size()));
    // Parents before children.
    for (int pass = 0; pass < 2; pass++)
        for (const auto &x : desired.ipoib)
            if (bool(x.pkey) == (pass == 1))
                if (Status s = planner.planIpoib(x); !s.ok())
                    return std::move(s).error();
    if (!options.rdmaOnly)
        for (const auto &x : desired.ethernet)
            if (Status s = planner.planEthernet(x); !s.ok())
                return std::move(s).error();
    ipoibSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &[origin, ifname] : planner.pendingUp)
        planner.planUp(origin, ifname, false);
    if (!options.rdmaOnly)
        for (const auto &b : desired.bonds)
            planner.planIp(b.origin.id, b.ifname, b.ip, false);
    upSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &r : desired.rdma)
        if (Status s = planner.planRdma(r, newNetdevs); !s.ok())
            return std::move(s).error();
    rdmaSteps = std::move(planner.steps);

    // A step nothing can undo (a TTL whose previous value the kernel does
    // not show) runs last, so that no later failure leaves it behind.
    std::vector<Step> steps, last;
    // Sized once: growing it step by step copied a plan of 10,000 profiles
    // (40,000 steps) several times over.
    steps.reserve(bondSteps.size() + ipoibSteps.size() + upSteps.size() + rdmaSteps.size());
    for (auto *v : {&bondSteps, &ipoibSteps, &upSteps, &rdmaSteps})
        for (auto &s : *v)
            (s.undo || s.removed ? steps : last).push_back(std::move(s));
    for (auto &s : last)
        steps.push_back(std::move(s));
    return steps;
}

} // namespace ibnm::activation::detail

namespace ibnm::activation {

using detail::finish;
using detail::makePlan;
using detail::planningFailed;
using detail::Planner;
using model::Host;

Report plan(const Host &host, const Desired &desired, const Options &options)
{
    Report report;
    auto steps = makePlan(host, desired, options, report, !options.verdictOnly);
    if (!steps.ok())
        return planningFailed(std::move(report), std::move(steps).error());
    finish(*steps, report);
    return report;
}

std::optional<std::string> activeInterface(const Host &host, const Desired &desired)
{
    Report report;
    auto steps = makePlan(host, desired, Options{}, report);
    if (!steps.ok() || !steps->empty())
        return std::nullopt;
    std::string name;
    if (!desired.ipoib.empty()) {
        Planner planner(host, report);
        const model::IpoibNetdev *ib = planner.find(desired.ipoib.front());
        if (ib == nullptr)
            return std::nullopt;
        name = ib->name;
    } else if (!desired.bonds.empty()) {
        name = desired.bonds.front().ifname;
    } else if (!desired.ethernet.empty()) {
        name = desired.ethernet.front().ifname;
    }
    const model::Netdev *nd = name.empty() ? nullptr : host.findNetdev(name);
    if (nd == nullptr || !nd->up)
        return std::nullopt;
    return name;
}

} // namespace ibnm::activation
