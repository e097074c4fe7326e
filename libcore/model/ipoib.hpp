// SPDX-License-Identifier: LGPL-2.1-or-later
// IPoIB facts, each stated once: P_Key values and the children the kernel
// creates for them, the transport modes and their MTU limits, Enhanced
// IPoIB, and matching IPoIB ports by GUID. `ibnm check` (profiles/rules),
// the planner (activation/) and the Linux platform ask these functions;
// none re-derives them. The simulated host (platform/fake-*) is the one
// deliberate exception: it states the kernel's behaviour independently so
// that a test can catch a mistake here.
//
// Sources: the kernel's drivers/infiniband/ulp/ipoib (ipoib_main.c,
// ipoib_vlan.c, ipoib_cm.c), NetworkManager 1.42's nm-setting-infiniband.c,
// and ../shared/FACTS.md, which records both.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::model {

// --- P_Keys -----------------------------------------------------------------

// The full-membership bit. The kernel always sets it in the P_Key a child
// uses (/sys/class/net/<child>/pkey shows 0x8002 for 2).
inline constexpr uint16_t kFullMembership = 0x8000;
// IFNAMSIZ - 1: the kernel and NetworkManager cut interface names here.
inline constexpr size_t kIfNameMax = 15;

// A P_Key a profile may ask for: 0x0001-0xffff except 0x8000 (both the
// kernel's ipoib_vlan_add() and NetworkManager's verify() refuse 0 and
// 0x8000). IBNM_ERROR_INVALID_PROPERTY with NetworkManager's wording.
Status validatePkey(long pkey);

constexpr uint16_t fullMembership(uint16_t pkey)
{
    return uint16_t(pkey | kFullMembership);
}

// The partition a P_Key names: its low 15 bits (IBTA vol. 1, 10.9.1; the
// full-membership bit aside).
inline constexpr uint16_t kPartitionMask = 0x7fff;
constexpr uint16_t partitionOf(uint16_t pkey)
{
    return uint16_t(pkey & kPartitionMask);
}
// The default partition, whose full-membership P_Key 0xffff every port
// holds: an IPoIB parent interface (a profile without p-key) runs in it.
inline constexpr uint16_t kDefaultPartition = 0x7fff;

// OpenSM's partitions.conf: the default partition is the entry named
// "Default" (OpenSM's own name, which it requires), written with the
// full-membership key 0xffff; ibnm names the others ibnm_<partition>.
std::string opensmPartitionName(uint16_t partition);
constexpr uint16_t opensmPartitionKey(uint16_t partition)
{
    return partition == kDefaultPartition ? uint16_t(0xffff) : partition;
}

// Two P_Keys name the same partition for the kernel when they differ only in
// the full-membership bit (it sets the bit on every child).
constexpr bool samePartition(uint16_t a, uint16_t b)
{
    return fullMembership(a) == fullMembership(b);
}

// The name the kernel gives the child of `parent` for `pkey`: upstream
// writes the value as given (ib0.0002), MLNX_OFED and older kernels set the
// full-membership bit first (ib0.8002); cut to 15 characters.
std::string childName(const std::string &parent, uint16_t pkey, ChildNaming naming);

// The name NetworkManager gives that child: libnm's
// nm_setting_infiniband_get_virtual_interface_name() (the raw value) cut to
// 15 characters as the daemon does. It equals childName(..., Upstream).
std::string nmChildName(const std::string &parent, uint16_t pkey);

// Every name the kernel gives the child of `parent` in the partition of
// `pkey`, with either naming (with and without the full-membership bit),
// upstream's first: where the Linux platform looks for such a child by name
// rather than reading every netdev. A child renamed since (udev) has none.
std::vector<std::string> childNames(const std::string &parent, uint16_t pkey);

// The existing child of `parent` in the partition of `pkey`, if any.
const IpoibNetdev *findChild(const Host &host, const std::string &parent, uint16_t pkey);

// Why the kernel would refuse to create the child of `parent` for `pkey` on
// this host, as create_child/rtnetlink fail: the parent is not an IPoIB
// port interface, the P_Key is the parent's own (ENOTUNIQ), or the name the
// kernel would give is taken by another netdev (EEXIST, e.g. two children of
// a long parent cut to the same 15 characters). OK when the child can be
// created, and when it exists already (nothing to create). `host` is a Host
// or a HostIndex (host-index.hpp), whose hashed lookups keep asking this for
// every child of a large host linear (instantiated for both in ipoib.cpp).
template <typename H>
Status childCreatable(const H &host, const std::string &parent, uint16_t pkey);

// --- transport modes and MTU --------------------------------------------------

inline constexpr unsigned kIpoibHeader = 4;          // IPOIB_ENCAP_LEN
inline constexpr unsigned kConnectedMtuMax = 65520;   // IPOIB_CM_MTU
inline constexpr unsigned kMinMtu = 68;               // ETH_MIN_MTU
inline constexpr unsigned kDatagramMinMtu = kMinMtu + kIpoibHeader; // ipoib_change_mtu()

// The names of the transport modes: the kernel's sysfs `mode` file
// (ipoib_cm.c: "datagram", "connected") and NetworkManager's
// infiniband.transport-mode use the same two words.
const char *modeName(IpoibMode mode);
// The mode `name` names (nullptr or another word: none). A profile without
// infiniband.transport-mode is datagram, NetworkManager's default:
// modeFromName(p).value_or(IpoibMode::Datagram).
std::optional<IpoibMode> modeFromName(const char *name);

// Whether the IPoIB interfaces of `device` can run connected mode: not with
// Enhanced IPoIB (mlx5, datagram only) nor without IPOIB_CM.
bool connectedModeAvailable(const Device &device);
// Why not, for people (translated); "" when it is available.
std::string connectedModeRefusal(const Device &device);
// Enhanced IPoIB: mlx5 IPoIB on an InfiniBand port (ConnectX-4 and later).
bool enhancedIpoibDriver(const std::string &driver);

// The largest MTU the kernel accepts in datagram mode: the port's maximum IB
// MTU - 4 (ipoib_change_mtu(): above IPOIB_UD_MTU(max_ib_mtu) is EINVAL,
// never a clamp). Falls back to the active MTU; nullopt when unknown.
std::optional<unsigned> datagramMax(const Port *port);
// The MTU datagram mode actually uses at most: min(active link MTU,
// broadcast group MTU) - 4; the kernel clamps to it silently and keeps the
// asked value as admin_mtu. nullopt when unknown.
std::optional<unsigned> datagramCeiling(const Port *port);

// What the kernel does with `requested` as the MTU of an IPoIB interface on
// `port` in `mode`: the MTU it then has, or IBNM_ERROR_INVALID_PROPERTY
// (errno EINVAL) when it refuses the value. The message names no property;
// callers add it.
Result<unsigned> effectiveMtu(unsigned requested, IpoibMode mode, const Port *port);

// The MTU after a mode change as a side effect (ipoib_set_mode()): to
// connected the connected maximum, to datagram min(ceiling, current).
unsigned mtuAfterModeChange(unsigned current, IpoibMode to, const Port *port);

// The IB MTU a partition's IPoIB broadcast group needs for `ipoibMtu` in
// datagram mode: the smallest IB MTU (256..4096) of at least ipoibMtu + 4;
// nullopt above 4092.
std::optional<unsigned> ibMtuForIpoib(unsigned ipoibMtu);
// OpenSM's partitions.conf code for an IB MTU (mtu=1 is 256 ... 4 is 2048,
// 5 is 4096; opensm's partition-config docs); nullopt for other values.
std::optional<unsigned> opensmMtuCode(unsigned ibMtu);

// --- ports and addresses ------------------------------------------------------

// Whether two 20-byte IPoIB hardware addresses belong to the same port: only
// the last 8 bytes (the port GUID) are stable (libnm's
// nm_utils_hwaddr_matches() compares only those, as NetworkManager does).
bool sameIpoibPort(const std::string &a, const std::string &b);
// The last 8 bytes of a 20-byte IPoIB address, lower case and colon
// separated ("00:02:c9:03:00:31:78:51"), or "" when it is not one.
std::string portGuidBytes(const std::string &address);

// The DHCP client identifier of an IPoIB interface: a 20-byte hardware
// address does not fit DHCP's chaddr, so clients send RFC 4390's form; NVIDIA
// (FlexBoot and MLNX_OFED, the IPoIB page) uses
// ff:00:00:00:00:00:02:00:00:02:c9:00 followed by the port GUID. "" when
// `address` is not a 20-byte IPoIB address as the kernel prints it (two hex
// digits a byte, ':' between). It does not call libnm: the inventory uses it.
std::string dhcpClientId(const std::string &address);

// The RDMA device and port behind a netdev (a child's are its parent's), or
// nullptr. `host` is a Host or anything with its find* lookups (HostIndex).
template <typename H>
const Device *deviceOf(const H &host, const std::string &netdev)
{
    const IpoibNetdev *ib = host.findIpoib(netdev);
    const Netdev *nd = host.findNetdev(ib && !ib->parent.empty() ? ib->parent : netdev);
    return nd == nullptr || nd->rdmaDevice.empty() ? nullptr : host.findDevice(nd->rdmaDevice);
}
template <typename H>
const Port *portOf(const H &host, const std::string &netdev)
{
    const IpoibNetdev *ib = host.findIpoib(netdev);
    const Netdev *nd = host.findNetdev(ib && !ib->parent.empty() ? ib->parent : netdev);
    const Device *dev = nd == nullptr || nd->rdmaDevice.empty() ? nullptr : host.findDevice(nd->rdmaDevice);
    if (dev == nullptr)
        return nullptr;
    for (const auto &p : dev->ports)
        if (p.number == nd->rdmaPort)
            return &p;
    return nullptr;
}

// Taking a link down flushes its IPv6 addresses (net.ipv6.conf.*.
// keep_addr_on_down defaults to 0) and the routes through it; IPv4
// addresses stay.
bool flushedOnLinkDown(const std::string &cidr);
// `nd` after dev_close(): down, without the addresses flushedOnLinkDown()
// names and without its routes. A link that is down already stays as it is.
Netdev afterLinkDown(const Netdev &nd);

// --- P_Key children and their parent's link ---------------------------------

// An IPoIB port's interface takes its P_Key children with it
// (drivers/infiniband/ulp/ipoib/ipoib_main.c; FACTS.md): when it goes down,
// ipoib_stop() ("Bring down any child interfaces too") closes every child
// that is up, which loses what afterLinkDown() says; when it comes up,
// ipoib_open() ("Bring up any child interfaces too") opens every child that
// is down, and what a child lost stays lost (its IPv6 addresses and routes
// come back only when someone adds them again). Only a change of the
// parent's link moves them: setting an up parent up again does nothing.
// `child` as it is before its parent's link goes down (parentUp false) or
// up (true); the child as it is after.
Netdev childAfterParentLink(const Netdev &child, bool parentUp);

} // namespace ibnm::model
