// SPDX-License-Identifier: LGPL-2.1-or-later
// What the files of the Linux platform share (linux-platform.cpp,
// linux-read.cpp, linux-addresses.cpp, linux-rdma.cpp): the netlink socket
// and its helpers, and the LinuxPlatform class, whose methods they define.
// Nothing outside libcore/platform/linux/ includes it: the rest of ibnm knows
// the platform through linux-platform.hpp.
#pragma once

#include "libcore/platform/linux/linux-platform.hpp"

#include "libcore/platform/linux/rdma-netlink.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <linux/netlink.h>

namespace ibnm::platform {

using NlCbPtr = CPtr<nl_cb, nl_cb_put>;

int nlToErrno(int nlerr);

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

Result<std::unique_ptr<NlSocket>> connectNetlink(int protocol);
// Sends a request and waits for the kernel's acknowledgement.
Status sendAck(NlSocket &s, nl_msg *msg, const std::string &context);
// Sends a request and hands every reply to `onMessage`.
Status dump(NlSocket &s, nl_msg *request, const std::function<Status(nlmsghdr *)> &onMessage, const char *context);
Error noSuchInterface(const std::string &name);

Error noSuchDevice(const std::string &name);
// The link to change, by name (its ifindex and name only).
Result<RtnlLinkPtr> getLink(NlSocket &, const std::string &name);
Result<std::vector<rdma::DeviceInfo>> rdmaDevices(NlSocket &s);
// Every port of every RDMA device, as `rdma link show` lists them.
Result<std::vector<rdma::PortInfo>> rdmaPorts(NlSocket &s);
// The bytes of a verbs MTU (enum ibv_mtu: IBV_MTU_256 = 1 ... IBV_MTU_4096 =
// 5, 256 << (n - 1)); 0 for any other value.
unsigned mtuBytes(ibv_mtu mtu);
// Polls `done` every 20 ms for up to `ms` milliseconds.
bool waitUntil(const std::function<bool()> &done, int ms = 3000);

class LinuxPlatform final : public Platform {
public:
    explicit LinuxPlatform(LinuxOptions options) : options_(std::move(options)) {}

    const char *kind() const override { return "linux"; }

    Result<UniqueFd> lockActivations(int64_t waitUntil) override;
    Result<model::Host> readHost() override;
    Result<model::Host> readGidTables() override;
    Result<model::Host> readHostWithoutGidTables() override;
    // linux-watch.cpp: rtnetlink, RDMA netlink and uevent multicast.
    Result<std::unique_ptr<ChangeWatch>> watchChanges(GMainContext *context, ChangeCallback onChange) override;

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
    // rdma-test.cpp: on librdmacm.
    Result<RdmaTestOutcome> runRdmaTest(const RdmaTestSpec &spec) override;

    // linux-resolved.cpp: systemd-resolved over GDBus.
    Result<model::Resolver> readResolver() override;
    Status setLinkDns(const std::string &ifname, const model::LinkDns &dns) override;
    Status revertLinkDns(const std::string &ifname) override;

private:
    Status writable() const
    {
        if (!options_.readOnly)
            return {};
        return readOnlyTreeError(options_.sysfsRoot);
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
    // readHost(), with or without the GID tables and the netdevs they map.
    Result<model::Host> readHost(bool gidTables);
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

} // namespace ibnm::platform
