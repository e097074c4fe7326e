// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/ipoib.hpp"

#include "libcore/model/host-index.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ibnm::model {

std::string opensmPartitionName(uint16_t partition)
{
    return partition == kDefaultPartition ? "Default" : strprintf("ibnm_%04x", partition);
}

Status validatePkey(long pkey)
{
    // nm-setting-infiniband.c verify(); the kernel's ipoib_vlan_add() refuses
    // the same two values.
    if (pkey < 0 || pkey > 0xffff)
        return Error(IBNM_ERROR_INVALID_PROPERTY, strprintf(_("%ld is out of range (0x0001 to 0xffff)"), pkey));
    if (pkey == 0 || pkey == kFullMembership)
        return Error(IBNM_ERROR_INVALID_PROPERTY, _("the values 0 and 0x8000 are not allowed"));
    return {};
}

std::string childName(const std::string &parent, uint16_t pkey, ChildNaming naming)
{
    uint16_t shown = naming == ChildNaming::FullMembershipBit ? fullMembership(pkey) : pkey;
    // "%s.%04x", cut to the kernel's limit (check names every child: no
    // printf for each).
    static constexpr char kHex[] = "0123456789abcdef";
    std::string name;
    name.reserve(parent.size() + 5);
    name += parent;
    name += '.';
    for (int shift = 12; shift >= 0; shift -= 4)
        name += kHex[(shown >> shift) & 0xf];
    if (name.size() > kIfNameMax)
        name.resize(kIfNameMax);
    return name;
}

std::vector<std::string> childNames(const std::string &parent, uint16_t pkey)
{
    std::vector<std::string> names;
    for (uint16_t shown : {uint16_t(pkey & ~kFullMembership), fullMembership(pkey)}) {
        std::string name = childName(parent, shown, ChildNaming::Upstream);
        if (shown != 0 && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

const IpoibNetdev *findChild(const Host &host, const std::string &parent, uint16_t pkey)
{
    for (const auto &ib : host.ipoib)
        if (ib.parent == parent && samePartition(ib.pkey, pkey))
            return &ib;
    return nullptr;
}

namespace {

const IpoibNetdev *existingChild(const Host &host, const std::string &parent, uint16_t pkey)
{
    return findChild(host, parent, pkey);
}

const IpoibNetdev *existingChild(const HostIndex &index, const std::string &parent, uint16_t pkey)
{
    return index.findChild(parent, pkey);
}

} // namespace

template <typename H>
Status childCreatable(const H &host, const std::string &parent, uint16_t pkey)
{
    if (existingChild(host, parent, pkey))
        return {};
    const IpoibNetdev *p = host.findIpoib(parent);
    if (p == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND,
                     host.findNetdev(parent)
                         ? strprintf(_("%s is not an IPoIB interface; P_Key children need one"), parent.c_str())
                         : strprintf(_("the parent interface %s does not exist on this host"), parent.c_str()),
                     ENODEV);
    if (!p->parent.empty())
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s is a P_Key child itself; a child's parent is a port's interface"),
                               parent.c_str()),
                     EINVAL);
    // ipoib_vlan_add(): a child with the parent's own P_Key is ENOTUNIQ.
    if (samePartition(p->pkey, pkey))
        return Error(IBNM_ERROR_EXISTS,
                     strprintf(_("0x%04x is the P_Key of %s itself; the kernel refuses a child in the partition "
                                 "of its parent"),
                               unsigned(pkey), parent.c_str()),
                     ENOTUNIQ);
    std::string name = childName(parent, pkey, host.childNaming);
    if (host.findNetdev(name))
        return Error(IBNM_ERROR_EXISTS,
                     strprintf(_("the kernel would name the child %s, which another interface has already "
                                 "(names are cut to 15 characters)"),
                               name.c_str()),
                     EEXIST);
    return {};
}

template Status childCreatable<Host>(const Host &, const std::string &, uint16_t);
template Status childCreatable<HostIndex>(const HostIndex &, const std::string &, uint16_t);

const char *modeName(IpoibMode mode)
{
    return mode == IpoibMode::Connected ? "connected" : "datagram";
}

std::optional<IpoibMode> modeFromName(const char *name)
{
    for (IpoibMode m : {IpoibMode::Datagram, IpoibMode::Connected})
        if (name && std::strcmp(name, modeName(m)) == 0)
            return m;
    return std::nullopt;
}

bool enhancedIpoibDriver(const std::string &driver)
{
    return driver == "mlx5_core";
}

bool connectedModeAvailable(const Device &device)
{
    return !device.enhancedIpoib && device.connectedModeSupported;
}

std::string connectedModeRefusal(const Device &device)
{
    if (device.enhancedIpoib)
        return strprintf(_("%s uses Enhanced IPoIB, which supports datagram mode only"), device.name.c_str());
    if (!device.connectedModeSupported)
        return strprintf(_("connected mode is not available on %s (the kernel has no IPoIB connected mode)"),
                         device.name.c_str());
    return {};
}

std::optional<unsigned> datagramMax(const Port *port)
{
    if (port == nullptr)
        return std::nullopt;
    if (port->maxMtu)
        return *port->maxMtu - kIpoibHeader;
    if (port->activeMtu)
        return *port->activeMtu - kIpoibHeader;
    return std::nullopt;
}

std::optional<unsigned> datagramCeiling(const Port *port)
{
    if (port == nullptr)
        return std::nullopt;
    std::optional<unsigned> c;
    for (const auto &m : {port->activeMtu, port->broadcastMtu})
        if (m && *m > kIpoibHeader)
            c = std::min(c.value_or(*m - kIpoibHeader), *m - kIpoibHeader);
    return c;
}

Result<unsigned> effectiveMtu(unsigned requested, IpoibMode mode, const Port *port)
{
    if (mode == IpoibMode::Connected) {
        if (requested > kConnectedMtuMax || requested < kMinMtu)
            return Error(IBNM_ERROR_INVALID_PROPERTY,
                         strprintf(_("%u is out of range in connected mode (%u to %u)"), requested, kMinMtu,
                                   kConnectedMtuMax),
                         EINVAL);
        return requested;
    }
    std::optional<unsigned> max = datagramMax(port);
    if (requested < kDatagramMinMtu || (max && requested > *max))
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     requested >= kDatagramMinMtu
                         ? strprintf(_("%u exceeds the datagram maximum %u (the port's IB MTU - 4); the kernel "
                                       "refuses it"),
                                     requested, max.value_or(0))
                         : strprintf(_("%u is below the minimum %u"), requested, kDatagramMinMtu),
                     EINVAL);
    std::optional<unsigned> ceiling = datagramCeiling(port);
    return ceiling ? std::min(requested, *ceiling) : requested;
}

unsigned mtuAfterModeChange(unsigned current, IpoibMode to, const Port *port)
{
    if (to == IpoibMode::Connected)
        return kConnectedMtuMax;
    std::optional<unsigned> ceiling = datagramCeiling(port);
    if (!ceiling)
        ceiling = datagramMax(port);
    return ceiling ? std::min(current, *ceiling) : current;
}

std::optional<unsigned> ibMtuForIpoib(unsigned ipoibMtu)
{
    for (unsigned ib : {256u, 512u, 1024u, 2048u, 4096u})
        if (ipoibMtu + kIpoibHeader <= ib)
            return ib;
    return std::nullopt;
}

std::optional<unsigned> opensmMtuCode(unsigned ibMtu)
{
    unsigned code = 1;
    for (unsigned ib : {256u, 512u, 1024u, 2048u, 4096u}) {
        if (ib == ibMtu)
            return code;
        code++;
    }
    return std::nullopt;
}

std::string dhcpClientId(const std::string &address)
{
    // `address` is as the kernel prints it (/sys/class/net/*/address: 20
    // bytes, two lowercase hex digits each, ':' between); the port GUID is
    // the last 8 bytes. Read without libnm: the inventory does not load it.
    constexpr size_t kBytes = 20, kGuidBytes = 8;
    if (address.size() != kBytes * 3 - 1)
        return {};
    for (size_t i = 0; i < address.size(); i++)
        if (i % 3 == 2 ? address[i] != ':' : !g_ascii_isxdigit(address[i]))
            return {};
    std::string guid = address.substr((kBytes - kGuidBytes) * 3);
    std::transform(guid.begin(), guid.end(), guid.begin(), [](char c) { return g_ascii_tolower(c); });
    return "ff:00:00:00:00:00:02:00:00:02:c9:00:" + guid;
}

bool flushedOnLinkDown(const std::string &cidr)
{
    return cidr.find(':') != std::string::npos;
}

Netdev afterLinkDown(const Netdev &nd)
{
    Netdev after = nd;
    if (!nd.up)
        return after;
    after.up = false;
    after.addresses.erase(std::remove_if(after.addresses.begin(), after.addresses.end(), flushedOnLinkDown),
                          after.addresses.end());
    after.routes.clear();
    return after;
}

Netdev childAfterParentLink(const Netdev &child, bool parentUp)
{
    if (!parentUp)
        return afterLinkDown(child);
    Netdev after = child;
    after.up = true;
    return after;
}

} // namespace ibnm::model
