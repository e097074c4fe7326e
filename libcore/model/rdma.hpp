// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA facts, each stated once: soft RDMA links (rxe, siw), the RoCE modes
// each kind of device accepts as RDMA-CM default, and which devices have the
// mlx5 traffic class and TTL files. Sources: the kernel's
// drivers/infiniband/core/cma_configfs.c and roce_gid_mgmt.c, rdma-core,
// the kernel lab (tests/kernel), FACTS.md "RDMA".
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/model/rdma-path.hpp"
#include "libcore/support/result.hpp"

#include <optional>
#include <string_view>
#include <string>

namespace ibnm::model {

// The largest RDMA port number: verbs address a port with a uint8_t
// (struct ibv_port_attr, ibv_query_port(3)); ports count from 1.
inline constexpr unsigned kMaxRdmaPort = 255;

// "rxe" / "siw", as `rdma link add NAME type TYPE` spells them (and
// RDMA netlink's RDMA_NLDEV_ATTR_LINK_TYPE), and back (exactly these words).
const char *softLinkTypeName(SoftLinkType type);
std::optional<SoftLinkType> softLinkTypeFromName(std::string_view name);
// The kernel driver (and module) behind each type: "rdma_rxe"
// (drivers/infiniband/sw/rxe), "siw" (sw/siw), as a device's driver link in
// sysfs names it; and the type of a device by its driver, if soft.
const char *softLinkDriver(SoftLinkType type);
std::optional<SoftLinkType> softLinkTypeOfDriver(std::string_view driver);
// configfs rdma_cm's words: "IB/RoCE v1", "RoCE v2", and back.
const char *roceModeName(RoceMode mode);
std::optional<RoceMode> roceModeFromName(std::string_view name);
// A GID's type as sysfs gid_attrs/types/N writes it: the same two words
// (ib_cache_gid_type_str()); nullopt for any other.
std::optional<GidType> gidTypeFromName(std::string_view name);

// The default name of a profile's soft RDMA link: "rxe_<netdev>" or
// "siw_<netdev>", within the kernel's 63 characters (IB_DEVICE_NAME_MAX - 1).
std::string defaultSoftLinkName(SoftLinkType type, const std::string &netdev);

// The GID types (and so RDMA-CM default RoCE modes) a port supports
// (roce_gid_type_mask_support()): rxe RoCE v2 only; siw (iWARP) and
// InfiniBand ports only "IB/RoCE v1"; RoCE NICs both. `softLink` is the type
// of the soft link behind the device, if it is one.
bool roceModeSupported(std::optional<SoftLinkType> softLink, LinkLayer linkLayer, RoceMode mode);

// The RDMA-CM default RoCE mode of a port before anyone wrote configfs: what
// `cma_roce_mode -d DEV -p PORT` prints (it makes the configfs directory and
// reads default_roce_mode). cma_add_one() in drivers/infiniband/core/cma.c
// takes CMA_PREFERRED_ROCE_GID_TYPE (RoCE v2) where the port supports it,
// else the first type it supports (IB/RoCE v1). The default ToS is 0.
RoceMode kernelDefaultRoceMode(std::optional<SoftLinkType> softLink, LinkLayer linkLayer);
inline constexpr unsigned kKernelDefaultRoceTos = 0;

// DSCP and ToS (NVIDIA's RoCE page, FACTS.md): the ToS byte carries the
// 6-bit DSCP in its upper bits, so DSCP x is ToS 4x; the low two bits are ECN.
inline constexpr unsigned kMaxDscp = 63;
inline unsigned tosOfDscp(unsigned dscp) { return dscp << 2; }
inline unsigned dscpOfTos(unsigned tos) { return tos >> 2; }

// The RoCE priority chain (NVIDIA's RoCE page, "Defining Ethernet Priority
// (PCP in 802.1q Headers)"): RDMA-CM turns a QP's ToS into its Service
// Level, SL = ToS >> 5 (the ToS's three most significant bits), and the
// driver turns the SL into the 802.1Q priority (PCP) of VLAN-tagged frames,
// PCP = SL & 7. Untagged frames carry no PCP; a VLAN's egress-qos-map must
// map that priority for the frames to leave with it, and PFC must make it
// lossless (model::rocePriorityOfTos is what `check` and `rdma roce-mode`
// ask).
struct RocePriority {
    unsigned sl = 0;
    unsigned pcp = 0;
};
inline constexpr unsigned roceServiceLevel(unsigned tos) { return (tos & 0xffu) >> 5; }
inline constexpr unsigned rocePcp(unsigned sl) { return sl & 7u; }
inline constexpr RocePriority rocePriorityOfTos(unsigned tos)
{
    return {roceServiceLevel(tos), rocePcp(roceServiceLevel(tos))};
}

// The 802.1Q priority a VLAN's frames of skb priority `priority` leave with:
// its egress-qos-map's entry, else 0 (vlan_dev_get_egress_qos_mask() in the
// kernel's net/8021q/vlan.h finds no mapping and tags 0). The RoCE priority
// of a tagged RoCE path is rocePriorityOfTos(tos).pcp; `check` warns when the
// VLAN's map would not carry it (egress-qos-map "3:3" for priority 3).
unsigned vlanEgressPcp(const Netdev &vlan, unsigned priority);

// IEEE 802.1Qbb PFC (the kernel's include/uapi/linux/dcbnl.h, struct
// ieee_pfc: "pfc_en: Transmit Enable PFC bitmap", bit n for priority n;
// iproute2's `dcb pfc show` prints it as prio-pfc 0:off 1:off ...): whether
// priority `priority` is lossless on a netdev whose DCB reports `pfcEnabled`.
inline constexpr unsigned kMaxPriority = 7;
inline constexpr bool pfcLossless(uint8_t pfcEnabled, unsigned priority)
{
    return priority <= kMaxPriority && (pfcEnabled >> priority) & 1u;
}

// RDMA-CM's answer to a connection request for a service (port) nobody
// listens on: an InfiniBand CM REJ with reason "Invalid Service ID" (IBA
// table 112; the kernel's IB_CM_REJ_INVALID_SERVICE_ID, include/rdma/ib_cm.h),
// the status of RDMA_CM_EVENT_REJECTED on InfiniBand and RoCE. iWARP answers
// with the TCP reset's -ECONNREFUSED instead.
inline constexpr int kCmRejectInvalidServiceId = 8;

// "InfiniBand", "RoCE v1", "RoCE v2", "iWARP"; "" for Unknown.
const char *rdmaProtocolName(RdmaProtocol protocol);
// The protocol of a connection on `port` of `device` whose QP uses a GID of
// `gidType` (model/rdma-path.hpp says how each is told apart).
RdmaProtocol rdmaProtocolOf(const Device &device, const Port &port, std::optional<GidType> gidType);

// The path through `host` of a connection on `device`/`port` whose local
// address is `address` and whose QP uses the source GID `gidIndex`: the
// netdev is that GID's (RoCE), else the one holding `address`, else the
// port's; the protocol as rdmaProtocolOf() says. Unknown device: only what
// was given.
RdmaPath describeRdmaPath(const Host &host, const std::string &device, unsigned port, const std::string &address,
                          std::optional<unsigned> gidIndex);

// Whether `device` has tc/<port>/traffic_class and tc/<port>/ttl: mlx5 only.
bool hasTrafficClassFiles(const Device &device);

// Whether writing roce_enable 0 to `device`'s PCI function is possible: the
// MLNX_OFED mlx5 driver's /sys/devices/<pci>/roce_enable (0|1), which the
// inventory shows as Device::roceEnabled. Disabling it removes the GID
// tables of every port of that function ("there will be no GID tables",
// NVIDIA's RoCE page); enabling it brings them back.
bool hasRoceEnableFile(const Device &device);

// mlx5 traffic-class rules (NVIDIA's RoCE page, FACTS.md): written to
// tc/<port>/traffic_class as "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24";
// the "tclass=" prefix is optional (a leading bare number is the class), a
// mask is allowed on dst_ip only, at least one address names the match,
// tclass 0-255 sets the rule and -1 removes the rule with that match.
// parseTcRule refuses anything else with a message naming the part.
Result<TcRule> parseTcRule(const std::string &text);
// The canonical form ibnm writes: "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24".
std::string formatTcRule(const TcRule &rule);
// The rule that removes `rule` (same match, tclass -1).
TcRule tcRuleRemoval(const TcRule &rule);

// What tc/<port>/traffic_class reads back: the global value ("Global
// tclass=N", or a bare number on older drivers) and one line per rule in the
// form above. nullopt global when the global class is disabled.
struct TrafficClassFile {
    std::optional<unsigned> global;
    std::vector<TcRule> rules;
};
Result<TrafficClassFile> parseTrafficClassFile(const std::string &text);

// Whether a GID as sysfs prints it is an IPv4-mapped address
// (0000:...:ffff:a.b.c.d): the RoCE GIDs of a netdev's IPv4 addresses.
bool isIpv4MappedGid(const std::string &gid);

// The GID index applications should use on `port` for `type` traffic
// ("RoCE v2" or "IB/RoCE v1") over an IPv4 address (IPv6 when `ipv6`, never
// the link-local one) of `netdev`; "" means the port's own netdev, that of
// GID 0 (the default GID is its link-local address), not a VLAN over it.
// What NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX want; nullopt when the table
// has no such entry (no address of that family, or RoCE disabled).
std::optional<unsigned> gidIndexFor(const Port &port, GidType type, bool ipv6, const std::string &netdev);

// The number in front of a port's sysfs state and phys_state ("4: ACTIVE",
// "5: LinkUp"): drivers/infiniband/core/sysfs.c state_show() and
// phys_state_show() print "%d: %s" with the IB spec's values (enum
// ib_port_state, ib_port_phys_state). Nullopt for any other text.
std::optional<unsigned> portStateNumber(const std::string &sysfsText);

} // namespace ibnm::model
