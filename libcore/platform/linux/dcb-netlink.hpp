// SPDX-License-Identifier: LGPL-2.1-or-later
// DCB netlink (dcbnl, <linux/dcbnl.h>): the request iproute2's `dcb pfc show
// dev DEV` sends (RTM_GETDCB on NETLINK_ROUTE, struct dcbmsg with
// DCB_CMD_IEEE_GET, DCB_ATTR_IFNAME) and the IEEE 802.1Qbb PFC state of its
// answer (DCB_ATTR_IEEE > DCB_ATTR_IEEE_PFC, struct ieee_pfc). libnl has no
// dcbnl: these are libnl nl_msg and nla_policy, pure functions tested
// against golden bytes; linux-read.cpp sends and receives.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include <linux/netlink.h>

namespace ibnm::platform::dcb {

// RTM_GETDCB, NLM_F_REQUEST (no ACK: the answer is the acknowledgement),
// dcbmsg {AF_UNSPEC, DCB_CMD_IEEE_GET}, DCB_ATTR_IFNAME `ifname`.
Result<NlMsgPtr> encodeIeeeGet(const std::string &ifname);

// The answer to encodeIeeeGet(): the pfc_en bitmap of DCB_ATTR_IEEE_PFC
// (bit n: priority n lossless), nullopt when the device reports no PFC.
// An NLMSG_ERROR answer (EOPNOTSUPP: the netdev has no dcbnl_ops) is an
// error with that errno; IBNM_ERROR_PARSE for anything malformed.
Result<std::optional<uint8_t>> decodeIeeePfc(const nlmsghdr *message, size_t length);

} // namespace ibnm::platform::dcb
