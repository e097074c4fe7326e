// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA netlink (NETLINK_RDMA, RDMA_NL_NLDEV): the requests `rdma link add`,
// `rdma link delete`, `rdma dev show` and `rdma link show` send, and the
// answers they parse (<rdma/rdma_netlink.h>). Message type is
// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd); there is no family header. Framing is
// libnl's; these functions only build and parse messages (golden-byte tests).
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ibnm::platform::rdma {

// The nlmsg type of an NLDEV command.
uint16_t nldevType(unsigned command);

// RDMA_NLDEV_CMD_NEWLINK: DEV_NAME, LINK_TYPE ("rxe" | "siw"), NDEV_NAME.
// Flags NLM_F_REQUEST | NLM_F_ACK.
Result<NlMsgPtr> encodeNewLink(const std::string &name, model::SoftLinkType type, const std::string &netdev);
// RDMA_NLDEV_CMD_DELLINK of the device with this index. NLM_F_REQUEST | NLM_F_ACK.
Result<NlMsgPtr> encodeDelLink(uint32_t deviceIndex);
// RDMA_NLDEV_CMD_GET dump: NLM_F_REQUEST | NLM_F_DUMP, no attributes.
Result<NlMsgPtr> encodeGetDump();
// RDMA_NLDEV_CMD_PORT_GET dump of one device's ports: the kernel requires
// RDMA_NLDEV_ATTR_DEV_INDEX (without it the dump ends empty, EINVAL in DONE).
Result<NlMsgPtr> encodePortGetDump(uint32_t deviceIndex);

struct DeviceInfo {
    uint32_t index = 0;
    std::string name;
    std::optional<std::string> fwVersion;
    std::optional<uint64_t> nodeGuid;
    std::optional<uint8_t> nodeType;
    std::optional<std::string> protocol; // "ib", "roce", "iw"
};

struct PortInfo {
    uint32_t deviceIndex = 0;
    std::string deviceName;
    uint32_t port = 0;
    std::optional<uint8_t> state;       // IB_PORT_ACTIVE = 4
    std::optional<uint8_t> physState;
    std::optional<uint32_t> netdevIndex;
    std::optional<std::string> netdevName;
};

// Parse one answer of a GET / PORT_GET dump. IBNM_ERROR_PARSE on a message of
// another type or with malformed attributes.
Result<DeviceInfo> decodeDevice(const nlmsghdr *message);
Result<PortInfo> decodePort(const nlmsghdr *message);

} // namespace ibnm::platform::rdma
