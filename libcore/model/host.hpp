// SPDX-License-Identifier: LGPL-2.1-or-later
// What libibnm knows about a host: a plain C++ snapshot of its RDMA devices,
// netdevs and RDMA settings. Platforms (Linux, Fake) produce it; the profile
// rules and activation read it; the public IbnmInventory API exposes it.
// Values are as the kernel reports them; absent knowledge is std::nullopt,
// never a made-up default.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::model {

enum class LinkLayer { Unknown, InfiniBand, Ethernet };
enum class GidType { Unknown, IbRoceV1, RoceV2 }; // "IB/RoCE v1", "RoCE v2"
enum class IpoibMode { Datagram, Connected };
enum class SoftLinkType { Rxe, Siw };
enum class RoceMode { V1, V2 }; // configfs "IB/RoCE v1" / "RoCE v2"

// How the kernel names a P_Key child (FACTS.md): upstream writes the value as
// given ("ib0.0002"), MLNX_OFED/older kernels set 0x8000 first ("ib0.8002").
enum class ChildNaming { Upstream, FullMembershipBit };

struct Gid {
    unsigned index = 0;
    std::string gid;              // "fe80:0000:...", as sysfs prints it
    GidType type = GidType::Unknown;
    std::string netdev;           // empty when the entry has none
};

// One mlx5 traffic-class rule (tc/<port>/traffic_class): QPs from srcIp to
// dstIp (either may be empty; dstIp may carry a /prefix) get `tclass`.
// tclass -1 is the kernel's word for "remove the rule" (model/rdma.hpp).
struct TcRule {
    int tclass = 0;
    std::string srcIp;
    std::string dstIp;
    bool sameMatch(const TcRule &o) const { return srcIp == o.srcIp && dstIp == o.dstIp; }
    bool operator==(const TcRule &o) const { return tclass == o.tclass && sameMatch(o); }
};

struct Port {
    unsigned number = 0;
    std::string state;            // "4: ACTIVE"
    std::string physState;        // "5: LinkUp"
    std::string rate;             // "56 Gb/sec (4X FDR)"
    std::optional<uint32_t> lid;
    std::optional<uint32_t> smLid;
    LinkLayer linkLayer = LinkLayer::Unknown;
    std::optional<unsigned> activeMtu; // bytes (256..4096), from ibv_query_port
    std::optional<unsigned> maxMtu;
    // MTU of the IPoIB broadcast group the subnet manager set for the
    // partition (bytes), where known; datagram MTU is clamped to it - 4.
    std::optional<unsigned> broadcastMtu;
    std::vector<uint16_t> pkeys;  // non-zero entries of ports/<n>/pkeys/
    std::vector<Gid> gids;        // used entries only
    // configfs rdma_cm defaults, when the device directory exists there.
    std::optional<RoceMode> defaultRoceMode;
    std::optional<unsigned> defaultRoceTos;
    // mlx5 tc/<port>/traffic_class and ttl, when the files exist.
    std::optional<unsigned> trafficClass;
    std::vector<TcRule> tcRules;  // the rules traffic_class lists
    std::optional<unsigned> ttl;
};

struct Device {
    std::string name;             // "mlx4_0", "rxe0"
    std::string nodeGuid;         // "0002:c903:0031:7850"
    std::string nodeType;         // "1: CA", "4: RNIC"
    std::string fwVersion;
    std::string hcaType;          // "MT4099"
    std::string driver;           // "mlx4_core", "mlx5_core", "rdma_rxe", "siw"
    std::string boardId;
    std::string pciAddress;       // the PCI function, "0000:03:00.1"; empty for soft devices
    bool enhancedIpoib = false;   // mlx5 Enhanced IPoIB: datagram only
    bool connectedModeSupported = true; // IPOIB_CM present and not enhanced
    std::optional<bool> roceEnabled;    // mlx5 roce_enable
    std::vector<Port> ports;
};

// A static route through a netdev (not the prefix routes the kernel adds for
// an address). dest "198.51.100.0/24", "0.0.0.0/0" or "::/0"; gateway "" for
// an on-link route.
struct Route {
    std::string dest;
    std::string gateway;
    unsigned metric = 0;
    bool operator==(const Route &o) const { return dest == o.dest && gateway == o.gateway && metric == o.metric; }
};

// "198.51.100.0/24 via 192.0.2.254 metric 10", as `ip route` shows it
// (the host description format and activation's step texts use it).
inline std::string formatRoute(const Route &r)
{
    std::string s = r.dest;
    if (!r.gateway.empty())
        s += " via " + r.gateway;
    if (r.metric != 0)
        s += " metric " + std::to_string(r.metric);
    return s;
}

struct Netdev {
    std::string name;
    unsigned ifindex = 0;
    unsigned type = 0;            // ARPHRD_*: 1 Ethernet, 32 InfiniBand
    std::string address;          // "80:00:02:08:fe:80:..." lower-case, as sysfs
    unsigned mtu = 0;
    std::optional<unsigned> maxMtu; // IFLA_MAX_MTU, where known
    bool up = false;
    std::string kind;             // rtnetlink kind: "ipoib", "bond", "vlan", "dummy", "veth", ""
    std::string master;           // bond this netdev is a port of
    std::string link;             // lower netdev of a VLAN (IFLA_LINK), else empty
    std::vector<std::string> addresses; // "192.0.2.1/24", "fe80::1/64"
    std::vector<Route> routes;          // static routes through this netdev
    // RDMA port behind this netdev, if any.
    std::string rdmaDevice;
    unsigned rdmaPort = 0;
    // The PCI function of the netdev's device (/sys/class/net/<if>/device,
    // "0000:03:00.0"); empty for a virtual netdev.
    std::string pciAddress;
};

struct IpoibNetdev {
    std::string name;
    std::string parent;           // empty for a port's own interface
    uint16_t pkey = 0xffff;       // as /sys/class/net/<if>/pkey shows: 0x8000 set
    IpoibMode mode = IpoibMode::Datagram;
    bool umcast = false;
    unsigned mtu = 0;
    std::string address;          // 20-byte hardware address
    std::string portGuid;         // last 8 bytes, "0002:c903:0031:7851"
};

struct Bond {
    std::string name;
    std::string mode;             // "active-backup"
    std::vector<std::string> ports;
    std::string primary;
    std::string activePort;
    unsigned miimon = 0;
    std::string failOverMac;      // "none", "active", "follow"
};

struct SoftLink {
    std::string name;             // "rxe0"
    SoftLinkType type = SoftLinkType::Rxe;
    std::string netdev;
};

// The DNS configuration systemd-resolved holds for one link, as its D-Bus
// API has it (org.freedesktop.resolve1.Manager SetLinkDNS, SetLinkDomains):
// servers "192.0.2.53", "2001:db8::53"; search domains, "~example.com" for a
// routing-only one.
struct LinkDns {
    std::vector<std::string> servers;
    std::vector<std::string> domains;
    bool empty() const { return servers.empty() && domains.empty(); }
    bool operator==(const LinkDns &o) const { return servers == o.servers && domains == o.domains; }
};

// systemd-resolved as the host has it (Platform::readResolver()): whether it
// runs, why not (for people, translated), and the links it has DNS
// configuration for, by netdev name.
struct Resolver {
    bool running = false;
    std::string reason;
    std::map<std::string, LinkDns> links;
};

// The first item of `items` called `name`, or nullptr.
template <typename Items>
auto findByName(Items &items, const std::string &name) -> decltype(&*items.begin())
{
    for (auto &x : items)
        if (x.name == name)
            return &x;
    return nullptr;
}

struct Host {
    std::string kernelRelease;
    ChildNaming childNaming = ChildNaming::Upstream;
    std::vector<Device> devices;
    std::vector<Netdev> netdevs;
    std::vector<IpoibNetdev> ipoib;
    std::vector<Bond> bonds;
    std::vector<SoftLink> softLinks;
    // false: read without the GID tables (Platform::readHostWithoutGidTables):
    // every port's gids empty, and the netdevs that only GID entries map
    // (a VLAN on a RoCE port, a RoCE LAG bond) without an RDMA device.
    bool withGidTables = true;
    // systemd-resolved, where a reader asked it (readHost() does not: it is
    // a D-Bus call that only profiles with DNS need); nullopt: not asked.
    std::optional<Resolver> resolver;

    const Device *findDevice(const std::string &name) const { return findByName(devices, name); }
    const Netdev *findNetdev(const std::string &name) const { return findByName(netdevs, name); }
    const Bond *findBond(const std::string &name) const { return findByName(bonds, name); }
    const IpoibNetdev *findIpoib(const std::string &name) const { return findByName(ipoib, name); }
    const SoftLink *findSoftLink(const std::string &name) const { return findByName(softLinks, name); }
};

} // namespace ibnm::model
