// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"

#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/ipoib-netlink.hpp"
#include "libcore/platform/linux/rdma-netlink.hpp"
#include "libcore/platform/linux/sysfs.hpp"
#include "libcore/support/file-lock.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <netlink/errno.h>
#include <netlink/route/link/bonding.h>
#include <rdma/rdma_netlink.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace ibnm::platform {

namespace {

// Where standalone activations take their lock (lockActivations()).
constexpr const char *kActivationLockDir = "/run/ibnm";

using NlCbPtr = CPtr<nl_cb, nl_cb_put>;

// libnl folds errno into its own codes; the error callback below keeps the
// kernel's errno, and this table is the fallback.
int nlToErrno(int nlerr)
{
    switch (std::abs(nlerr)) {
    case NLE_NOMEM: return ENOMEM;
    case NLE_EXIST: return EEXIST;
    case NLE_INVAL: return EINVAL;
    case NLE_RANGE: return ERANGE;
    case NLE_OPNOTSUPP: return EOPNOTSUPP;
    case NLE_NOACCESS: return EACCES;
    case NLE_PERM: return EPERM;
    case NLE_BUSY: return EBUSY;
    case NLE_NODEV: return ENODEV;
    case NLE_OBJ_NOTFOUND: return ENOENT;
    case NLE_NOADDR: return EADDRNOTAVAIL;
    case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
    case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
    default: return EIO;
    }
}

// A connected netlink socket that remembers the errno of the last error
// answer (nlmsgerr) it received. A failure that was no answer from the
// kernel (a send or receive that broke off) marks it broken: its owner
// connects a new one for the next request rather than read a stale reply.
struct NlSocket {
    NlSockPtr sock;
    int lastErrno = 0;
    mutable bool broken = false;

    static int onError(sockaddr_nl *, nlmsgerr *e, void *arg)
    {
        static_cast<NlSocket *>(arg)->lastErrno = -e->error;
        return NL_STOP;
    }

    Error error(int nlerr, const std::string &context) const
    {
        int e = lastErrno != 0 ? lastErrno : nlToErrno(nlerr);
        if (lastErrno == 0)
            broken = true;
        return Error::fromErrno(e, context, IBNM_ERROR_PLATFORM);
    }
};

Result<std::unique_ptr<NlSocket>> connectNetlink(int protocol)
{
    auto s = std::make_unique<NlSocket>();
    s->sock.reset(nl_socket_alloc());
    if (!s->sock)
        return Error(IBNM_ERROR_FAILED, "nl_socket_alloc");
    int err = nl_connect(s->sock.get(), protocol);
    if (err < 0) {
        if (protocol == NETLINK_RDMA)
            return Error(IBNM_ERROR_NOT_SUPPORTED, _("the kernel has no RDMA netlink interface"), EPROTONOSUPPORT);
        return Error::fromErrno(nlToErrno(err), "netlink", IBNM_ERROR_PLATFORM);
    }
    nl_socket_modify_err_cb(s->sock.get(), NL_CB_CUSTOM, &NlSocket::onError, s.get());
    return s;
}

// Sends a request and waits for the kernel's acknowledgement.
Status sendAck(NlSocket &s, nl_msg *msg, const std::string &context)
{
    s.lastErrno = 0;
    int err = nl_send_auto(s.sock.get(), msg);
    if (err < 0)
        return s.error(err, context);
    err = nl_wait_for_ack(s.sock.get());
    if (err < 0)
        return s.error(err, context);
    return {};
}

struct DumpContext {
    std::function<Status(nlmsghdr *)> onMessage;
    Status status;
};

int onDumpMessage(nl_msg *msg, void *arg)
{
    auto *ctx = static_cast<DumpContext *>(arg);
    try {
        if (!ctx->status.ok())
            return NL_SKIP;
        ctx->status = ctx->onMessage(nlmsg_hdr(msg));
    } catch (...) {
        ctx->status = Error(IBNM_ERROR_FAILED, "netlink dump");
    }
    return NL_OK;
}

Status dump(NlSocket &s, nl_msg *request, const std::function<Status(nlmsghdr *)> &onMessage, const char *context)
{
    s.lastErrno = 0;
    int err = nl_send_auto(s.sock.get(), request);
    if (err < 0)
        return s.error(err, context);
    NlCbPtr cb(nl_cb_clone(nl_socket_get_cb(s.sock.get())));
    if (!cb)
        return Error(IBNM_ERROR_FAILED, "nl_cb_clone");
    DumpContext ctx{onMessage, {}};
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, onDumpMessage, &ctx);
    err = nl_recvmsgs(s.sock.get(), cb.get());
    if (err < 0)
        return s.error(err, context);
    return ctx.status;
}

Error noSuchInterface(const std::string &name)
{
    return Error(IBNM_ERROR_NOT_FOUND, _("no such network interface"), ENODEV).withContext(name);
}

Error noSuchDevice(const std::string &name)
{
    return Error(IBNM_ERROR_NOT_FOUND, _("no such RDMA device"), ENODEV).withContext(name);
}

// The link to change, by name: only its ifindex and name, which is all a
// change or delete request needs (no RTM_GETLINK round trip through
// libnl's link-type parsers).
Result<RtnlLinkPtr> getLink(NlSocket &, const std::string &name)
{
    unsigned index = if_nametoindex(name.c_str());
    if (index == 0) {
        if (errno == ENODEV || errno == ENXIO || errno == ENOENT)
            return noSuchInterface(name);
        return Error::fromErrno(errno, name, IBNM_ERROR_PLATFORM);
    }
    RtnlLinkPtr link(rtnl_link_alloc());
    if (!link)
        return Error(IBNM_ERROR_FAILED, "rtnl_link_alloc");
    rtnl_link_set_ifindex(link.get(), static_cast<int>(index));
    rtnl_link_set_name(link.get(), name.c_str());
    return link;
}

// Sends a dump request and appends every reply, decoded, to `out`.
template <typename T>
Status dumpInto(NlSocket &s, nl_msg *request, Result<T> (*decode)(const nlmsghdr *), std::vector<T> &out,
                const char *context)
{
    return dump(s, request, [&](nlmsghdr *h) -> Status {
        auto v = decode(h);
        if (!v)
            return std::move(v).error();
        out.push_back(std::move(v).value());
        return {};
    }, context);
}

Result<std::vector<rdma::DeviceInfo>> rdmaDevices(NlSocket &s)
{
    auto req = rdma::encodeGetDump();
    if (!req)
        return std::move(req).error();
    std::vector<rdma::DeviceInfo> devices;
    if (auto st = dumpInto(s, req->get(), rdma::decodeDevice, devices, "RDMA_NLDEV_CMD_GET"); !st)
        return std::move(st).error();
    return devices;
}

// Every port of every RDMA device, as `rdma link show` lists them.
Result<std::vector<rdma::PortInfo>> rdmaPorts(NlSocket &s)
{
    auto devices = rdmaDevices(s);
    if (!devices)
        return std::move(devices).error();
    std::vector<rdma::PortInfo> ports;
    for (const auto &d : *devices) {
        auto req = rdma::encodePortGetDump(d.index);
        if (!req)
            return std::move(req).error();
        if (auto st = dumpInto(s, req->get(), rdma::decodePort, ports, "RDMA_NLDEV_CMD_PORT_GET"); !st)
            return std::move(st).error();
    }
    return ports;
}

// Polls `done` every 20 ms for up to `ms` milliseconds.
bool waitUntil(const std::function<bool()> &done, int ms = 3000)
{
    for (int waited = 0;; waited += 20) {
        if (done())
            return true;
        if (waited >= ms)
            return false;
        g_usleep(20000);
    }
}

std::string formatAddress(nl_addr *a, unsigned prefixlen)
{
    char buf[INET6_ADDRSTRLEN];
    int family = nl_addr_get_family(a);
    if ((family != AF_INET && family != AF_INET6) ||
        inet_ntop(family, nl_addr_get_binary_addr(a), buf, sizeof(buf)) == nullptr)
        return {};
    return std::string(buf) + "/" + std::to_string(prefixlen);
}


unsigned mtuBytes(ibv_mtu mtu)
{
    return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0u;
}

// "0x%04x" P_Key as create_child/delete_child take it.
std::string pkeyText(unsigned pkey)
{
    return strprintf("0x%04x", pkey);
}

class LinuxPlatform final : public Platform {
public:
    explicit LinuxPlatform(LinuxOptions options) : options_(std::move(options)) {}

    const char *kind() const override { return "linux"; }

    Result<UniqueFd> lockActivations() override;
    Result<model::Host> readHost() override;
    Result<model::Host> readGidTables() override;

    Result<std::string> createIpoibChild(const IpoibChildSpec &spec) override;
    Status deleteIpoibChild(const std::string &parent, uint16_t pkey) override;
    Status setIpoibMode(const std::string &ifname, model::IpoibMode mode) override;
    Status setIpoibUmcast(const std::string &ifname, bool umcast) override;

    Status setMtu(const std::string &ifname, unsigned mtu) override;
    Status setUp(const std::string &ifname, bool up) override;
    Status createBond(const BondSpec &spec) override;
    Status setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                          std::optional<std::string> primary) override;
    Status enslave(const std::string &port, const std::string &bond) override;
    Status release(const std::string &port) override;
    Status deleteLink(const std::string &ifname) override;
    Status addAddress(const std::string &ifname, const std::string &cidr) override;
    Status removeAddress(const std::string &ifname, const std::string &cidr) override;
    Status addRoute(const std::string &ifname, const model::Route &route) override;
    Status removeRoute(const std::string &ifname, const model::Route &route) override;
    Status changeRoute(const std::string &ifname, const model::Route &route, bool add);

    Status prepare(const Prerequisites &needs) override;
    Status addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev) override;
    Status deleteSoftLink(const std::string &name) override;
    Status setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode) override;
    Status setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos) override;
    Status removeRoceDefaults(const std::string &device) override;
    Status clearTrafficClass(const std::string &device, unsigned port) override;
    Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) override;
    Status setTtl(const std::string &device, unsigned port, unsigned ttl) override;
    Status setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule) override;
    Status setRoceEnabled(const std::string &device, bool enabled) override;

    Result<std::optional<std::string>> readHostFile(const std::string &path) override;
    Status writeHostFile(const std::string &path, const std::string &contents, unsigned mode) override;
    Status removeHostFile(const std::string &path) override;

private:
    Status writable() const
    {
        if (!options_.readOnly)
            return {};
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the host under %s is a sysfs tree read from files, not a running kernel: it cannot be changed"),
                               options_.sysfsRoot.c_str()));
    }
    // The platform's rtnetlink and RDMA netlink sockets: each connected on
    // first use and kept (one per platform, not one per operation).
    Result<NlSocket *> socket(int protocol);
    Result<NlSocket *> route() { return socket(NETLINK_ROUTE); }
    Result<NlSocket *> rdmaSocket() { return socket(NETLINK_RDMA); }
    std::string netDir() const { return options_.sysfsRoot + "/class/net"; }
    std::string ibDir(const std::string &dev) const { return options_.sysfsRoot + "/class/infiniband/" + dev; }
    bool exists(const std::string &path) const { return g_file_test(path.c_str(), G_FILE_TEST_EXISTS); }

    Status overlayRtnetlink(model::Host &host);
    Status overlayRdmaNetlink(model::Host &host);
    // Reads the GID tables (and port MTUs) through verbs; returns the
    // devices whose GID tables it read.
    std::set<std::string> overlayVerbs(model::Host &host);
    // Every GID table read once: through verbs when useVerbs, from sysfs for
    // the devices verbs could not read.
    Status readGidTablesOnce(model::Host &host);
    // What a change of one link needs: the platform writable, an rtnetlink
    // socket, and the link by name (in that order of errors).
    struct LinkTarget {
        NlSocket *s;
        RtnlLinkPtr link;
    };
    Result<LinkTarget> writableLink(const std::string &ifname);
    Status linkChange(const std::string &ifname, const std::function<void(rtnl_link *)> &edit);
    // The rxe devices whose netdev is `ifname`, and the siw ones via PORT_GET.
    std::vector<std::string> softDevicesOn(const std::string &ifname);
    // Waits until the IPv4-mapped RoCE GIDs of `ifname` match its addresses.
    void settleRoceGids(const std::string &ifname);
    // Whether class/net/<name> is the child of `parent` with P_Key `full`
    // (two attribute reads).
    bool isChild(const std::string &name, const std::string &parent, uint16_t full) const;
    // The child of `parent` with P_Key `full`: first by the names the kernel
    // gives (model::childNames), then, when `scan`, among every netdev (a
    // child renamed since). Empty when there is none.
    std::string findChild(const std::string &parent, uint16_t full, bool scan) const;
    // The IPv4-mapped GIDs the addresses of `ifname` give (RTM_GETADDR for
    // that one interface).
    Result<std::set<std::string>> ipv4Gids(const std::string &ifname);
    Status changeAddress(const std::string &ifname, const std::string &cidr, bool add);
    Status roceDir(const std::string &device, unsigned port, std::string &portDir);
    // tcWrite's value for "-1".
    static constexpr unsigned kTcDisable = ~0u;
    Status tcWrite(const std::string &device, unsigned port, const char *file, unsigned value);

    LinuxOptions options_;
    std::unique_ptr<NlSocket> route_;
    std::unique_ptr<NlSocket> rdma_;
};

Result<NlSocket *> LinuxPlatform::socket(int protocol)
{
    std::unique_ptr<NlSocket> &slot = protocol == NETLINK_RDMA ? rdma_ : route_;
    if (slot && slot->broken)
        slot.reset();
    if (!slot) {
        auto s = connectNetlink(protocol);
        if (!s)
            return std::move(s).error();
        slot = std::move(s).value();
    }
    return slot.get();
}

// --- reading ---------------------------------------------------------------------

Result<UniqueFd> LinuxPlatform::lockActivations()
{
    // A tree read from files changes only by hand: nothing to serialise.
    if (options_.readOnly)
        return UniqueFd();
    // /run: one lock per boot, as NetworkManager keeps its run state there.
    if (g_mkdir_with_parents(kActivationLockDir, 0755) != 0)
        return Error::fromErrno(errno, kActivationLockDir);
    return lockFileExclusive(std::string(kActivationLockDir) + "/activations.lock");
}

Result<model::Host> LinuxPlatform::readHost()
{
    sysfs::ReadOptions ro;
    ro.sysfsRoot = options_.sysfsRoot;
    ro.configfsRoot = options_.configfsRoot;
    // With verbs the GID tables come from ibv_query_gid_table(), read once
    // below, not from sysfs as well.
    ro.gidTables = !options_.useVerbs;
    auto host = sysfs::readHost(ro);
    if (!host)
        return host;
    if (!options_.readOnly) {
        utsname u;
        if (uname(&u) == 0)
            host->kernelRelease = u.release;
    }

    // Soft links as sysfs shows them: rxe names its netdev in "parent".
    for (const auto &dev : host->devices) {
        if (dev.driver != "rdma_rxe" && dev.driver != "siw")
            continue;
        model::SoftLink l;
        l.name = dev.name;
        l.type = dev.driver == "siw" ? model::SoftLinkType::Siw : model::SoftLinkType::Rxe;
        auto parent = sysfs::readOptionalAttr(ibDir(dev.name) + "/parent");
        if (!parent)
            return std::move(parent).error();
        l.netdev = parent->value_or("");
        host->softLinks.push_back(std::move(l));
    }

    if (options_.useNetlink) {
        if (auto st = overlayRtnetlink(*host); !st)
            return std::move(st).error();
        if (!host->devices.empty())
            if (auto st = overlayRdmaNetlink(*host); !st)
                return std::move(st).error();
    }
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

// --- IPoIB ---------------------------------------------------------------------

bool LinuxPlatform::isChild(const std::string &name, const std::string &parent, uint16_t full) const
{
    auto par = sysfs::readOptionalAttr(netDir() + "/" + name + "/parent");
    if (!par || par->value_or("") != parent)
        return false;
    auto pk = sysfs::readOptionalNumber(netDir() + "/" + name + "/pkey", 16);
    return pk && pk->value_or(0) == full;
}

std::string LinuxPlatform::findChild(const std::string &parent, uint16_t full, bool scan) const
{
    for (const auto &name : model::childNames(parent, full))
        if (isChild(name, parent, full))
            return name;
    if (!scan)
        return {};
    auto all = sysfs::listDir(netDir());
    if (all)
        for (const auto &name : *all)
            if (isChild(name, parent, full))
                return name;
    return {};
}

Result<std::string> LinuxPlatform::createIpoibChild(const IpoibChildSpec &spec)
{
    if (auto st = writable(); !st)
        return std::move(st).error();
    if (auto v = model::validatePkey(spec.pkey); !v)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, v.error().message(), EINVAL).withContext(spec.parent);
    auto s = route();
    if (!s)
        return std::move(s).error();
    auto parent = getLink(**s, spec.parent);
    if (!parent)
        return std::move(parent).error();

    // The planner resolved the target from its snapshot and creates only a
    // child that is not there. What the kernel would not refuse itself is
    // checked here by name, at O(1): rtnetlink makes a second child in the
    // partition under the other naming (ib0.0002 next to ib0.8002).
    uint16_t full = model::fullMembership(spec.pkey);
    if (std::string existing = findChild(spec.parent, full, false); !existing.empty())
        return Error::fromErrno(EEXIST, existing, IBNM_ERROR_EXISTS).withContext(spec.parent);

    // (Not model::nmChildName: libnm's names are the planner's to choose,
    // and the read-only CLI links this file without libnm.)
    std::string name =
        spec.name.empty() ? model::childName(spec.parent, spec.pkey, model::ChildNaming::Upstream) : spec.name;
    ipoib::LinkRequest req;
    req.ifname = name;
    req.parentIfindex = static_cast<unsigned>(rtnl_link_get_ifindex(parent->get()));
    req.pkey = spec.pkey;
    req.mode = spec.mode;
    req.umcast = spec.umcast;
    auto msg = ipoib::encodeNewLink(req);
    if (!msg)
        return std::move(msg).error();
    Status st = sendAck(**s, msg->get(), spec.parent);
    bool viaSysfs = false;
    if (!st && st.error().errnum() == EOPNOTSUPP) {
        // No IPoIB rtnl_link_ops (old kernels, some OFED builds): the sysfs
        // interface.
        std::string createChild = netDir() + "/" + spec.parent + "/create_child";
        if (exists(createChild)) {
            st = sysfs::writeAttr(createChild, pkeyText(spec.pkey));
            viaSysfs = true;
        }
    }
    if (!st)
        return std::move(st).error();

    // Read back what the kernel made: the name asked for, else (create_child
    // names the child itself) the names the kernel gives, else any netdev.
    std::string created = isChild(name, spec.parent, full) ? name : findChild(spec.parent, full, true);
    if (created.empty())
        return Error(IBNM_ERROR_PLATFORM, _("the kernel accepted the P_Key child but no new interface appeared"))
            .withContext(spec.parent);
    if (viaSysfs) {
        if (spec.mode)
            if (auto m = setIpoibMode(created, *spec.mode); !m)
                return std::move(m).error();
        if (spec.umcast)
            if (auto u = setIpoibUmcast(created, *spec.umcast); !u)
                return std::move(u).error();
    }
    return created;
}

Status LinuxPlatform::deleteIpoibChild(const std::string &parent, uint16_t pkey)
{
    if (auto st = writable(); !st)
        return st;
    uint16_t full = model::fullMembership(pkey);
    std::string name = findChild(parent, full, true);
    if (name.empty())
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no P_Key child 0x%04x"), full), ENODEV).withContext(parent);
    auto st = deleteLink(name);
    if (!st && st.error().errnum() == EOPNOTSUPP)
        st = sysfs::writeAttr(netDir() + "/" + parent + "/delete_child", pkeyText(full));
    return st;
}

Status LinuxPlatform::setIpoibMode(const std::string &ifname, model::IpoibMode mode)
{
    if (auto st = writable(); !st)
        return st;
    std::string dir = netDir() + "/" + ifname;
    if (!exists(dir))
        return noSuchInterface(ifname);
    // Whether the device can do connected mode is the planner's question
    // (model::connectedModeAvailable); the kernel's refusal is mapped here.
    auto st = sysfs::writeAttr(dir + "/mode", model::modeName(mode));
    if (!st && mode == model::IpoibMode::Connected &&
        (st.error().errnum() == EINVAL || st.error().errnum() == EOPNOTSUPP))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the kernel refuses connected mode"), st.error().errnum())
            .withContext(dir + "/mode");
    return st;
}

Status LinuxPlatform::setIpoibUmcast(const std::string &ifname, bool umcast)
{
    if (auto st = writable(); !st)
        return st;
    std::string dir = netDir() + "/" + ifname;
    if (!exists(dir))
        return noSuchInterface(ifname);
    return sysfs::writeAttr(dir + "/umcast", umcast ? "1" : "0");
}

// --- links ---------------------------------------------------------------------

Result<LinuxPlatform::LinkTarget> LinuxPlatform::writableLink(const std::string &ifname)
{
    if (auto st = writable(); !st)
        return std::move(st).error();
    auto s = route();
    if (!s)
        return std::move(s).error();
    auto link = getLink(**s, ifname);
    if (!link)
        return std::move(link).error();
    return LinkTarget{*s, std::move(link).value()};
}

Status LinuxPlatform::linkChange(const std::string &ifname, const std::function<void(rtnl_link *)> &edit)
{
    auto t = writableLink(ifname);
    if (!t)
        return std::move(t).error();
    RtnlLinkPtr change(rtnl_link_alloc());
    if (!change)
        return Error(IBNM_ERROR_FAILED, "rtnl_link_alloc");
    edit(change.get());
    t->s->lastErrno = 0;
    int err = rtnl_link_change(t->s->sock.get(), t->link.get(), change.get(), 0);
    if (err < 0)
        return t->s->error(err, ifname);
    return {};
}

Status LinuxPlatform::setMtu(const std::string &ifname, unsigned mtu)
{
    return linkChange(ifname, [&](rtnl_link *l) { rtnl_link_set_mtu(l, mtu); });
}

Status LinuxPlatform::setUp(const std::string &ifname, bool up)
{
    return linkChange(ifname, [&](rtnl_link *l) {
        if (up)
            rtnl_link_set_flags(l, IFF_UP);
        else
            rtnl_link_unset_flags(l, IFF_UP);
    });
}

Status LinuxPlatform::createBond(const BondSpec &spec)
{
    if (auto st = writable(); !st)
        return st;
    auto s = route();
    if (!s)
        return std::move(s).error();
    (*s)->lastErrno = 0;
    int err = rtnl_link_bond_add((*s)->sock.get(), spec.name.c_str(), nullptr);
    if (err < 0)
        return (*s)->error(err, spec.name);
    // libnl 3.7 has no setters for the bond's options: they are written to
    // bonding/ while the new bond is down and has no ports.
    std::string dir = netDir() + "/" + spec.name + "/bonding/";
    std::vector<std::pair<std::string, std::string>> writes;
    if (!spec.mode.empty())
        writes.emplace_back("mode", spec.mode);
    if (!spec.failOverMac.empty())
        writes.emplace_back("fail_over_mac", spec.failOverMac);
    if (spec.miimon)
        writes.emplace_back("miimon", std::to_string(*spec.miimon));
    if (!spec.primary.empty())
        writes.emplace_back("primary", spec.primary);
    for (const auto &[file, value] : writes) {
        auto st = sysfs::writeAttr(dir + file, value);
        if (!st) {
            (void)deleteLink(spec.name);
            return st;
        }
    }
    return {};
}

Status LinuxPlatform::setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                                     std::optional<std::string> primary)
{
    if (auto st = writable(); !st)
        return st;
    std::string dir = netDir() + "/" + bond + "/bonding";
    if (!g_file_test(dir.c_str(), G_FILE_TEST_IS_DIR))
        return noSuchInterface(bond);
    if (miimon)
        if (auto st = sysfs::writeAttr(dir + "/miimon", std::to_string(*miimon)); !st)
            return st;
    // The bonding driver takes a blank line for "no primary".
    if (primary)
        if (auto st = sysfs::writeAttr(dir + "/primary", primary->empty() ? "\n" : *primary); !st)
            return st;
    return {};
}

Status LinuxPlatform::enslave(const std::string &port, const std::string &bond)
{
    if (auto st = writable(); !st)
        return st;
    auto s = route();
    if (!s)
        return std::move(s).error();
    auto master = getLink(**s, bond);
    if (!master)
        return std::move(master).error();
    auto slave = getLink(**s, port);
    if (!slave)
        return std::move(slave).error();
    // Ports join down; the bond brings them up.
    if (auto st = setUp(port, false); !st)
        return st;
    (*s)->lastErrno = 0;
    int err = rtnl_link_bond_enslave_ifindex((*s)->sock.get(), rtnl_link_get_ifindex(master->get()),
                                             rtnl_link_get_ifindex(slave->get()));
    if (err < 0)
        return (*s)->error(err, port).withContext(bond);
    return {};
}

Status LinuxPlatform::release(const std::string &port)
{
    auto t = writableLink(port);
    if (!t)
        return std::move(t).error();
    t->s->lastErrno = 0;
    int err = rtnl_link_bond_release_ifindex(t->s->sock.get(), rtnl_link_get_ifindex(t->link.get()));
    if (err < 0)
        return t->s->error(err, port);
    return {};
}

std::vector<std::string> LinuxPlatform::softDevicesOn(const std::string &ifname)
{
    std::vector<std::string> out;
    auto devs = sysfs::listDir(options_.sysfsRoot + "/class/infiniband");
    if (!devs)
        return out;
    for (const auto &d : *devs) {
        auto parent = sysfs::readOptionalAttr(ibDir(d) + "/parent");
        if (parent && parent->value_or("") == ifname)
            out.push_back(d);
    }
    auto s = rdmaSocket();
    if (!s)
        return out;
    auto ports = rdmaPorts(**s);
    if (!ports)
        return out;
    for (const auto &p : *ports)
        if (p.netdevName.value_or("") == ifname && std::find(out.begin(), out.end(), p.deviceName) == out.end())
            out.push_back(p.deviceName);
    return out;
}

Status LinuxPlatform::deleteLink(const std::string &ifname)
{
    auto t = writableLink(ifname);
    if (!t)
        return std::move(t).error();
    auto soft = softDevicesOn(ifname);
    t->s->lastErrno = 0;
    int err = rtnl_link_delete(t->s->sock.get(), t->link.get());
    if (err < 0)
        return t->s->error(err, ifname);
    // rxe and siw unregister their devices from a work queue once the
    // netdev is gone: wait for that, so the next snapshot is consistent.
    waitUntil([&] {
        return std::none_of(soft.begin(), soft.end(), [&](const std::string &d) { return exists(ibDir(d)); });
    });
    return {};
}

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

// --- RDMA ------------------------------------------------------------------------

Status LinuxPlatform::addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(netDir() + "/" + netdev))
        return noSuchInterface(netdev).withContext(name);
    auto s = rdmaSocket();
    if (!s)
        return std::move(s).error().withContext(name);
    auto msg = rdma::encodeNewLink(name, type, netdev);
    if (!msg)
        return std::move(msg).error();
    if (auto st = sendAck(**s, msg->get(), name); !st)
        return std::move(st).withContext(netdev + " (" + rdma::linkTypeName(type) + ")", " ");
    waitUntil([&] { return exists(ibDir(name)); });
    if (type == model::SoftLinkType::Rxe)
        settleRoceGids(netdev);
    return {};
}

Status LinuxPlatform::deleteSoftLink(const std::string &name)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(name)))
        return noSuchDevice(name);
    auto s = rdmaSocket();
    if (!s)
        return std::move(s).error().withContext(name);
    auto devices = rdmaDevices(**s);
    if (!devices)
        return std::move(devices).error();
    std::optional<uint32_t> index;
    for (const auto &d : *devices)
        if (d.name == name)
            index = d.index;
    if (!index)
        return noSuchDevice(name);
    auto msg = rdma::encodeDelLink(*index);
    if (!msg)
        return std::move(msg).error();
    if (auto del = sendAck(**s, msg->get(), name); !del)
        return del;
    waitUntil([&] { return !exists(ibDir(name)); });
    return {};
}

Status LinuxPlatform::roceDir(const std::string &device, unsigned port, std::string &portDir)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string base = options_.configfsRoot + "/rdma_cm";
    if (!g_file_test(base.c_str(), G_FILE_TEST_IS_DIR))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("configfs rdma_cm is not available (mount configfs and load rdma_cm)"),
                     ENOENT)
            .withContext(base);
    // The values live only while this directory exists: it is created when
    // missing and left in place.
    std::string dir = base + "/" + device;
    if (::mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST)
        return Error::fromErrno(errno, dir, IBNM_ERROR_PLATFORM);
    portDir = dir + "/ports/" + std::to_string(port);
    if (!exists(portDir))
        return Error(IBNM_ERROR_NOT_FOUND, _("no such port"), ENOENT).withContext(portDir);
    return {};
}

namespace {

// The module of each soft RDMA driver (drivers/infiniband/sw/rxe builds
// rdma_rxe, sw/siw builds siw), and rdma_ucm: it pulls in rdma_cm, which
// registers configfs rdma_cm/ (drivers/infiniband/core/cma_configfs.c), and
// gives user space /dev/infiniband/rdma_cm.
const char *softLinkModule(model::SoftLinkType type)
{
    return type == model::SoftLinkType::Siw ? "siw" : "rdma_rxe";
}
constexpr const char *kRdmaCmModule = "rdma_ucm";
// statfs(2) f_type of configfs (fs/configfs/mount.c; not in linux/magic.h).
constexpr long kConfigfsMagic = 0x62656570;

// What `modprobe NAME` does, through libkmod: the module and its
// dependencies, honouring the blacklist; nothing when it is loaded already
// or built in.
Status loadModule(kmod_ctx *ctx, const char *name)
{
    KmodModulePtr mod;
    int rc = kmod_module_new_from_name(ctx, name, outPtr(mod));
    if (rc == 0) {
        int state = kmod_module_get_initstate(mod.get());
        if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN)
            return {};
        rc = kmod_module_probe_insert_module(mod.get(), KMOD_PROBE_APPLY_BLACKLIST, nullptr, nullptr, nullptr,
                                             nullptr);
        if (rc > 0)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("cannot load the kernel module %s: it is blacklisted"), name));
    }
    if (rc < 0)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("cannot load the kernel module %s: %s"), name, g_strerror(-rc)), -rc);
    return {};
}

} // namespace

Status LinuxPlatform::prepare(const Prerequisites &needs)
{
    if (needs.empty())
        return {};
    if (auto st = writable(); !st)
        return st;
    KmodCtxPtr ctx(kmod_new(nullptr, nullptr));
    if (!ctx)
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("cannot read the kernel's module index"));
    for (auto type : needs.softLinkDrivers)
        if (auto st = loadModule(ctx.get(), softLinkModule(type)); !st)
            return st;
    if (!needs.rdmaCmConfigfs)
        return {};
    // configfs at configfsRoot, as systemd's sys-kernel-config.mount does.
    struct statfs fs {};
    if (::statfs(options_.configfsRoot.c_str(), &fs) != 0 || fs.f_type != kConfigfsMagic) {
        if (auto st = loadModule(ctx.get(), "configfs"); !st)
            return st;
        if (::mount("configfs", options_.configfsRoot.c_str(), "configfs", 0, nullptr) != 0 && errno != EBUSY)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("cannot mount configfs on %s: %s"), options_.configfsRoot.c_str(),
                                   g_strerror(errno)),
                         errno);
    }
    return loadModule(ctx.get(), kRdmaCmModule);
}

Status LinuxPlatform::setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode)
{
    std::string dir;
    if (auto st = roceDir(device, port, dir); !st)
        return st;
    return sysfs::writeAttr(dir + "/default_roce_mode", model::roceModeName(mode));
}

Status LinuxPlatform::removeRoceDefaults(const std::string &device)
{
    if (auto st = writable(); !st)
        return st;
    std::string dir = options_.configfsRoot + "/rdma_cm/" + device;
    if (::rmdir(dir.c_str()) < 0 && errno != ENOENT)
        return Error::fromErrno(errno, dir, IBNM_ERROR_PLATFORM);
    return {};
}

Status LinuxPlatform::setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos)
{
    if (tos > 255)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("the ToS %u is out of range (0-255)"), tos), ERANGE)
            .withContext(device);
    std::string dir;
    if (auto st = roceDir(device, port, dir); !st)
        return st;
    return sysfs::writeAttr(dir + "/default_roce_tos", std::to_string(tos));
}

Status LinuxPlatform::tcWrite(const std::string &device, unsigned port, const char *file, unsigned value)
{
    if (auto st = writable(); !st)
        return st;
    if (value > 255 && value != kTcDisable)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("the value %u is out of range (0-255)"), value), ERANGE)
            .withContext(device);
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string path = ibDir(device) + "/tc/" + std::to_string(port) + "/" + file;
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no such setting (only mlx5 has it)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, value == kTcDisable ? std::string("-1") : std::to_string(value));
}

Status LinuxPlatform::clearTrafficClass(const std::string &device, unsigned port)
{
    // A negative value disables the global traffic class (NVIDIA's RoCE page).
    return tcWrite(device, port, "traffic_class", kTcDisable);
}

Status LinuxPlatform::setTrafficClass(const std::string &device, unsigned port, unsigned tclass)
{
    return tcWrite(device, port, "traffic_class", tclass);
}

Status LinuxPlatform::setTtl(const std::string &device, unsigned port, unsigned ttl)
{
    return tcWrite(device, port, "ttl", ttl);
}

Status LinuxPlatform::setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string path = ibDir(device) + "/tc/" + std::to_string(port) + "/traffic_class";
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no such setting (only mlx5 has it)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, model::formatTcRule(rule));
}

Status LinuxPlatform::setRoceEnabled(const std::string &device, bool enabled)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    // /sys/class/infiniband/<dev>/device is the PCI function's directory,
    // /sys/devices/<pci address>.
    std::string path = ibDir(device) + "/device/roce_enable";
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no roce_enable file (mlx5 only)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, enabled ? "1" : "0");
}

// --- host files ------------------------------------------------------------------

Result<std::optional<std::string>> LinuxPlatform::readHostFile(const std::string &path)
{
    // A dump holds a sysfs tree, not this host's files.
    if (options_.readOnly)
        return std::optional<std::string>();
    GCharPtr contents;
    gsize len = 0;
    GErrorPtr err;
    if (!g_file_get_contents(path.c_str(), outPtr(contents), &len, outPtr(err))) {
        if (g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return std::optional<std::string>();
        return Error(IBNM_ERROR_IO, err->message).withContext(path);
    }
    return std::optional<std::string>(std::string(contents.get(), len));
}

Status LinuxPlatform::writeHostFile(const std::string &path, const std::string &contents, unsigned mode)
{
    if (auto st = writable(); !st)
        return st;
    AtomicWriteOptions opts;
    opts.mode = mode;
    return atomicWriteFile(path, contents, opts);
}

Status LinuxPlatform::removeHostFile(const std::string &path)
{
    if (auto st = writable(); !st)
        return st;
    if (::unlink(path.c_str()) < 0 && errno != ENOENT)
        return Error::fromErrno(errno, path);
    return {};
}

} // namespace

Result<LinuxOptions> sysfsDumpOptions(const std::string &dir)
{
    std::string root;
    for (const std::string &candidate : {dir, dir + "/sys"})
        if (root.empty() && g_file_test((candidate + "/class").c_str(), G_FILE_TEST_IS_DIR))
            root = candidate;
    if (root.empty())
        return Error(IBNM_ERROR_NOT_FOUND,
                     _("neither a sysfs tree (class/...) nor the root of one (sys/class/..., as in an extracted "
                       "sosreport)"),
                     ENOENT)
            .withContext(dir);
    LinuxOptions o;
    o.sysfsRoot = root;
    o.configfsRoot = root + "/kernel/config";
    o.readOnly = true;
    o.useNetlink = false;
    o.useVerbs = false;
    return o;
}

LinuxOptions linuxOptionsFromEnvironment()
{
    const char *root = g_getenv("IBNM_SYSFS_ROOT");
    if (root == nullptr || *root == '\0')
        return LinuxOptions{};
    auto o = sysfsDumpOptions(root);
    if (o.ok())
        return *o;
    // Read as given: reading fails and names the directory.
    LinuxOptions raw;
    raw.sysfsRoot = root;
    raw.configfsRoot = std::string(root) + "/kernel/config";
    raw.readOnly = true;
    raw.useNetlink = false;
    raw.useVerbs = false;
    return raw;
}

std::unique_ptr<Platform> createLinuxPlatform(const LinuxOptions &options)
{
    return std::make_unique<LinuxPlatform>(options);
}

} // namespace ibnm::platform
