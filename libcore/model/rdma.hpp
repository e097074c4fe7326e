// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA facts, each stated once: soft RDMA links (rxe, siw), the RoCE modes
// each kind of device accepts as RDMA-CM default, and which devices have the
// mlx5 traffic class and TTL files. Sources: the kernel's
// drivers/infiniband/core/cma_configfs.c and roce_gid_mgmt.c, rdma-core,
// the kernel lab (tests/kernel), FACTS.md "RDMA".
#pragma once

#include "libcore/internal/host-model.hpp"

#include <optional>
#include <string>

namespace ibnm::model {

// The largest RDMA port number: verbs address a port with a uint8_t
// (struct ibv_port_attr, ibv_query_port(3)); ports count from 1.
inline constexpr unsigned kMaxRdmaPort = 255;

// "rxe" / "siw", as `rdma link add NAME type TYPE` spells them.
const char *softLinkTypeName(SoftLinkType type);
// configfs rdma_cm's words: "IB/RoCE v1", "RoCE v2".
const char *roceModeName(RoceMode mode);

// The default name of a profile's soft RDMA link: "rxe_<netdev>" or
// "siw_<netdev>", within the kernel's 63 characters (IB_DEVICE_NAME_MAX - 1).
std::string defaultSoftLinkName(SoftLinkType type, const std::string &netdev);

// The GID types (and so RDMA-CM default RoCE modes) a port supports
// (roce_gid_type_mask_support()): rxe RoCE v2 only; siw (iWARP) and
// InfiniBand ports only "IB/RoCE v1"; RoCE NICs both. `softLink` is the type
// of the soft link behind the device, if it is one.
bool roceModeSupported(std::optional<SoftLinkType> softLink, LinkLayer linkLayer, RoceMode mode);

// Whether `device` has tc/<port>/traffic_class and tc/<port>/ttl: mlx5 only.
bool hasTrafficClassFiles(const Device &device);

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

// The soft link of that name on the host, or nullptr.
const SoftLink *findSoftLink(const Host &host, const std::string &name);

} // namespace ibnm::model
