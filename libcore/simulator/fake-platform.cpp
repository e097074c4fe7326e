// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated kernel's netdev operations (fake-platform.hpp): IPoIB
// children and their mode, MTU and umcast, links up and down, bonds and their
// ports, and addNetdev() and prepare() (addresses and routes:
// fake-addresses.cpp). Each applies the kernel's rules to the state through
// mutate() (fake-platform-private.hpp).
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace ibnm::platform {

using model::IpoibMode;

using namespace fake;

namespace {

constexpr unsigned kIpoibCmMtu = 65520;
constexpr uint16_t kFullMembership = 0x8000;

// dev_valid_name(): at most 15 bytes, not "." or "..", no "/", ":" or
// blank; and one the state file can hold.
bool validNetdevName(const std::string &name)
{
    return name.size() <= 15 && name != "." && name != ".." &&
           name.find_first_of("/: \t\n\v\f\r") == std::string::npos && isStorableId(name);
}

const model::Port *portOf(model::Host &h, const model::Netdev &n)
{
    const model::Device *d = findDevice(h, n.rdmaDevice);
    if (d == nullptr || n.rdmaPort == 0 || n.rdmaPort > d->ports.size())
        return nullptr;
    return &d->ports[n.rdmaPort - 1];
}

// Datagram MTU limits of an IPoIB netdev: (maximum accepted, effective
// ceiling): IPOIB_UD_MTU(port max MTU) and min(active, broadcast group) - 4.
std::pair<unsigned, unsigned> datagramLimits(model::Host &h, const model::Netdev &n)
{
    const model::Port *p = portOf(h, n);
    unsigned max = p && p->maxMtu ? *p->maxMtu : 4096;
    unsigned link = p && p->activeMtu ? *p->activeMtu : max;
    unsigned bcast = p && p->broadcastMtu ? *p->broadcastMtu : link;
    return {max - 4, std::min(link, bcast) - 4};
}

} // namespace

Status FakePlatform::prepare(const Prerequisites &needs)
{
    // Modules and mounts are no objects of the simulated host: recorded,
    // neither counted nor persisted. Only a rule naming "prepare" fails it
    // ("op=*" rules keep counting the kernel operations alone).
    if (needs.empty())
        return {};
    if (Status f = injectFault("prepare", false, "prepare"); !f.ok())
        return f;
    prepared_.push_back(needs);
    return {};
}

Status FakePlatform::addNetdev(model::Netdev netdev)
{
    return transact(true, [&]() -> Status {
        if (!validNetdevName(netdev.name))
            return kernelError(EINVAL, netdev.name);
        if (findNetdev(state_.host, netdev.name))
            return kernelError(EEXIST, netdev.name, IBNM_ERROR_EXISTS);
        if (netdev.ifindex == 0)
            netdev.ifindex = nextIfindex(state_.host);
        if (netdev.type == 0)
            netdev.type = 1;
        if (netdev.mtu == 0)
            netdev.mtu = 1500;
        if (netdev.address.empty())
            netdev.address = localMac(netdev.ifindex, netdev.name);
        state_.host.netdevs.push_back(std::move(netdev));
        return {};
    });
}

// --- IPoIB ------------------------------------------------------------------

Result<std::string> FakePlatform::createIpoibChild(const IpoibChildSpec &spec)
{
    std::string created;
    auto s = mutate("createIpoibChild", spec.parent, {spec.parent, num(spec.pkey), optNum(spec.mode), optNum(spec.umcast)}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *parentNd = findNetdev(h, spec.parent);
        if (parentNd == nullptr)
            return noSuchNetdev(spec.parent);
        model::IpoibNetdev *parent = findIpoib(h, spec.parent);
        if (parentNd->type != 32 || parent == nullptr)
            return kernelError(ENODEV, spec.parent, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        if (!parent->parent.empty())
            return kernelError(EINVAL, spec.parent, IBNM_ERROR_PLATFORM, _("a P_Key child cannot have children"));
        if (spec.pkey == 0 || spec.pkey == kFullMembership)
            return kernelError(EINVAL, spec.parent, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("P_Key 0x%04x is not valid"), spec.pkey));
        uint16_t full = spec.pkey | kFullMembership;
        if (parent->pkey == full)
            return kernelError(ENOTUNIQ, spec.parent, IBNM_ERROR_EXISTS,
                               strprintf(_("P_Key 0x%04x is the interface's own"), full));
        if (const model::IpoibNetdev *other = childOf(h, spec.parent, full))
            return kernelError(ENOTUNIQ, spec.parent, IBNM_ERROR_EXISTS,
                               strprintf(_("%s has P_Key 0x%04x already"), other->name.c_str(), full));
        uint16_t shown = h.childNaming == model::ChildNaming::Upstream ? spec.pkey : full;
        std::string name = strprintf("%s.%04x", spec.parent.c_str(), shown).substr(0, 15);
        if (findNetdev(h, name))
            return kernelError(EEXIST, name, IBNM_ERROR_EXISTS);
        const model::Device *dev = findDevice(h, parentNd->rdmaDevice);
        bool cmSupported = dev != nullptr && dev->connectedModeSupported && !dev->enhancedIpoib;
        IpoibMode mode = spec.mode.value_or(IpoibMode::Datagram);
        if (mode == IpoibMode::Connected && !cmSupported)
            return kernelError(EINVAL, name, IBNM_ERROR_NOT_SUPPORTED,
                               dev && dev->enhancedIpoib ? _("Enhanced IPoIB supports datagram mode only")
                                                         : _("connected mode is not supported"));
        model::Netdev nd;
        nd.name = name;
        nd.ifindex = nextIfindex(h);
        nd.type = 32;
        nd.kind = "ipoib";
        nd.rdmaDevice = parentNd->rdmaDevice;
        nd.rdmaPort = parentNd->rdmaPort;
        // Same GID, another QP number.
        nd.address = parentNd->address;
        if (nd.address.size() == 59) {
            // Byte 3 is the low byte of the QP number.
            unsigned count = 1 + childCount(h, spec.parent);
            unsigned low = static_cast<unsigned>(std::stoul(nd.address.substr(9, 2), nullptr, 16));
            nd.address.replace(9, 2, strprintf("%02x", (low + count) & 0xff));
        }
        nd.mtu = mode == IpoibMode::Connected ? kIpoibCmMtu : datagramLimits(h, *parentNd).second;
        model::IpoibNetdev ib;
        ib.name = name;
        ib.parent = spec.parent;
        ib.pkey = full;
        ib.mode = mode;
        ib.umcast = spec.umcast.value_or(false);
        h.netdevs.push_back(std::move(nd));
        h.ipoib.push_back(std::move(ib));
        created = name;
        return {};
    });
    if (!s.ok())
        return std::move(s).error();
    return created;
}

Status FakePlatform::deleteIpoibChild(const std::string &parent, uint16_t pkey)
{
    return mutate("deleteIpoibChild", parent, {parent, num(pkey)}, [&]() -> Status {
        auto &h = state_.host;
        if (findIpoib(h, parent) == nullptr)
            return noSuchNetdev(parent);
        uint16_t full = pkey | kFullMembership;
        if (const model::IpoibNetdev *child = childOf(h, parent, full)) {
            std::string name = child->name;
            h.ipoib.erase(std::remove_if(h.ipoib.begin(), h.ipoib.end(),
                                         [&](const auto &x) { return x.name == name; }),
                          h.ipoib.end());
            h.netdevs.erase(std::remove_if(h.netdevs.begin(), h.netdevs.end(),
                                           [&](const auto &x) { return x.name == name; }),
                            h.netdevs.end());
            // systemd-resolved forgets a link that is gone.
            state_.resolver.links.erase(name);
            return {};
        }
        return kernelError(ENODEV, parent, IBNM_ERROR_NOT_FOUND,
                           strprintf(_("no child with P_Key 0x%04x"), full));
    });
}

Status FakePlatform::setIpoibMode(const std::string &ifname, IpoibMode mode)
{
    return mutate("setIpoibMode", ifname, {ifname, num(mode)}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        model::IpoibNetdev *ib = findIpoib(h, ifname);
        if (ib == nullptr)
            return kernelError(ENOENT, ifname, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        if (ib->mode == mode)
            return {};
        const model::Device *dev = findDevice(h, nd->rdmaDevice);
        if (mode == IpoibMode::Connected && (dev == nullptr || !dev->connectedModeSupported || dev->enhancedIpoib))
            return kernelError(EINVAL, ifname, IBNM_ERROR_NOT_SUPPORTED,
                               dev && dev->enhancedIpoib ? _("Enhanced IPoIB supports datagram mode only")
                                                         : _("connected mode is not supported"));
        // FACTS.md: changing the mode needs the link down.
        if (nd->up)
            return kernelError(EBUSY, ifname, IBNM_ERROR_PLATFORM, _("the link must be down to change the mode"));
        ib->mode = mode;
        if (mode == IpoibMode::Connected)
            nd->mtu = kIpoibCmMtu;
        else
            nd->mtu = std::min(nd->mtu, datagramLimits(h, *nd).second);
        return {};
    });
}

Status FakePlatform::setIpoibUmcast(const std::string &ifname, bool umcast)
{
    return mutate("setIpoibUmcast", ifname, {ifname, num(umcast)}, [&]() -> Status {
        auto &h = state_.host;
        if (findNetdev(h, ifname) == nullptr)
            return noSuchNetdev(ifname);
        model::IpoibNetdev *ib = findIpoib(h, ifname);
        if (ib == nullptr)
            return kernelError(ENOENT, ifname, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        ib->umcast = umcast;
        return {};
    });
}

// --- links --------------------------------------------------------------------

namespace {

// dev_set_mtu() on one netdev: IPoIB's ipoib_change_mtu() limits, an
// Ethernet NIC's maximum, a bond's bond_change_mtu() passing the MTU on to
// every port (all or none).
Status setNetdevMtu(FakeState &st, model::Netdev &nd, unsigned mtu)
{
    auto &h = st.host;
    const std::string &ifname = nd.name;
    if (const model::IpoibNetdev *ib = findIpoib(h, ifname)) {
        if (ib->mode == IpoibMode::Connected) {
            if (mtu > kIpoibCmMtu || mtu < 68)
                return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                                   strprintf(_("MTU %u is out of range (at most %u in connected mode)"), mtu,
                                             kIpoibCmMtu));
            nd.mtu = mtu;
            return {};
        }
        auto [max, ceiling] = datagramLimits(h, nd);
        // ipoib_change_mtu() in datagram mode: 68 plus the 4-byte IPoIB
        // header at least (FACTS.md).
        if (mtu > max || mtu < 72)
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("MTU %u is out of range (at most %u in datagram mode)"), mtu, max));
        // The kernel clamps silently to the broadcast group's MTU.
        nd.mtu = std::min(mtu, ceiling);
        return {};
    }
    if (findBond(h, ifname)) {
        std::vector<std::pair<model::Netdev *, unsigned>> done;
        std::vector<size_t> ports = portsOf(h, ifname);
        for (size_t i : ports) {
            model::Netdev &port = h.netdevs[i];
            unsigned old = port.mtu;
            if (Status s = setNetdevMtu(st, port, mtu); !s.ok()) {
                for (auto &[p, m] : done)
                    p->mtu = m;
                return s;
            }
            done.emplace_back(&port, old);
        }
        if (mtu < 68 || mtu > 65535)
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("MTU %u is out of range (68 to %u)"), mtu, 65535u));
        nd.mtu = mtu;
        return {};
    }
    auto mm = st.maxMtu.find(ifname);
    unsigned max = mm != st.maxMtu.end() ? mm->second : 65535;
    if (mtu < 68 || mtu > max)
        return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                           strprintf(_("MTU %u is out of range (68 to %u)"), mtu, max));
    nd.mtu = mtu;
    return {};
}

} // namespace

Status FakePlatform::setMtu(const std::string &ifname, unsigned mtu)
{
    return mutate("setMtu", ifname, {ifname, num(mtu)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        return setNetdevMtu(state_, *nd, mtu);
    });
}

namespace {

// The kernel's behaviour, stated here on its own (STYLE.md: the simulator is
// the one exception to "one fact, one home", so that a test catches the
// planner's model getting it wrong).
// dev_close(): the link down; the kernel flushes the routes through it and
// its IPv6 addresses (net.ipv6.conf.*.keep_addr_on_down is 0); IPv4 stays.
void closeNetdev(model::Netdev &nd)
{
    nd.up = false;
    nd.routes.clear();
    nd.addresses.erase(std::remove_if(nd.addresses.begin(), nd.addresses.end(),
                                      [](const std::string &a) { return a.find(':') != std::string::npos; }),
                       nd.addresses.end());
}

// __bond_release_one(): the port leaves its bond closed (dev_close) and with
// the MTU it had before bond_enslave() (checked on Debian's 6.1 in the
// kernel lab: DOWN, MTU as before the enslave).
void releaseFromBond(model::Netdev &port, std::optional<unsigned> mtuBeforeEnslave)
{
    port.master.clear();
    closeNetdev(port);
    if (mtuBeforeEnslave)
        port.mtu = *mtuBeforeEnslave;
}

// ipoib_open() and ipoib_stop() (drivers/infiniband/ulp/ipoib/
// ipoib_main.c): an IPoIB port's interface that comes up opens each of its
// P_Key children that is down ("Bring up any child interfaces too"); one
// that goes down closes each that is up ("Bring down any child interfaces
// too"), which flushes what dev_close() flushes. Call after `parent`'s link
// went from `wasUp` to its state now.
void parentLinkChanged(model::Host &h, const std::string &parent, bool wasUp)
{
    const model::Netdev *p = findNetdev(h, parent);
    if (p == nullptr || p->up == wasUp || p->type != 32 || childCount(h, parent) == 0)
        return;
    bool up = p->up;
    for (const auto &ib : h.ipoib) {
        if (ib.parent != parent)
            continue;
        model::Netdev *child = findNetdev(h, ib.name);
        if (child == nullptr || child->up == up)
            continue;
        if (up)
            child->up = true;
        else
            closeNetdev(*child);
    }
}

} // namespace

Status FakePlatform::setUp(const std::string &ifname, bool up)
{
    return mutate("setUp", ifname, {ifname, num(up)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        bool was = nd->up;
        if (up)
            nd->up = true;
        else
            closeNetdev(*nd);
        parentLinkChanged(state_.host, ifname, was);
        return {};
    });
}

Status FakePlatform::createBond(const BondSpec &spec)
{
    return mutate("createBond", spec.name, {spec.name, spec.mode, optNum(spec.miimon), spec.primary, spec.failOverMac}, [&]() -> Status {
        auto &h = state_.host;
        if (!validNetdevName(spec.name))
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"));
        if (!spec.primary.empty() && !validNetdevName(spec.primary))
            return kernelError(EINVAL, spec.primary, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"))
                .withContext(spec.name);
        if (findNetdev(h, spec.name))
            return kernelError(EEXIST, spec.name, IBNM_ERROR_EXISTS);
        // The bonding driver takes options by name or by number.
        static const char *modes[] = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                      "802.3ad",    "balance-tlb",   "balance-alb"};
        static const char *fomNames[] = {"none", "active", "follow"};
        auto byNameOrNumber = [](const std::string &v, const char *const *names, size_t n) -> std::string {
            for (size_t i = 0; i < n; i++)
                if (v == names[i] || v == std::to_string(i))
                    return names[i];
            return {};
        };
        std::string mode = byNameOrNumber(spec.mode, modes, G_N_ELEMENTS(modes));
        if (mode.empty())
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("unknown bonding mode “%s”"), spec.mode.c_str()));
        std::string failOverMac =
            spec.failOverMac.empty() ? "none" : byNameOrNumber(spec.failOverMac, fomNames, G_N_ELEMENTS(fomNames));
        if (failOverMac.empty())
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("unknown fail_over_mac “%s”"), spec.failOverMac.c_str()));
        model::Netdev nd;
        nd.name = spec.name;
        nd.kind = "bond";
        nd.type = 1;
        nd.mtu = 1500;
        nd.ifindex = nextIfindex(h);
        nd.address = localMac(nd.ifindex, spec.name);
        h.netdevs.push_back(std::move(nd));
        model::Bond b;
        b.name = spec.name;
        b.mode = mode;
        b.miimon = spec.miimon.value_or(0);
        b.primary = spec.primary;
        b.failOverMac = failOverMac;
        h.bonds.push_back(std::move(b));
        return {};
    });
}

Status FakePlatform::setBondOptions(const std::string &bondName, std::optional<unsigned> miimon,
                                    std::optional<std::string> primary)
{
    return mutate("setBondOptions", bondName, {bondName, optNum(miimon), optText(primary)}, [&]() -> Status {
        auto &h = state_.host;
        model::Bond *bond = findBond(h, bondName);
        if (bond == nullptr)
            return noSuchNetdev(bondName);
        if (primary && !primary->empty() && !validNetdevName(*primary))
            return kernelError(EINVAL, *primary, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"))
                .withContext(bondName);
        if (miimon)
            bond->miimon = *miimon;
        if (primary) {
            bond->primary = *primary;
            // primary_reselect "always": a primary that is a port takes over
            // (ports are the netdevs whose master is the bond).
            const model::Netdev *nd = primary->empty() ? nullptr : findNetdev(h, *primary);
            if (nd && nd->master == bondName)
                bond->activePort = *primary;
        }
        return {};
    });
}

Status FakePlatform::enslave(const std::string &port, const std::string &bondName)
{
    return mutate("enslave", port, {port, bondName}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, port);
        if (nd == nullptr)
            return noSuchNetdev(port);
        model::Bond *bond = findBond(h, bondName);
        model::Netdev *bondNd = findNetdev(h, bondName);
        if (bondNd == nullptr)
            return noSuchNetdev(bondName);
        if (bond == nullptr)
            return kernelError(EOPNOTSUPP, bondName, IBNM_ERROR_NOT_SUPPORTED, _("not a bond"));
        if (port == bondName)
            return kernelError(EPERM, port);
        if (!nd->master.empty())
            return kernelError(EBUSY, port, IBNM_ERROR_PLATFORM,
                               strprintf(_("already a port of %s"), nd->master.c_str()));
        // bond_enslave's order: link type, then the IPoIB mode rule, then
        // fail_over_mac.
        bool hasPorts = !portsOf(h, bondName).empty();
        if (hasPorts && bondNd->type != nd->type)
            return kernelError(EINVAL, port, IBNM_ERROR_PLATFORM,
                               _("its link type differs from the bond's other ports"));
        if (nd->type == 32) {
            if (bond->mode != "active-backup")
                return kernelError(EOPNOTSUPP, port, IBNM_ERROR_NOT_SUPPORTED,
                                   _("Only active-backup mode is supported for infiniband slaves"));
            if (bond->failOverMac != "active") {
                // IPoIB cannot take a MAC: the kernel switches the bond to
                // fail_over_mac=active for its first port, refuses later.
                if (hasPorts)
                    return kernelError(EOPNOTSUPP, port, IBNM_ERROR_NOT_SUPPORTED,
                                       _("the port cannot change its MAC address, but fail_over_mac is not active"));
                bond->failOverMac = "active";
            }
        }
        // bond_enslave(): the port takes the bond's MTU (dev_set_mtu(); a
        // datagram IPoIB port refuses one above its maximum), then a first
        // port of another link type gives the bond its type and address.
        unsigned original = nd->mtu;
        if (Status s = setNetdevMtu(state_, *nd, bondNd->mtu); !s.ok())
            return s;
        state_.originalMtu[port] = original;
        if (!hasPorts) {
            bondNd->type = nd->type;
            if (nd->type == 32)
                bondNd->address = nd->address;
        }
        nd->master = bondName;
        // bond_enslave() opens the port (dev_open).
        bool wasUp = nd->up;
        nd->up = true;
        parentLinkChanged(h, port, wasUp);
        // Only the modes with one active port have one (bond_uses_primary():
        // active-backup, balance-tlb, balance-alb).
        bool oneActive = bond->mode == "active-backup" || bond->mode == "balance-tlb" || bond->mode == "balance-alb";
        if (oneActive && (bond->activePort.empty() || bond->primary == port))
            bond->activePort = port;
        return {};
    });
}

// The MTU `port` had before its enslave, which its release gives back
// (releaseFromBond); forgotten once taken.
std::optional<unsigned> FakePlatform::takeOriginalMtu(const std::string &port)
{
    auto it = state_.originalMtu.find(port);
    if (it == state_.originalMtu.end())
        return std::nullopt;
    unsigned mtu = it->second;
    state_.originalMtu.erase(it);
    return mtu;
}

Status FakePlatform::release(const std::string &port)
{
    return mutate("release", port, {port}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, port);
        if (nd == nullptr)
            return noSuchNetdev(port);
        if (nd->master.empty())
            return {}; // as `ip link set PORT nomaster`: nothing to do
        if (model::Bond *b = findBond(h, nd->master)) {
            if (b->activePort == port) {
                b->activePort.clear();
                for (size_t i : portsOf(h, b->name))
                    if (h.netdevs[i].name != port) {
                        b->activePort = h.netdevs[i].name;
                        break;
                    }
            }
        }
        std::string master = nd->master;
        bool wasUp = nd->up;
        releaseFromBond(*nd, takeOriginalMtu(port));
        parentLinkChanged(h, port, wasUp);
        return {};
    });
}

Status FakePlatform::deleteLink(const std::string &ifname)
{
    return mutate("deleteLink", ifname, {ifname}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        const model::IpoibNetdev *ib = findIpoib(h, ifname);
        if (nd->kind.empty() || (ib != nullptr && ib->parent.empty()))
            return kernelError(EOPNOTSUPP, ifname, IBNM_ERROR_NOT_SUPPORTED,
                               _("a hardware interface cannot be deleted"));
        // What goes with it: VLANs on it, soft RDMA links over it, bond
        // membership (its own ports, or its place in a bond).
        std::vector<std::string> gone = {ifname};
        for (const auto &n : h.netdevs)
            if (n.link == ifname && n.kind == "vlan")
                gone.push_back(n.name);
        auto isGone = [&](const std::string &n) { return std::find(gone.begin(), gone.end(), n) != gone.end(); };
        std::vector<std::string> softGone;
        for (const auto &l : h.softLinks)
            if (isGone(l.netdev))
                softGone.push_back(l.name);
        h.softLinks.erase(std::remove_if(h.softLinks.begin(), h.softLinks.end(),
                                         [&](const auto &l) { return isGone(l.netdev); }),
                          h.softLinks.end());
        h.devices.erase(std::remove_if(h.devices.begin(), h.devices.end(),
                                       [&](const auto &d) {
                                           return std::find(softGone.begin(), softGone.end(), d.name) !=
                                                  softGone.end();
                                       }),
                        h.devices.end());
        // Deleting a bond releases its ports (as release()).
        std::vector<std::pair<std::string, bool>> released;
        for (auto &n : h.netdevs)
            if (isGone(n.master)) {
                released.emplace_back(n.name, n.up);
                releaseFromBond(n, takeOriginalMtu(n.name));
            }
        for (const auto &[name, wasUp] : released)
            parentLinkChanged(h, name, wasUp);
        for (auto &b : h.bonds)
            if (isGone(b.activePort))
                b.activePort.clear();
        h.bonds.erase(std::remove_if(h.bonds.begin(), h.bonds.end(), [&](const auto &b) { return isGone(b.name); }),
                      h.bonds.end());
        h.ipoib.erase(std::remove_if(h.ipoib.begin(), h.ipoib.end(), [&](const auto &x) { return isGone(x.name); }),
                      h.ipoib.end());
        h.netdevs.erase(
            std::remove_if(h.netdevs.begin(), h.netdevs.end(), [&](const auto &x) { return isGone(x.name); }),
            h.netdevs.end());
        // Erased and released (a scan: a deletion costs as the host's size).
        state_.maxMtu.erase(ifname);
        state_.originalMtu.erase(ifname);
        for (const auto &name : gone)
            state_.resolver.links.erase(name);
        return {};
    });
}

} // namespace ibnm::platform
