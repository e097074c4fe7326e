// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform's addresses and routes (rtnetlink), and the wait for
// the IPv4-mapped RoCE GIDs an address brings (verbs GID_CHANGE events,
// else the ports' GID tables in sysfs).
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include "libcore/platform/linux/sysfs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include <fcntl.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

namespace ibnm::platform {

// --- addresses and routes ------------------------------------------------------

namespace {

// IFA_LOCAL and IFA_ADDRESS of an AF_INET RTM_NEWADDR are 4 bytes.
nla_policy *ipv4AddrPolicy()
{
    static nla_policy policy[IFA_MAX + 1] = {};
    policy[IFA_LOCAL].type = NLA_U32;
    policy[IFA_ADDRESS].type = NLA_U32;
    return policy;
}

// The RoCE v2 GID "::ffff:a.b.c.d" of an IPv4 address, as sysfs prints it.
std::string ipv4MappedGid(const void *v4)
{
    unsigned char raw[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memcpy(raw + 12, v4, 4);
    return sysfs::formatGid(raw);
}

bool isIpv4Mapped(const std::string &gid)
{
    return gid.compare(0, 30, "0000:0000:0000:0000:0000:ffff:") == 0;
}

// One RDMA device a GID wait watches: its verbs context (whose async fd
// reports IBV_EVENT_GID_CHANGE) or, without one, its ports in sysfs.
struct WatchedDevice {
    std::string name;
    std::vector<unsigned> ports;
    bool rxeOnNetdev = false; // its ports count before their first GID shows
    IbvContextPtr ctx;
    size_t gidSlots = 0;
};

} // namespace

Result<std::set<std::string>> LinuxPlatform::ipv4Gids(const std::string &ifname)
{
    auto s = route();
    if (!s)
        return std::move(s).error();
    unsigned index = if_nametoindex(ifname.c_str());
    if (index == 0)
        return noSuchInterface(ifname);
    NlMsgPtr msg(nlmsg_alloc_simple(RTM_GETADDR, NLM_F_DUMP));
    ifaddrmsg ifa{};
    ifa.ifa_family = AF_INET;
    ifa.ifa_index = index;
    if (!msg || nlmsg_append(msg.get(), &ifa, sizeof ifa, NLMSG_ALIGNTO) < 0)
        return Error(IBNM_ERROR_FAILED, "nlmsg_alloc");
    // With strict checking (Linux 5.0) the kernel answers for this one
    // interface only; older kernels answer for all, filtered below.
    int fd = nl_socket_get_fd((*s)->sock.get());
    int on = 1;
    bool strict = ::setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &on, sizeof on) == 0;
    std::set<std::string> gids;
    Status st = dump(**s, msg.get(), [&](nlmsghdr *h) -> Status {
        if (h->nlmsg_type != RTM_NEWADDR)
            return {};
        const auto *m = static_cast<const ifaddrmsg *>(nlmsg_data(h));
        if (m->ifa_family != AF_INET || m->ifa_index != index)
            return {};
        nlattr *tb[IFA_MAX + 1];
        if (nlmsg_parse(h, sizeof(ifaddrmsg), tb, IFA_MAX, ipv4AddrPolicy()) < 0)
            return Error(IBNM_ERROR_PARSE, "RTM_NEWADDR").withContext(ifname);
        if (nlattr *a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS])
            gids.insert(ipv4MappedGid(nla_data(a)));
        return {};
    }, "RTM_GETADDR");
    if (strict) {
        int off = 0;
        (void)::setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &off, sizeof off);
    }
    if (!st)
        return std::move(st).error();
    return gids;
}

void LinuxPlatform::settleRoceGids(const std::string &ifname)
{
    // The GID cache follows address changes from a work queue. Wait, at most
    // 3 s, until the IPv4-mapped RoCE v2 GIDs of the netdev on each RoCE port
    // that carries it match its IPv4 addresses. Only the GID tables of the
    // RDMA devices are read, never the other netdevs: with verbs one
    // ibv_query_gid_table() per device, woken by IBV_EVENT_GID_CHANGE.
    auto want = ipv4Gids(ifname);
    if (!want)
        return;
    unsigned ifindex = if_nametoindex(ifname.c_str());
    auto names = sysfs::listDir(options_.sysfsRoot + "/class/infiniband");
    if (!names || names->empty())
        return;
    std::vector<WatchedDevice> watched;
    for (const auto &name : *names) {
        WatchedDevice w;
        w.name = name;
        auto ports = sysfs::listDir(ibDir(name) + "/ports");
        if (ports)
            for (const auto &p : *ports)
                w.ports.push_back(static_cast<unsigned>(std::strtoul(p.c_str(), nullptr, 10)));
        auto parent = sysfs::readOptionalAttr(ibDir(name) + "/parent");
        w.rxeOnNetdev = parent && parent->value_or("") == ifname;
        watched.push_back(std::move(w));
    }
    if (options_.useVerbs) {
        int n = 0;
        IbvDeviceListPtr list(ibv_get_device_list(&n));
        for (int i = 0; list && i < n; i++) {
            const char *name = ibv_get_device_name(list.get()[i]);
            auto w = std::find_if(watched.begin(), watched.end(),
                                  [&](const WatchedDevice &d) { return name && d.name == name; });
            if (w == watched.end())
                continue;
            IbvContextPtr ctx(ibv_open_device(list.get()[i]));
            if (!ctx)
                continue; // sysfs then
            size_t slots = 0;
            for (unsigned port : w->ports) {
                ibv_port_attr attr;
                memset(&attr, 0, sizeof(attr));
                if (ibv_query_port(ctx.get(), static_cast<uint8_t>(port), &attr) == 0)
                    slots += static_cast<size_t>(attr.gid_tbl_len);
            }
            int flags = ::fcntl(ctx->async_fd, F_GETFL);
            if (slots == 0 || flags < 0 || ::fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
                continue;
            w->ctx = std::move(ctx);
            w->gidSlots = slots;
        }
    }

    // True when every RoCE port of `ifname` shows exactly the wanted GIDs.
    auto settled = [&]() {
        for (auto &w : watched) {
            std::map<unsigned, std::set<std::string>> have;
            std::set<unsigned> roce;
            if (w.rxeOnNetdev)
                roce.insert(w.ports.begin(), w.ports.end());
            auto note = [&](unsigned port, bool v2, const std::string &gid) {
                if (!v2)
                    return;
                roce.insert(port);
                if (isIpv4Mapped(gid))
                    have[port].insert(gid);
            };
            if (w.ctx) {
                std::vector<ibv_gid_entry> entries(w.gidSlots);
                ssize_t got = ibv_query_gid_table(w.ctx.get(), entries.data(), entries.size(), 0);
                for (ssize_t k = 0; k < got; k++) {
                    const auto &e = entries[static_cast<size_t>(k)];
                    if (e.ndev_ifindex == ifindex)
                        note(e.port_num, e.gid_type == IBV_GID_TYPE_ROCE_V2, sysfs::formatGid(e.gid.raw));
                }
            } else {
                for (unsigned port : w.ports) {
                    std::vector<model::Gid> gids;
                    if (!sysfs::readPortGids(options_.sysfsRoot, w.name, port, gids))
                        continue;
                    for (const auto &g : gids)
                        if (g.netdev == ifname)
                            note(port, g.type == model::GidType::RoceV2, g.gid);
                }
            }
            for (unsigned port : roce)
                if (have[port] != *want)
                    return false;
        }
        return true;
    };

    gint64 end = g_get_monotonic_time() + 3 * G_USEC_PER_SEC;
    while (!settled()) {
        gint64 left = end - g_get_monotonic_time();
        if (left <= 0)
            return;
        // Woken by a GID change on a watched device, else after 20 ms (a
        // device read through sysfs, or an event that came before the
        // context was open).
        int ms = static_cast<int>(std::min<gint64>(20, left / 1000 + 1));
        std::vector<pollfd> fds;
        for (const auto &w : watched)
            if (w.ctx)
                fds.push_back({w.ctx->async_fd, POLLIN, 0});
        if (fds.empty()) {
            g_usleep(static_cast<gulong>(ms) * 1000);
            continue;
        }
        (void)::poll(fds.data(), fds.size(), ms);
        for (auto &w : watched) {
            ibv_async_event ev;
            while (w.ctx && ibv_get_async_event(w.ctx.get(), &ev) == 0)
                ibv_ack_async_event(&ev);
        }
    }
}

Status LinuxPlatform::changeAddress(const std::string &ifname, const std::string &cidr, bool add)
{
    auto t = writableLink(ifname);
    if (!t)
        return std::move(t).error();
    nl_addr *rawLocal = nullptr;
    if (nl_addr_parse(cidr.c_str(), AF_UNSPEC, &rawLocal) < 0 ||
        (nl_addr_get_family(rawLocal) != AF_INET && nl_addr_get_family(rawLocal) != AF_INET6)) {
        NlAddrPtr discard(rawLocal);
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("'%s' is not an IP address with a prefix"), cidr.c_str()),
                     EINVAL)
            .withContext(ifname);
    }
    NlAddrPtr local(rawLocal);
    RtnlAddrPtr addr(rtnl_addr_alloc());
    if (!addr)
        return Error(IBNM_ERROR_FAILED, "rtnl_addr_alloc");
    rtnl_addr_set_ifindex(addr.get(), rtnl_link_get_ifindex(t->link.get()));
    if (int err = rtnl_addr_set_local(addr.get(), local.get()); err < 0)
        return t->s->error(err, ifname);
    t->s->lastErrno = 0;
    int err = add ? rtnl_addr_add(t->s->sock.get(), addr.get(), 0) : rtnl_addr_delete(t->s->sock.get(), addr.get(), 0);
    if (err < 0)
        return t->s->error(err, cidr).withContext(ifname);
    settleRoceGids(ifname);
    return {};
}

Status LinuxPlatform::addAddress(const std::string &ifname, const std::string &cidr)
{
    return changeAddress(ifname, cidr, true);
}

Status LinuxPlatform::removeAddress(const std::string &ifname, const std::string &cidr)
{
    return changeAddress(ifname, cidr, false);
}

Status LinuxPlatform::changeRoute(const std::string &ifname, const model::Route &r, bool add)
{
    auto t = writableLink(ifname);
    if (!t)
        return std::move(t).error();
    auto bad = [&](const std::string &what) {
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("'%s' is not a valid route"), what.c_str()), EINVAL)
            .withContext(ifname);
    };
    bool v6 = r.dest.find(':') != std::string::npos;
    nl_addr *rawDst = nullptr;
    if (nl_addr_parse(r.dest.c_str(), v6 ? AF_INET6 : AF_INET, &rawDst) < 0)
        return bad(r.dest);
    NlAddrPtr dst(rawDst);
    RtnlRoutePtr rt(rtnl_route_alloc());
    rtnl_nexthop *nh = rtnl_route_nh_alloc();
    if (!rt || nh == nullptr)
        return Error(IBNM_ERROR_FAILED, "rtnl_route_alloc");
    rtnl_route_set_family(rt.get(), v6 ? AF_INET6 : AF_INET);
    rtnl_route_set_table(rt.get(), RT_TABLE_MAIN);
    rtnl_route_set_protocol(rt.get(), RTPROT_STATIC);
    rtnl_route_set_type(rt.get(), RTN_UNICAST);
    rtnl_route_set_priority(rt.get(), r.metric);
    rtnl_route_set_scope(rt.get(), r.gateway.empty() ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE);
    if (int err = rtnl_route_set_dst(rt.get(), dst.get()); err < 0) {
        rtnl_route_nh_free(nh);
        return t->s->error(err, r.dest).withContext(ifname);
    }
    rtnl_route_nh_set_ifindex(nh, rtnl_link_get_ifindex(t->link.get()));
    if (!r.gateway.empty()) {
        nl_addr *rawGw = nullptr;
        if (nl_addr_parse(r.gateway.c_str(), v6 ? AF_INET6 : AF_INET, &rawGw) < 0) {
            rtnl_route_nh_free(nh);
            return bad(r.gateway);
        }
        NlAddrPtr gw(rawGw);
        rtnl_route_nh_set_gateway(nh, gw.get()); // takes its own reference
    }
    rtnl_route_add_nexthop(rt.get(), nh); // the route owns nh now
    t->s->lastErrno = 0;
    int err = add ? rtnl_route_add(t->s->sock.get(), rt.get(), NLM_F_EXCL)
                  : rtnl_route_delete(t->s->sock.get(), rt.get(), 0);
    if (err < 0)
        return t->s->error(err, r.dest).withContext(ifname);
    return {};
}

Status LinuxPlatform::addRoute(const std::string &ifname, const model::Route &route)
{
    return changeRoute(ifname, route, true);
}

Status LinuxPlatform::removeRoute(const std::string &ifname, const model::Route &route)
{
    return changeRoute(ifname, route, false);
}

} // namespace ibnm::platform
