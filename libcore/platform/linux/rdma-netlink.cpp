// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/rdma-netlink.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/netlink-policy.hpp"
#include "libcore/support/i18n.hpp"

#include <cstring>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

namespace ibnm::platform::rdma {

namespace {

Error nlError(int err, const char *what)
{
    return Error(IBNM_ERROR_FAILED, nl_geterror(err)).withContext(what);
}

Error parseError(const char *what)
{
    return Error(IBNM_ERROR_PARSE, _("malformed RDMA netlink message")).withContext(what);
}

Result<NlMsgPtr> alloc(unsigned command, int flags)
{
    NlMsgPtr msg(nlmsg_alloc_simple(nldevType(command), flags));
    if (!msg)
        return Error(IBNM_ERROR_FAILED, "nlmsg_alloc_simple");
    return msg;
}

// The attributes the decoders read, checked by libnl (netlink-policy.hpp).
const netlink::Policy &policy()
{
    static const netlink::Policy p(RDMA_NLDEV_ATTR_MAX - 1,
                                   {
                                       {RDMA_NLDEV_ATTR_DEV_INDEX, NLA_U32, "RDMA_NLDEV_ATTR_DEV_INDEX"},
                                       {RDMA_NLDEV_ATTR_DEV_NAME, NLA_STRING, "RDMA_NLDEV_ATTR_DEV_NAME"},
                                       {RDMA_NLDEV_ATTR_PORT_INDEX, NLA_U32, "RDMA_NLDEV_ATTR_PORT_INDEX"},
                                       {RDMA_NLDEV_ATTR_FW_VERSION, NLA_STRING, "RDMA_NLDEV_ATTR_FW_VERSION"},
                                       {RDMA_NLDEV_ATTR_NODE_GUID, NLA_U64, "RDMA_NLDEV_ATTR_NODE_GUID"},
                                       {RDMA_NLDEV_ATTR_PORT_STATE, NLA_U8, "RDMA_NLDEV_ATTR_PORT_STATE"},
                                       {RDMA_NLDEV_ATTR_PORT_PHYS_STATE, NLA_U8, "RDMA_NLDEV_ATTR_PORT_PHYS_STATE"},
                                       {RDMA_NLDEV_ATTR_DEV_NODE_TYPE, NLA_U8, "RDMA_NLDEV_ATTR_DEV_NODE_TYPE"},
                                       {RDMA_NLDEV_ATTR_NDEV_INDEX, NLA_U32, "RDMA_NLDEV_ATTR_NDEV_INDEX"},
                                       {RDMA_NLDEV_ATTR_NDEV_NAME, NLA_STRING, "RDMA_NLDEV_ATTR_NDEV_NAME"},
                                       {RDMA_NLDEV_ATTR_DEV_PROTOCOL, NLA_STRING, "RDMA_NLDEV_ATTR_DEV_PROTOCOL"},
                                   });
    return p;
}

// The attribute table of an NLDEV message, checked for its command and
// against policy().
Status parse(const nlmsghdr *message, unsigned command, nlattr **tb)
{
    auto *hdr = const_cast<nlmsghdr *>(message);
    if (hdr->nlmsg_type != nldevType(command) || !nlmsg_valid_hdr(hdr, 0))
        return parseError("nlmsg_type");
    if (const char *refused = policy().parse(tb, nlmsg_attrdata(hdr, 0), nlmsg_attrlen(hdr, 0)))
        return parseError(refused);
    return {};
}

template <typename T>
std::optional<T> fixed(const nlattr *attr)
{
    if (attr == nullptr)
        return std::nullopt;
    T v;
    memcpy(&v, nla_data(attr), sizeof(T)); // exactly its size: policy()
    return v;
}

// A string attribute (NUL-terminated: policy()) with no NUL before its end,
// which libnl's policy does not check.
Result<std::optional<std::string>> string(const nlattr *attr, const char *what)
{
    if (attr == nullptr)
        return std::optional<std::string>();
    const char *s = static_cast<const char *>(nla_data(attr));
    if (strlen(s) != static_cast<size_t>(nla_len(attr) - 1))
        return parseError(what);
    return std::optional<std::string>(std::string(s));
}

// parse(), and the index and name of the device the message is about, which
// it must carry (`what` names the message in the error).
Status parseDevice(const nlmsghdr *message, unsigned command, const char *what, nlattr **tb, uint32_t *index,
                   std::string *name)
{
    if (auto st = parse(message, command, tb); !st)
        return st;
    auto i = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
    auto n = string(tb[RDMA_NLDEV_ATTR_DEV_NAME], "RDMA_NLDEV_ATTR_DEV_NAME");
    if (!n)
        return std::move(n).error();
    if (!i || !n->has_value())
        return parseError(what);
    *index = *i;
    *name = **n;
    return {};
}

} // namespace

uint16_t nldevType(unsigned command)
{
    return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
}

Result<NlMsgPtr> encodeNewLink(const std::string &name, model::SoftLinkType type, const std::string &netdev)
{
    auto msg = alloc(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
    if (!msg)
        return msg;
    int err;
    if ((err = nla_put_string(msg->get(), RDMA_NLDEV_ATTR_DEV_NAME, name.c_str())) < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_DEV_NAME");
    if ((err = nla_put_string(msg->get(), RDMA_NLDEV_ATTR_LINK_TYPE, model::softLinkTypeName(type))) < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_LINK_TYPE");
    if ((err = nla_put_string(msg->get(), RDMA_NLDEV_ATTR_NDEV_NAME, netdev.c_str())) < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_NDEV_NAME");
    return msg;
}

Result<NlMsgPtr> encodeDelLink(uint32_t deviceIndex)
{
    auto msg = alloc(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
    if (!msg)
        return msg;
    if (int err = nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, deviceIndex); err < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_DEV_INDEX");
    return msg;
}

Result<NlMsgPtr> encodeGetDump()
{
    return alloc(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP);
}

Result<NlMsgPtr> encodePortGetDump(uint32_t deviceIndex)
{
    auto msg = alloc(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_DUMP);
    if (!msg)
        return msg;
    if (int err = nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, deviceIndex); err < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_DEV_INDEX");
    return msg;
}

Result<DeviceInfo> decodeDevice(const nlmsghdr *message)
{
    nlattr *tb[RDMA_NLDEV_ATTR_MAX];
    DeviceInfo d;
    if (auto st = parseDevice(message, RDMA_NLDEV_CMD_GET, "RDMA_NLDEV_CMD_GET", tb, &d.index, &d.name); !st)
        return std::move(st).error();
    auto fw = string(tb[RDMA_NLDEV_ATTR_FW_VERSION], "RDMA_NLDEV_ATTR_FW_VERSION");
    if (!fw)
        return std::move(fw).error();
    d.fwVersion = *fw;
    d.nodeGuid = fixed<uint64_t>(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
    d.nodeType = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]);
    auto proto = string(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], "RDMA_NLDEV_ATTR_DEV_PROTOCOL");
    if (!proto)
        return std::move(proto).error();
    d.protocol = *proto;
    return d;
}

Result<PortInfo> decodePort(const nlmsghdr *message)
{
    nlattr *tb[RDMA_NLDEV_ATTR_MAX];
    PortInfo p;
    if (auto st = parseDevice(message, RDMA_NLDEV_CMD_PORT_GET, "RDMA_NLDEV_CMD_PORT_GET", tb, &p.deviceIndex,
                              &p.deviceName);
        !st)
        return std::move(st).error();
    auto port = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
    if (!port)
        return parseError("RDMA_NLDEV_CMD_PORT_GET");
    p.port = *port;
    p.state = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_PORT_STATE]);
    p.physState = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
    p.netdevIndex = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
    auto ndevName = string(tb[RDMA_NLDEV_ATTR_NDEV_NAME], "RDMA_NLDEV_ATTR_NDEV_NAME");
    if (!ndevName)
        return std::move(ndevName).error();
    p.netdevName = *ndevName;
    return p;
}

} // namespace ibnm::platform::rdma
