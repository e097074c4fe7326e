// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/dcb-netlink.hpp"

#include "libcore/platform/linux/netlink-policy.hpp"
#include "libcore/support/i18n.hpp"

#include <cerrno>
#include <cstring>

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/socket.h>

namespace ibnm::platform::dcb {

namespace {

Error parseError(const char *what)
{
    return Error(IBNM_ERROR_PARSE, _("malformed DCB netlink message")).withContext(what);
}

// The attributes of the answer, as the kernel's dcbnl_ieee_fill() writes them.
const netlink::Policy &topPolicy()
{
    static const netlink::Policy p(DCB_ATTR_MAX, {
                                                     {DCB_ATTR_IFNAME, NLA_STRING, "DCB_ATTR_IFNAME", IFNAMSIZ},
                                                     {DCB_ATTR_IEEE, NLA_NESTED, "DCB_ATTR_IEEE"},
                                                 });
    return p;
}

const netlink::Policy &ieeePolicy()
{
    static const netlink::Policy p(DCB_ATTR_IEEE_MAX,
                                   {
                                       {DCB_ATTR_IEEE_PFC, NLA_UNSPEC, "DCB_ATTR_IEEE_PFC", 0, sizeof(ieee_pfc)},
                                   });
    return p;
}

} // namespace

Result<NlMsgPtr> encodeIeeeGet(const std::string &ifname)
{
    if (ifname.empty() || ifname.size() >= IFNAMSIZ)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, _("not an interface name")).withContext(ifname);
    NlMsgPtr msg(nlmsg_alloc_simple(RTM_GETDCB, NLM_F_REQUEST));
    if (!msg)
        return Error(IBNM_ERROR_FAILED, "nlmsg_alloc_simple");
    dcbmsg hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.dcb_family = AF_UNSPEC;
    hdr.cmd = DCB_CMD_IEEE_GET;
    if (nlmsg_append(msg.get(), &hdr, sizeof hdr, NLMSG_ALIGNTO) < 0 ||
        nla_put_string(msg.get(), DCB_ATTR_IFNAME, ifname.c_str()) < 0)
        return Error(IBNM_ERROR_FAILED, "nlmsg_append");
    return msg;
}

Result<std::optional<uint8_t>> decodeIeeePfc(const nlmsghdr *message, size_t length)
{
    if (length < sizeof(nlmsghdr) || message->nlmsg_len < sizeof(nlmsghdr) || message->nlmsg_len > length)
        return parseError("nlmsghdr");
    if (message->nlmsg_type == NLMSG_ERROR) {
        if (!nlmsg_valid_hdr(message, sizeof(nlmsgerr)))
            return parseError("NLMSG_ERROR");
        const auto *e = static_cast<const nlmsgerr *>(nlmsg_data(message));
        int err = e->error < 0 ? -e->error : EIO;
        return Error::fromErrno(err, "RTM_GETDCB", IBNM_ERROR_NOT_SUPPORTED);
    }
    if (message->nlmsg_type != RTM_GETDCB || !nlmsg_valid_hdr(message, sizeof(dcbmsg)))
        return parseError("RTM_GETDCB");
    const auto *hdr = static_cast<const dcbmsg *>(nlmsg_data(message));
    if (hdr->cmd != DCB_CMD_IEEE_GET)
        return parseError("dcbmsg");
    nlattr *tb[DCB_ATTR_MAX + 1] = {};
    if (const char *bad = topPolicy().parse(tb, nlmsg_attrdata(message, sizeof(dcbmsg)),
                                            nlmsg_attrlen(message, sizeof(dcbmsg))))
        return parseError(bad);
    if (tb[DCB_ATTR_IEEE] == nullptr)
        return std::optional<uint8_t>();
    nlattr *ieee[DCB_ATTR_IEEE_MAX + 1] = {};
    if (const char *bad = ieeePolicy().parseNested(ieee, tb[DCB_ATTR_IEEE]))
        return parseError(bad);
    if (ieee[DCB_ATTR_IEEE_PFC] == nullptr)
        return std::optional<uint8_t>();
    ieee_pfc pfc;
    memcpy(&pfc, nla_data(ieee[DCB_ATTR_IEEE_PFC]), sizeof pfc);
    return std::optional<uint8_t>(pfc.pfc_en);
}

} // namespace ibnm::platform::dcb
