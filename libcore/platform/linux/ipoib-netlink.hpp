// SPDX-License-Identifier: LGPL-2.1-or-later
// IPoIB over rtnetlink. libnl has no IPoIB link type, so ibnm encodes and
// decodes the attributes itself, in the kernel's uapi layout
// (<linux/if_link.h>): RTM_NEWLINK with ifinfomsg, IFLA_LINK (parent
// ifindex), IFLA_IFNAME and IFLA_LINKINFO { IFLA_INFO_KIND "ipoib",
// IFLA_INFO_DATA { IFLA_IPOIB_PKEY u16, IFLA_IPOIB_MODE u16,
// IFLA_IPOIB_UMCAST u16 } }. Framing is libnl's; these functions only build
// and parse messages, they send nothing (tests compare golden bytes).
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform::ipoib {

struct LinkRequest {
    std::string ifname;             // the child's name; empty: the kernel picks
    unsigned parentIfindex = 0;     // IFLA_LINK
    std::optional<uint16_t> pkey;   // IFLA_IPOIB_PKEY, as configured
    std::optional<model::IpoibMode> mode;
    std::optional<bool> umcast;
};

// RTM_NEWLINK, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK,
// sequence and port 0 (nl_send_auto fills them in).
Result<NlMsgPtr> encodeNewLink(const LinkRequest &request);

// Parses an RTM_NEWLINK message (a request, or the kernel's answer to a
// GETLINK) whose IFLA_INFO_KIND is "ipoib". Fails with IBNM_ERROR_PARSE on
// a message that is not that, or whose attributes have the wrong sizes.
Result<LinkRequest> decodeLink(const nlmsghdr *message);

// The bytes of a message as it would go on the wire (for tests and debug).
std::vector<uint8_t> messageBytes(nl_msg *message);

} // namespace ibnm::platform::ipoib
