// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform (linux-platform.hpp says what it uses): its netlink
// socket, the activation lock, IPoIB children, links and bonds, the host's
// /etc files, and its options. Reading the host is in linux-read.cpp,
// addresses, routes and the RoCE GIDs they bring in linux-addresses.cpp,
// RDMA links, modules, configfs rdma_cm and mlx5 tc/ in linux-rdma.cpp.
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include "libcore/support/files.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/platform/linux/ipoib-netlink.hpp"
#include "libcore/platform/linux/sysfs.hpp"
#include "libcore/support/file-lock.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/runtime-dir.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <net/if.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <netlink/errno.h>
#include <netlink/route/link/bonding.h>
#include <rdma/rdma_netlink.h>
#include <unistd.h>

namespace ibnm::platform {

namespace {

// Where standalone activations take their lock (lockActivations()).
constexpr const char *kActivationLockDir = IBNM_RUNTIME_DIR;

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

// "0x%04x" P_Key as create_child/delete_child take it.
std::string pkeyText(unsigned pkey)
{
    return strprintf("0x%04x", pkey);
}

} // namespace

// libnl folds errno into its own codes; NlSocket's error callback keeps the
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
bool waitUntil(const std::function<bool()> &done, int ms)
{
    for (int waited = 0;; waited += 20) {
        if (done())
            return true;
        if (waited >= ms)
            return false;
        g_usleep(20000);
    }
}

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

// --- locking ---------------------------------------------------------------------

Result<UniqueFd> LinuxPlatform::lockActivations(int64_t waitUntil)
{
    // A tree read from files changes only by hand: nothing to serialise.
    if (options_.readOnly)
        return UniqueFd();
    // /run: one lock per boot, as NetworkManager keeps its run state there.
    if (g_mkdir_with_parents(kActivationLockDir, 0755) != 0)
        return Error::fromErrno(errno, kActivationLockDir);
    return lockFileExclusive(std::string(kActivationLockDir) + "/activations.lock", waitUntil,
                             _("the activation lock"));
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

    // (Not model::nmChildName: libnm's names are the planner's to choose.)
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

std::unique_ptr<Platform> createLinuxPlatform(const LinuxOptions &options)
{
    return std::make_unique<LinuxPlatform>(options);
}

} // namespace ibnm::platform
