// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform's reads: the host (sysfs, then rtnetlink, RDMA netlink
// and verbs over it) and the GID tables.
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include "libcore/platform/linux/sysfs.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

namespace ibnm::platform {

namespace {

std::string formatAddress(nl_addr *a, unsigned prefixlen)
{
    char buf[INET6_ADDRSTRLEN];
    int family = nl_addr_get_family(a);
    if ((family != AF_INET && family != AF_INET6) ||
        inet_ntop(family, nl_addr_get_binary_addr(a), buf, sizeof(buf)) == nullptr)
        return {};
    return std::string(buf) + "/" + std::to_string(prefixlen);
}

} // namespace

unsigned mtuBytes(ibv_mtu mtu)
{
    return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0u;
}

// --- reading ---------------------------------------------------------------------

Result<model::Host> LinuxPlatform::readHost()
{
    return readHost(true);
}

Result<model::Host> LinuxPlatform::readHostWithoutGidTables()
{
    return readHost(false);
}

Result<model::Host> LinuxPlatform::readHost(bool gidTables)
{
    // With verbs the GID tables come from ibv_query_gid_table(), read once
    // below, not from sysfs as well.
    auto host = readSysfsHost(options_, gidTables && !options_.useVerbs);
    if (!host)
        return host;
    host->withGidTables = gidTables || options_.useVerbs;

    if (options_.useNetlink) {
        if (auto st = overlayRtnetlink(*host); !st)
            return std::move(st).error();
        if (!host->devices.empty())
            if (auto st = overlayRdmaNetlink(*host); !st)
                return std::move(st).error();
    }
    // Through verbs the GID tables come with the port MTUs the rules need,
    // one query per device: read with or without gidTables.
    if (options_.useVerbs) {
        if (auto st = readGidTablesOnce(*host); !st)
            return std::move(st).error();
        sysfs::mapNetdevsByGids(*host);
    }
    return host;
}

Result<model::Host> LinuxPlatform::readGidTables()
{
    auto host = sysfs::readGidTables(options_.sysfsRoot, !options_.useVerbs);
    if (host && options_.useVerbs)
        if (auto st = readGidTablesOnce(*host); !st)
            return std::move(st).error();
    return host;
}

Status LinuxPlatform::readGidTablesOnce(model::Host &host)
{
    if (host.devices.empty())
        return {};
    std::set<std::string> read = overlayVerbs(host);
    for (auto &dev : host.devices) {
        if (read.count(dev.name))
            continue;
        for (auto &port : dev.ports)
            if (auto st = sysfs::readPortGids(options_.sysfsRoot, dev.name, port.number, port.gids); !st)
                return st;
    }
    return {};
}

Status LinuxPlatform::overlayRtnetlink(model::Host &host)
{
    auto s = route();
    if (!s)
        return std::move(s).error();
    nl_cache *raw = nullptr;
    int err = rtnl_link_alloc_cache((*s)->sock.get(), AF_UNSPEC, &raw);
    NlCachePtr links(raw);
    if (err < 0)
        return (*s)->error(err, "RTM_GETLINK");
    std::map<int, std::string> names;
    for (nl_object *o = nl_cache_get_first(links.get()); o; o = nl_cache_get_next(o)) {
        auto *l = reinterpret_cast<rtnl_link *>(o);
        if (const char *n = rtnl_link_get_name(l))
            names[rtnl_link_get_ifindex(l)] = n;
    }
    for (nl_object *o = nl_cache_get_first(links.get()); o; o = nl_cache_get_next(o)) {
        auto *l = reinterpret_cast<rtnl_link *>(o);
        const char *n = rtnl_link_get_name(l);
        if (n == nullptr)
            continue;
        for (auto &nd : host.netdevs) {
            if (nd.name != n)
                continue;
            if (const char *k = rtnl_link_get_type(l))
                nd.kind = k;
            int master = rtnl_link_get_master(l);
            nd.master = master > 0 && names.count(master) ? names[master] : "";
        }
    }

    raw = nullptr;
    err = rtnl_addr_alloc_cache((*s)->sock.get(), &raw);
    NlCachePtr addrs(raw);
    if (err < 0)
        return (*s)->error(err, "RTM_GETADDR");
    for (nl_object *o = nl_cache_get_first(addrs.get()); o; o = nl_cache_get_next(o)) {
        auto *a = reinterpret_cast<rtnl_addr *>(o);
        auto it = names.find(rtnl_addr_get_ifindex(a));
        nl_addr *local = rtnl_addr_get_local(a);
        if (it == names.end() || local == nullptr)
            continue;
        std::string text = formatAddress(local, static_cast<unsigned>(rtnl_addr_get_prefixlen(a)));
        for (auto &nd : host.netdevs)
            if (nd.name == it->second && !text.empty())
                nd.addresses.push_back(text);
    }

    // Static routes of the main table with one next hop (not the prefix
    // routes the kernel adds itself: protocol "kernel").
    raw = nullptr;
    err = rtnl_route_alloc_cache((*s)->sock.get(), AF_UNSPEC, 0, &raw);
    NlCachePtr routes(raw);
    if (err < 0)
        return (*s)->error(err, "RTM_GETROUTE");
    for (nl_object *o = nl_cache_get_first(routes.get()); o; o = nl_cache_get_next(o)) {
        auto *r = reinterpret_cast<rtnl_route *>(o);
        uint8_t proto = rtnl_route_get_protocol(r);
        if (rtnl_route_get_table(r) != RT_TABLE_MAIN || rtnl_route_get_type(r) != RTN_UNICAST ||
            (proto != RTPROT_STATIC && proto != RTPROT_BOOT) || rtnl_route_get_nnexthops(r) != 1)
            continue;
        rtnl_nexthop *nh = rtnl_route_nexthop_n(r, 0);
        auto it = names.find(rtnl_route_nh_get_ifindex(nh));
        nl_addr *dst = rtnl_route_get_dst(r);
        if (it == names.end() || dst == nullptr)
            continue;
        model::Route route;
        if (nl_addr_get_len(dst) == 0 || nl_addr_get_prefixlen(dst) == 0) // the default route
            route.dest = rtnl_route_get_family(r) == AF_INET6 ? "::/0" : "0.0.0.0/0";
        else
            route.dest = formatAddress(dst, nl_addr_get_prefixlen(dst));
        if (nl_addr *gw = rtnl_route_nh_get_gateway(nh)) {
            char buf[INET6_ADDRSTRLEN] = "";
            if (inet_ntop(nl_addr_get_family(gw), nl_addr_get_binary_addr(gw), buf, sizeof buf))
                route.gateway = buf;
        }
        route.metric = rtnl_route_get_priority(r);
        for (auto &nd : host.netdevs)
            if (nd.name == it->second)
                nd.routes.push_back(route);
    }
    return {};
}

Status LinuxPlatform::overlayRdmaNetlink(model::Host &host)
{
    auto s = rdmaSocket();
    if (!s)
        return {}; // sysfs has devices but no RDMA netlink: keep what sysfs shows
    auto ports = rdmaPorts(**s);
    if (!ports)
        return std::move(ports).error();
    for (const auto &p : *ports) {
        if (!p.netdevName || p.netdevName->empty())
            continue;
        for (auto &l : host.softLinks)
            if (l.name == p.deviceName && l.netdev.empty())
                l.netdev = *p.netdevName;
        for (auto &nd : host.netdevs)
            if (nd.name == *p.netdevName && nd.rdmaDevice.empty()) {
                nd.rdmaDevice = p.deviceName;
                nd.rdmaPort = p.port;
            }
    }
    return {};
}

std::set<std::string> LinuxPlatform::overlayVerbs(model::Host &host)
{
    std::set<std::string> read;
    int n = 0;
    IbvDeviceListPtr list(ibv_get_device_list(&n));
    if (!list)
        return read;
    std::map<unsigned, std::string> ifnames;
    for (const auto &nd : host.netdevs)
        ifnames[nd.ifindex] = nd.name;
    for (int i = 0; i < n; i++) {
        const char *name = ibv_get_device_name(list.get()[i]);
        auto dev = std::find_if(host.devices.begin(), host.devices.end(),
                                [&](const model::Device &d) { return name && d.name == name; });
        if (dev == host.devices.end())
            continue;
        // A device that cannot be opened (permissions, no uverbs) keeps
        // what sysfs shows.
        IbvContextPtr ctx(ibv_open_device(list.get()[i]));
        if (!ctx)
            continue;
        size_t total = 0;
        for (auto &port : dev->ports) {
            ibv_port_attr attr;
            memset(&attr, 0, sizeof(attr));
            if (ibv_query_port(ctx.get(), static_cast<uint8_t>(port.number), &attr) != 0)
                continue;
            if (unsigned m = mtuBytes(attr.active_mtu))
                port.activeMtu = m;
            if (unsigned m = mtuBytes(attr.max_mtu))
                port.maxMtu = m;
            if (port.linkLayer == model::LinkLayer::Unknown)
                port.linkLayer = attr.link_layer == IBV_LINK_LAYER_ETHERNET ? model::LinkLayer::Ethernet
                                                                            : model::LinkLayer::InfiniBand;
            total += static_cast<size_t>(attr.gid_tbl_len);
        }
        if (total == 0)
            continue;
        std::vector<ibv_gid_entry> entries(total);
        ssize_t got = ibv_query_gid_table(ctx.get(), entries.data(), total, 0);
        if (got < 0)
            continue;
        for (auto &port : dev->ports)
            port.gids.clear();
        for (ssize_t k = 0; k < got; k++) {
            const auto &e = entries[static_cast<size_t>(k)];
            auto port = std::find_if(dev->ports.begin(), dev->ports.end(),
                                     [&](const model::Port &p) { return p.number == e.port_num; });
            if (port == dev->ports.end())
                continue;
            model::Gid g;
            g.index = e.gid_index;
            g.gid = sysfs::formatGid(e.gid.raw);
            g.type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? model::GidType::RoceV2 : model::GidType::IbRoceV1;
            if (e.ndev_ifindex != 0) {
                auto it = ifnames.find(e.ndev_ifindex);
                char ifname[IF_NAMESIZE];
                if (it != ifnames.end())
                    g.netdev = it->second;
                else if (if_indextoname(e.ndev_ifindex, ifname)) // readGidTables() reads no netdevs
                    g.netdev = ifname;
            }
            port->gids.push_back(std::move(g));
        }
        for (auto &port : dev->ports)
            std::sort(port.gids.begin(), port.gids.end(),
                      [](const model::Gid &a, const model::Gid &b) { return a.index < b.index; });
        read.insert(dev->name);
    }
    return read;
}

} // namespace ibnm::platform
