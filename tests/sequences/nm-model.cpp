// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference model of NetworkManager 1.42's activation rules
// (nm-model.hpp). The rules, each with where it comes from; "lab" means
// checked with nmcli against NetworkManager 1.42.4 in the NetworkManager lab
// (/work/shared/labs/nm) on veth, macvlan and bridge devices on 2026-11-26
// (IPoIB and bonding are absent there: a macvlan stands for a P_Key child,
// a bridge for a bond):
//
// N1  `down` of a profile that is not active fails, exit 10, "Error: 'X' is
//     not an active connection.", and touches nothing (lab; nmcli
//     connections.c do_connection_down()).
// N2  `delete` of an inactive profile never touches its device (lab: the
//     device kept its addresses).
// N3  `delete` of an active profile deactivates it first: its software
//     device goes (lab: macvlan deleted).
// N4  `up` of an active profile whose stored settings changed deactivates the
//     old activation first (its software device deleted, its addresses
//     removed), then activates the new settings (lab: macvlan renamed mv1 ->
//     mv2, address 198.51.100.1 -> .2 on veth-a; interface-name veth-a ->
//     veth-b moves the address). nm-manager.c _internal_activate_device():
//     an active connection on the device is deactivated first.
// N5  `modify` does not touch the active connection; `down` and `delete`
//     after it take down what the activation made with the settings it was
//     activated with (lab: modify interface-name mv2 -> mv3, down deleted
//     mv2).
// N6  one active connection per device: activating another profile on the
//     device deactivates the first (lab: B on veth-b replaced A).
// N7  a port's activation brings up its controller's profile when the
//     controller is not there (lab: bridge port up activated the bridge
//     profile; a bridge made outside NetworkManager took the port as it was,
//     its profile staying inactive) and the port loses every address (lab:
//     its earlier activation's and one added by hand; FACTS.md for bonds).
// N8  `down` of a controller deactivates its ports (lab: bridge down took the
//     port's active connection down); `down` of a port leaves the controller
//     active (lab).
// N9  an activation takes the device's IP configuration over: afterwards the
//     device has exactly the profile's addresses (lab: the external
//     203.0.113.5/24 was removed at `up`); a port has none (lab).
// N10 `down` restores what the activation changed. NetworkManager restores
//     the MTU (lab: 1400 -> 1500) but leaves the link up and does not put
//     back addresses it removed (lab: 203.0.113.5/24 and a port's
//     203.0.113.8/24 stayed removed); issue 27 asks ibnm to restore every
//     value it changed ("down removes exactly what its activation made or
//     changed, and restores what it changed"), which the model follows (the
//     difference shows only where something pre-existed); the addresses
//     alone are rule N10a, restoreRemovedAddresses false being
//     NetworkManager's way (ibnm restores them:
//     docs/active-connections.md).
// N11 an unknown profile: exit 10 for up, down, modify and delete (lab).
// N12 ibnm's own, by issue 27: a second `up` of active, unchanged profiles
//     is 0 operations (NetworkManager re-activates: lab, a new active
//     connection path each time); several profiles in one `up` are one
//     transaction.
// N13 ibnm's own, docs/differences-from-nmcli.md: add and modify refuse a
//     profile that `ibnm check` calls an error (with the host chosen), two
//     profiles for one interface included (NetworkManager stores both).
// Kernel facts (FACTS.md): the P_Key child's name, MTU clamps and limits,
// the mode change's MTU and link cycle, a parent's close taking its children
// down (item 4), link down flushing IPv6 addresses, bond enslave and
// release, Ethernet and bond MTU from 68, RoCE LAG.
#include "config.h"

#include "tests/sequences/nm-model.hpp"


#include <glib.h>

#include <algorithm>

namespace ibnm::test::nm {

namespace {

constexpr unsigned kConnectedMtu = 65520; // IPOIB_CM_MTU
constexpr unsigned kMinMtu = 68;          // ETH_MIN_MTU
constexpr unsigned kMinIpoibMtu = 72;     // ETH_MIN_MTU + the 4-byte IPoIB header

bool isIpv6(const std::string &a)
{
    return a.find(':') != std::string::npos;
}

} // namespace


const char *statusName(Status s)
{
    switch (s) {
    case Status::Ok: return "ok";
    case Status::Refused: return "refused before any change";
    case Status::Failed: return "failed and rolled back";
    case Status::NotActive: return "not active (exit 10)";
    case Status::NotFound: return "not found (exit 10)";
    }
    return "?";
}

// --- what `ibnm check` must call an error ---------------------------------------------

const Profile *Model::profile(const std::string &id) const
{
    auto it = profiles_.find(id);
    return it == profiles_.end() ? nullptr : &it->second;
}

const Activation *Model::activation(const std::string &id) const
{
    auto it = active_.find(id);
    return it == active_.end() ? nullptr : &it->second;
}

std::string Model::deviceOf(const Profile &p) const
{
    if (p.isChild())
        return childName(p.parent, p.pkey, host_.ofedNaming);
    if (!p.ifname.empty())
        return p.ifname;
    // NetworkManager matches an IPoIB port by the last 8 bytes of its
    // address (the port GUID; FACTS.md).
    for (const auto &[name, l] : host_.links)
        if (l.ipoib && l.kind == Link::Kind::Hardware && p.mac.size() >= 23 &&
            g_ascii_strcasecmp(l.guid.c_str(), p.mac.substr(p.mac.size() - 23).c_str()) == 0)
            return name;
    return {};
}

const Profile *Model::bondProfile(const std::map<std::string, Profile> &store, const std::string &ifname) const
{
    for (const auto &[id, p] : store)
        if (p.type == Profile::Type::Bond && p.ifname == ifname)
            return &p;
    return nullptr;
}

// The rules about one profile and the host.
std::optional<std::string> Model::errorAlone(const Profile &p) const
{
    auto link = [&](const std::string &n) -> const Link * {
        auto it = host_.links.find(n);
        return it == host_.links.end() ? nullptr : &it->second;
    };
    if (p.type == Profile::Type::Infiniband) {
        // The IPoIB port: the parent of a child, or the interface itself.
        const Link *port = link(p.isChild() ? p.parent : deviceOf(p));
        if (!port || !port->ipoib || port->kind != Link::Kind::Hardware)
            return "no IPoIB port " + (p.isChild() ? p.parent : p.ifname.empty() ? p.mac : p.ifname);
        // The kernel refuses a child in the parent's own partition (ENOTUNIQ).
        if (p.isChild() && unsigned(p.pkey | 0x8000) == port->pkey)
            return "P_Key of the parent itself";
        // Enhanced IPoIB and kernels without IPOIB_CM refuse connected mode.
        if (p.connected && !port->connectedOk)
            return "connected mode not supported";
        // ipoib_change_mtu(): a datagram MTU above IPOIB_UD_MTU is EINVAL.
        if (!p.connected && p.mtu > port->datagramMax)
            return "datagram MTU above " + std::to_string(port->datagramMax);
        return std::nullopt;
    }
    if (p.type == Profile::Type::Ethernet) {
        const Link *l = link(p.ifname);
        if (!l || l->ipoib || l->kind != Link::Kind::Hardware)
            return "no Ethernet interface " + p.ifname;
        // The kernel refuses an MTU below ETH_MIN_MTU or above the NIC's
        // maximum (FACTS.md, issue 27 item 4).
        if (p.mtu && (p.mtu < kMinMtu || p.mtu > l->maxMtu))
            return "MTU " + std::to_string(p.mtu) + " out of range";
        // rxe has RoCE v2 only, siw is not RoCE (rdma_rxe, siw; ibnm-keyfile(5)).
        if (p.linkType == "rxe" && p.roceMode == "v1")
            return "rxe has no RoCE v1";
        if (p.linkType == "siw" && !p.roceMode.empty())
            return "siw has no RoCE mode";
        std::string dev = p.linkType.empty() ? l->rdmaDevice : p.linkName;
        if ((!p.roceMode.empty() || p.roceTos >= 0) && dev.empty())
            return "no RDMA device for the RoCE defaults";
        // tc/<port>/traffic_class and ttl are mlx5's.
        auto f = host_.functions.find(l->rdmaDevice);
        bool mlx5 = p.linkType.empty() && f != host_.functions.end() && f->second.driver == "mlx5_core";
        if ((p.trafficClass >= 0 || p.ttl >= 0) && !mlx5)
            return "traffic class without mlx5";
        return std::nullopt;
    }
    if (p.mtu && p.mtu < kMinMtu)
        return "bond MTU " + std::to_string(p.mtu) + " below 68";
    if (const Link *l = link(p.ifname); l && l->kind != Link::Kind::Bond)
        return p.ifname + " is not a bond";
    return std::nullopt;
}

// The rules over the whole store (check, and add/modify through it).
std::map<std::string, std::string> Model::errorsOf(const std::map<std::string, Profile> &store) const
{
    std::map<std::string, std::string> errs;
    auto flag = [&](const std::string &id, const std::string &why) { errs.emplace(id, why); };
    std::map<std::string, std::string> byDevice, bySoftLink;
    for (const auto &[id, p] : store) {
        if (auto e = errorAlone(p))
            flag(id, *e);
        // Two profiles for one interface, or one soft link: ibnm cannot
        // bring both up (docs/differences-from-nmcli.md). A child is the
        // parent's and its P_Key with the full-membership bit: the kernel
        // refuses 0x0002 beside 0x8002 (ENOTUNIQ).
        std::string dev = deviceOf(p);
        std::string key = p.isChild() ? p.parent + "/" + std::to_string(p.pkey | 0x8000) : dev;
        if (!dev.empty()) {
            if (auto [it, fresh] = byDevice.emplace(key, id); !fresh) {
                flag(id, "another profile for " + dev + ": " + it->second);
                flag(it->second, "another profile for " + dev + ": " + id);
            }
        }
        if (!p.linkName.empty()) {
            if (auto [it, fresh] = bySoftLink.emplace(p.linkName, id); !fresh) {
                flag(id, "another profile creates " + p.linkName);
                flag(it->second, "another profile creates " + p.linkName);
            }
        }
        if (p.master.empty())
            continue;
        const Profile *bond = bondProfile(store, p.master);
        if (!bond) {
            flag(id, "no bond profile " + p.master);
            continue;
        }
        // Bonding: IPoIB ports only in active-backup (EOPNOTSUPP); a port
        // takes the bond's MTU, which a datagram port refuses above its
        // maximum, any port below its minimum (FACTS.md: 68, IPoIB 72).
        if (bond->mtu && bond->mtu < (p.type == Profile::Type::Infiniband ? kMinIpoibMtu : kMinMtu)) {
            flag(id, "bond MTU below the port's minimum");
            flag(bond->id, "MTU below the minimum of port " + id);
        }
        if (p.type == Profile::Type::Infiniband) {
            if (bond->bondMode != "active-backup") {
                flag(id, "IPoIB port of a " + bond->bondMode + " bond");
                flag(bond->id, "IPoIB port " + id + " needs active-backup");
            }
            auto l = host_.links.find(deviceOf(p));
            if (l != host_.links.end() && !p.connected && bond->mtu > l->second.datagramMax) {
                flag(id, "bond MTU above the datagram maximum");
                flag(bond->id, "MTU above the datagram maximum of port " + id);
            }
        }
    }
    return errs;
}

// --- commands ---------------------------------------------------------------------

Outcome Model::add(const Profile &p)
{
    if (profiles_.count(p.id))
        return {Status::Refused, "a profile named " + p.id + " exists"};
    auto store = profiles_;
    store[p.id] = p;
    if (auto e = errorsOf(store); e.count(p.id))
        return {Status::Refused, e.at(p.id)};
    profiles_ = std::move(store);
    return {};
}

// N5: the stored profile changes; the active connection does not.
Outcome Model::modify(const std::string &id, const Profile &to)
{
    if (!profiles_.count(id))
        return {Status::NotFound, id};
    auto store = profiles_;
    store[id] = to;
    if (auto e = errorsOf(store); e.count(id))
        return {Status::Refused, e.at(id)};
    profiles_ = std::move(store);
    return {};
}

// N2, N3.
Outcome Model::remove(const std::string &id)
{
    if (!profiles_.count(id))
        return {Status::NotFound, id};
    if (active(id))
        keepChildren([&]() { deactivate(id); });
    profiles_.erase(id);
    return {};
}

// One transaction (N12): refused as a whole when check has an error for
// one of them or for a bond a port brings up (N7).
Outcome Model::up(const std::vector<std::string> &ids, bool force)
{
    for (const auto &id : ids)
        if (!profiles_.count(id))
            return {Status::NotFound, id};
    auto errs = force ? std::map<std::string, std::string>() : errors();
    Outcome refused{Status::Ok, {}, true};
    for (const auto &id : ids) {
        std::vector<std::string> involved = {id};
        const std::string &master = profiles_.at(id).master;
        if (const Profile *b = bondProfile(profiles_, master); b && !active(b->id) && !host_.links.count(master))
            involved.push_back(b->id);
        for (const auto &x : involved)
            if (errs.count(x)) {
                if (refused.status == Status::Ok)
                    refused = {Status::Refused, x + ": " + errs.at(x), true};
                refused.conflictOnly = refused.conflictOnly && errs.at(x).rfind("another profile", 0) == 0;
            }
    }
    if (refused.status != Status::Ok)
        return refused;
    // Bonds before the rest: a bond's re-activation takes its ports down
    // (N8), and every profile named ends active.
    std::vector<std::string> order;
    for (int bonds = 1; bonds >= 0; bonds--)
        for (const auto &id : ids)
            if ((profiles_.at(id).type == Profile::Type::Bond) == bool(bonds))
                order.push_back(id);
    Model next = *this;
    next.keepChildren([&]() {
        for (const auto &id : order)
            next.activate(id);
    });
    *this = std::move(next);
    return {};
}

// N1, N8.
Outcome Model::down(const std::vector<std::string> &ids)
{
    for (const auto &id : ids)
        if (!profiles_.count(id))
            return {Status::NotFound, id};
    for (const auto &id : ids)
        if (!active(id))
            return {Status::NotActive, id};
    keepChildren([&]() {
        for (const auto &id : ids)
            if (active(id))
                deactivate(id);
    });
    return {};
}

const Profile *Model::documentProfile(const Profile &entry) const
{
    for (const auto &[id, p] : profiles_)
        if (!p.ifname.empty() && p.ifname == entry.ifname)
            return &p;
    return profile(entry.ifname);
}

Profile Model::merged(const Profile &e) const
{
    const Profile *stored = documentProfile(e);
    if (!stored) {
        Profile p = e;
        p.id = e.ifname; // a new profile is named after its interface
        return p;
    }
    Profile p = *stored;
    p.type = e.type;
    p.ifname = e.ifname;
    p.parent = e.parent;
    p.pkey = e.pkey;
    p.connected = e.connected;
    p.ipv4 = e.ipv4;
    p.ipv6 = e.ipv6;
    // Keys the document leaves out keep their stored values.
    if (e.mtu)
        p.mtu = e.mtu;
    if (e.umcast)
        p.umcast = e.umcast;
    if (!e.linkType.empty()) {
        p.linkType = e.linkType;
        p.linkName = e.linkName;
    }
    if (!e.roceMode.empty())
        p.roceMode = e.roceMode;
    if (e.roceTos >= 0)
        p.roceTos = e.roceTos;
    if (e.trafficClass >= 0)
        p.trafficClass = e.trafficClass;
    if (e.ttl >= 0)
        p.ttl = e.ttl;
    return p;
}

// docs/declarative-state.md: each entry's profile is written (merged with the
// stored one), those marked down or absent are taken down, those marked up
// brought up (re-activated when changed: N4), absent ones deleted; one
// transaction, refused as a whole when check has an error for an entry.
Outcome Model::apply(const std::vector<DocEntry> &doc, bool force)
{
    Model next = *this;
    std::vector<std::string> ids;
    for (const auto &e : doc) {
        // A port has no IP settings of its own (NetworkManager refuses them);
        // the documents here always give them.
        if (const Profile *stored = documentProfile(e.profile);
            stored && !stored->master.empty() && e.state != "absent" && !force)
            return {Status::Refused, stored->id + " is a port of " + stored->master};
        Profile p = merged(e.profile);
        next.profiles_[p.id] = p;
        ids.push_back(p.id);
    }
    auto errs = force ? std::map<std::string, std::string>() : next.errors();
    for (size_t i = 0; i < doc.size(); i++)
        if (doc[i].state != "absent" && errs.count(ids[i]))
            return {Status::Refused, ids[i] + ": " + errs.at(ids[i])};
    next.keepChildren([&]() {
        for (size_t i = 0; i < doc.size(); i++)
            if (doc[i].state != "up" && next.active(ids[i]))
                next.deactivate(ids[i]);
        for (size_t i = 0; i < doc.size(); i++)
            if (doc[i].state == "up")
                next.activate(ids[i]);
    });
    for (size_t i = 0; i < doc.size(); i++)
        if (doc[i].state == "absent")
            next.profiles_.erase(ids[i]);
    *this = std::move(next);
    return {};
}

void Model::resync(const Host &h)
{
    std::set<std::string> mine = owned();
    for (auto it = everCreated_.begin(); it != everCreated_.end();)
        it = !mine.count(*it) && (h.links.count(*it) || h.softLinks.count(*it)) ? everCreated_.erase(it) : std::next(it);
    host_ = h;
}

void Model::linkDownByHand(const std::string &name)
{
    if (host_.links.count(name))
        setUp(name, false);
}

void Model::setProfile(const std::string &id, const std::optional<Profile> &p)
{
    if (p) {
        profiles_[id] = *p;
    } else {
        profiles_.erase(id);
        active_.erase(id);
    }
}

std::set<std::string> Model::owned() const
{
    std::set<std::string> out;
    for (const auto &[id, a] : active_) {
        out.insert(a.createdLinks.begin(), a.createdLinks.end());
        out.insert(a.createdSoftLinks.begin(), a.createdSoftLinks.end());
    }
    return out;
}

// --- activation ---------------------------------------------------------------------

void Model::activate(const std::string &id)
{
    const Profile p = profiles_.at(id);
    // N4: a changed profile's old activation goes first.
    if (auto it = active_.find(id); it != active_.end() && it->second.applied != p)
        deactivate(id);
    // N7: a port's controller profile comes up first, where the controller
    // is not there (lab: a bridge made outside NetworkManager stayed as it
    // was, its profile inactive, and took the port).
    if (!p.master.empty())
        if (const Profile *b = bondProfile(profiles_, p.master); b && !active(b->id) && !host_.links.count(p.master))
            activate(b->id);
    std::string dev = deviceOf(p);
    // N6: one active connection per device.
    std::vector<std::string> others;
    for (const auto &[other, a] : active_)
        if (other != id && a.device == dev)
            others.push_back(other);
    for (const auto &o : others)
        deactivate(o);
    // An active, unchanged profile keeps what it owns and the values to
    // restore; activating it again only brings the host back to it.
    Activation &a = active_[id];
    a.applied = p;
    a.device = dev;
    commandDevices_.insert(dev);
    std::optional<Link> before;
    if (host_.links.count(dev) && !a.createdLinks.count(dev))
        before = host_.links.at(dev);
    switch (p.type) {
    case Profile::Type::Infiniband: activateInfiniband(a, p); break;
    case Profile::Type::Bond: activateBond(a, p); break;
    case Profile::Type::Ethernet: activateEthernet(a, p); break;
    }
    if (before && host_.links.count(dev))
        record(a, dev, *before);
}

void Model::activateInfiniband(Activation &a, const Profile &p)
{
    const std::string &dev = a.device;
    if (p.isChild() && !host_.links.count(dev)) {
        // The kernel creates the child down, with the mode asked and that
        // mode's MTU: connected 65520, datagram the clamp ceiling.
        Link c = host_.links.at(p.parent);
        c.kind = Link::Kind::Child;
        c.parent = p.parent;
        c.pkey = unsigned(p.pkey) | 0x8000;
        c.connected = p.connected;
        c.mtu = p.connected ? kConnectedMtu : c.datagramCeiling;
        c.up = false;
        c.umcast = false;
        c.master.clear();
        c.addresses.clear();
        c.mtuBeforeEnslave.reset();
        host_.links[dev] = c;
        a.createdLinks.insert(dev);
        everCreated_.insert(dev);
    }
    Link &l = host_.links.at(dev);
    if (!p.master.empty()) {
        // A port (N7, N9): its mode (the link cycles), then the bond, whose
        // MTU it takes; set up again after a mode change while enslaved
        // (issue 27 item 4); no addresses of its own.
        if (!l.master.empty() && l.master != p.master)
            release(dev);
        bool cycled = l.connected != p.connected;
        if (cycled)
            setMode(dev, p.connected);
        if (l.master != p.master) {
            enslave(dev, p.master);
        } else if (cycled) {
            setMtu(dev, host_.links.at(p.master).mtu.value_or(0));
            setUp(dev, true);
        }
        if (p.umcast)
            l.umcast = *p.umcast;
        l.addresses.clear();
        return;
    }
    if (!l.master.empty())
        release(dev);
    if (l.connected != p.connected)
        setMode(dev, p.connected);
    if (p.mtu)
        setMtu(dev, p.mtu);
    if (p.umcast)
        l.umcast = *p.umcast;
    l.addresses = {p.ipv4.begin(), p.ipv4.end()};
    l.addresses.insert(p.ipv6.begin(), p.ipv6.end());
    setUp(dev, true);
}

void Model::activateBond(Activation &a, const Profile &p)
{
    const std::string &dev = a.device;
    if (!host_.links.count(dev)) {
        Link b;
        b.kind = Link::Kind::Bond;
        b.mtu = 1500; // ether_setup()
        host_.links[dev] = b;
        host_.bondModes[dev] = p.bondMode;
        a.createdLinks.insert(dev);
        everCreated_.insert(dev);
    }
    if (p.mtu)
        setMtu(dev, p.mtu);
    Link &l = host_.links.at(dev);
    l.addresses = {p.ipv4.begin(), p.ipv4.end()};
    l.addresses.insert(p.ipv6.begin(), p.ipv6.end());
    setUp(dev, true);
}

void Model::activateEthernet(Activation &a, const Profile &p)
{
    const std::string &dev = a.device;
    Link &l = host_.links.at(dev);
    if (!l.master.empty() && l.master != p.master)
        release(dev); // a RoCE LAG port on its own: the LAG splits
    if (!p.master.empty()) {
        if (l.master != p.master)
            enslave(dev, p.master);
        l.addresses.clear();
        return;
    }
    if (p.mtu)
        setMtu(dev, p.mtu);
    l.addresses = {p.ipv4.begin(), p.ipv4.end()};
    l.addresses.insert(p.ipv6.begin(), p.ipv6.end());
    setUp(dev, true);
    activateRdma(a, p);
}

// ibnm's [user] keys (ibnm-keyfile(5)), what NetworkManager does not do: the
// soft link it creates, the RoCE defaults and traffic class it sets.
void Model::activateRdma(Activation &a, const Profile &p)
{
    if (!p.linkType.empty() && !host_.softLinks.count(p.linkName)) {
        host_.softLinks[p.linkName] = {p.linkType, a.device};
        a.createdSoftLinks.insert(p.linkName);
        everCreated_.insert(p.linkName);
    }
    std::string dev = p.linkType.empty() ? host_.rdmaDeviceOf(a.device) : p.linkName;
    unsigned port = p.linkType.empty() ? host_.links.at(a.device).rdmaPort : 1;
    std::string key = dev + "/" + std::to_string(port);
    bool created = a.createdSoftLinks.count(dev) > 0;
    if (!p.roceMode.empty() || p.roceTos >= 0) {
        RoceDefaults &r = host_.roce[key];
        if (!created && !a.roceBefore.count(key))
            a.roceBefore[key] = r;
        if (!r.present) {
            // mkdir in configfs: the kernel's defaults for what the profile
            // does not set (not predicted).
            r.present = true;
            r.mode.reset();
            r.tos.reset();
        }
        if (!p.roceMode.empty())
            r.mode = p.roceMode;
        if (p.roceTos >= 0)
            r.tos = unsigned(p.roceTos);
    }
    if (p.trafficClass >= 0 || p.ttl >= 0) {
        TrafficClass &t = host_.tc[key];
        if (!a.tcBefore.count(key))
            a.tcBefore[key] = t;
        if (p.trafficClass >= 0)
            t.tclass = unsigned(p.trafficClass);
        if (p.ttl >= 0)
            t.ttl = unsigned(p.ttl);
    }
}

// N3, N8, N10.
void Model::deactivate(const std::string &id)
{
    Activation a = active_.at(id);
    commandDevices_.insert(a.device);
    if (a.applied.type == Profile::Type::Bond) {
        std::vector<std::string> ports;
        for (const auto &[other, pa] : active_)
            if (pa.applied.master == a.applied.ifname)
                ports.push_back(other);
        for (const auto &p : ports)
            deactivate(p);
    }
    restore(a);
    active_.erase(id);
}

// What `down` must leave: everything the activation created gone, everything
// it changed back at the value before (N10), with the kernel's side effects
// on what it does not own (a parent's cycle takes its children down).
void Model::restore(const Activation &a)
{
    for (const auto &name : a.createdSoftLinks) {
        host_.softLinks.erase(name);
        host_.roce.erase(name + "/1");
    }
    for (const auto &[key, r] : a.roceBefore)
        host_.roce[key] = r;
    for (const auto &[key, t] : a.tcBefore)
        host_.tc[key] = t;
    for (const auto &name : a.createdLinks)
        if (host_.links.count(name))
            deleteLink(name);
    for (const auto &[name, fields] : a.changedFields) {
        if (!host_.links.count(name))
            continue;
        Link &l = host_.links.at(name);
        const Link &before = a.linksBefore.at(name);
        const Link now = l;
        if (fields.count("master") && l.master != before.master) {
            if (!l.master.empty())
                release(name);
            if (!before.master.empty())
                enslave(name, before.master);
            // A link state the activation did not change is as it found it
            // (a release closes the port, an enslave opens it).
            if (!fields.count("up") && l.up != before.up)
                setUp(name, before.up);
            if (!fields.count("addresses"))
                l.addresses = now.addresses;
        }
        if (fields.count("mode") && l.connected != before.connected)
            setMode(name, before.connected);
        if (fields.count("mtu") && before.master.empty() && before.mtu && l.mtu != before.mtu)
            setMtu(name, *before.mtu);
        if (fields.count("umcast"))
            l.umcast = before.umcast;
        if (fields.count("up") && l.up != before.up)
            setUp(name, before.up);
        // The profiles here set both address families (manual or
        // disabled), so their activation owned every address.
        if (fields.count("addresses"))
            l.addresses = restoreRemovedAddresses ? before.addresses : std::set<std::string>();
    }
}

// F1 (issue 27 item 4): a command that takes an IPoIB port down and up again
// (a mode change, a release, a teardown and a new activation) leaves the
// port's P_Key children as they were before the command, their link and
// their addresses: the kernel closes them with their parent and opens them
// again without their IPv6 addresses, and an activation changes no other
// profile's device (NetworkManager's rule). A port left down keeps them
// closed; a child the command itself activates or takes down is its own.
template <typename Fn>
void Model::keepChildren(Fn &&command)
{
    std::map<std::string, Link> before;
    for (const auto &[name, c] : host_.links)
        if (c.kind == Link::Kind::Child)
            before[name] = c;
    commandDevices_.clear();
    command();
    for (const auto &[name, c] : before) {
        auto child = host_.links.find(name);
        auto parent = host_.links.find(c.parent);
        if (child == host_.links.end() || parent == host_.links.end() || !parent->second.up ||
            commandDevices_.count(name))
            continue;
        child->second.up = c.up;
        child->second.addresses = c.addresses;
    }
}

// --- the kernel (FACTS.md) --------------------------------------------------------------

// The fields of `name` the activation changed, with their values before,
// where no earlier activation of the profile recorded them (not for what
// it created: that goes as a whole).
void Model::record(Activation &a, const std::string &name, const Link &before)
{
    const Link &now = host_.links.at(name);
    std::set<std::string> &fields = a.changedFields[name];
    Link &saved = a.linksBefore.emplace(name, before).first->second;
    auto note = [&](const char *field, bool changed, auto member) {
        if (changed && !fields.count(field)) {
            fields.insert(field);
            saved.*member = before.*member;
        }
    };
    note("up", now.up != before.up, &Link::up);
    note("mtu", now.mtu != before.mtu, &Link::mtu);
    note("mode", now.connected != before.connected, &Link::connected);
    note("umcast", now.umcast != before.umcast, &Link::umcast);
    note("master", now.master != before.master, &Link::master);
    note("addresses", now.addresses != before.addresses, &Link::addresses);
}

// dev_close(): the link down, its IPv6 addresses flushed
// (keep_addr_on_down 0); an IPoIB parent takes its P_Key children down with
// it (ipoib_stop(): "Bring down any child interfaces too"). dev_open():
// ipoib_open() opens them again.
void Model::setUp(const std::string &name, bool up)
{
    Link &l = host_.links.at(name);
    if (up) {
        // ipoib_open(): "Bring up any child interfaces too" (what they
        // lost when they went down stays lost).
        bool opened = !l.up;
        l.up = true;
        if (opened && l.ipoib && l.kind == Link::Kind::Hardware)
            for (auto &[child, c] : host_.links)
                if (c.kind == Link::Kind::Child && c.parent == name)
                    c.up = true;
        return;
    }
    if (!l.up)
        return; // dev_close() of a closed link does nothing
    l.up = false;
    for (auto it = l.addresses.begin(); it != l.addresses.end();)
        it = isIpv6(*it) ? l.addresses.erase(it) : std::next(it);
    for (auto &[child, c] : host_.links)
        if (c.kind == Link::Kind::Child && c.parent == name && c.up)
            setUp(child, false);
}

// ipoib_set_mode() needs the link down; connected sets the MTU to 65520,
// datagram to min(broadcast group, current).
void Model::setMode(const std::string &name, bool connected)
{
    Link &l = host_.links.at(name);
    bool wasUp = l.up;
    if (wasUp)
        setUp(name, false);
    l.connected = connected;
    if (connected)
        l.mtu = kConnectedMtu;
    else if (l.mtu)
        l.mtu = std::min(*l.mtu, l.datagramCeiling);
    if (wasUp)
        setUp(name, true);
}

// dev_set_mtu(): a datagram IPoIB link clamps to the broadcast group's MTU
// (the asked value kept as admin_mtu); a bond passes its MTU to every port.
void Model::setMtu(const std::string &name, unsigned mtu)
{
    Link &l = host_.links.at(name);
    if (mtu == 0) {
        l.mtu.reset();
        return;
    }
    l.mtu = l.ipoib && !l.connected ? std::min(mtu, l.datagramCeiling) : mtu;
    if (l.kind == Link::Kind::Bond)
        for (auto &[port, pl] : host_.links)
            if (pl.master == name)
                setMtu(port, mtu);
}

// bond_enslave(): the port takes the bond's MTU and is opened.
void Model::enslave(const std::string &port, const std::string &bond)
{
    Link &l = host_.links.at(port);
    l.mtuBeforeEnslave = l.mtu;
    l.master = bond;
    setMtu(port, host_.links.at(bond).mtu.value_or(0));
    setUp(port, true);
}

// __bond_release_one(): the port closed, with the MTU it had before.
void Model::release(const std::string &port)
{
    Link &l = host_.links.at(port);
    l.master.clear();
    setUp(port, false);
    if (l.mtuBeforeEnslave)
        l.mtu = l.mtuBeforeEnslave;
    l.mtuBeforeEnslave.reset();
}

// A bond's deletion releases its ports; soft links over a link go with it.
void Model::deleteLink(const std::string &name)
{
    for (auto &[port, l] : host_.links)
        if (l.master == name)
            release(port);
    host_.bondModes.erase(name);
    for (auto it = host_.softLinks.begin(); it != host_.softLinks.end();)
        it = it->second.netdev == name ? host_.softLinks.erase(it) : std::next(it);
    host_.links.erase(name);
}

} // namespace ibnm::test::nm
