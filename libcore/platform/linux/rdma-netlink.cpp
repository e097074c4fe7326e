// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/rdma-netlink.hpp"

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

// The attribute table of an NLDEV message, checked for its command.
Status parse(const nlmsghdr *message, unsigned command, nlattr **tb)
{
    auto *hdr = const_cast<nlmsghdr *>(message);
    if (hdr->nlmsg_type != nldevType(command) || !nlmsg_valid_hdr(hdr, 0))
        return parseError("nlmsg_type");
    if (nlmsg_parse(hdr, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, nullptr) < 0)
        return parseError("attributes");
    return {};
}

template <typename T>
Result<std::optional<T>> fixed(nlattr *attr, const char *what)
{
    if (attr == nullptr)
        return std::optional<T>();
    if (nla_len(attr) != static_cast<int>(sizeof(T)))
        return parseError(what);
    T v;
    memcpy(&v, nla_data(attr), sizeof(T));
    return std::optional<T>(v);
}

Result<std::optional<std::string>> string(nlattr *attr, const char *what)
{
    if (attr == nullptr)
        return std::optional<std::string>();
    int len = nla_len(attr);
    const char *s = static_cast<const char *>(nla_data(attr));
    if (len < 1 || s[len - 1] != '\0' || strlen(s) != static_cast<size_t>(len - 1))
        return parseError(what);
    return std::optional<std::string>(std::string(s));
}

} // namespace

uint16_t nldevType(unsigned command)
{
    return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
}

const char *linkTypeName(model::SoftLinkType type)
{
    return type == model::SoftLinkType::Siw ? "siw" : "rxe";
}

Result<NlMsgPtr> encodeNewLink(const std::string &name, model::SoftLinkType type, const std::string &netdev)
{
    auto msg = alloc(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
    if (!msg)
        return msg;
    int err;
    if ((err = nla_put_string(msg->get(), RDMA_NLDEV_ATTR_DEV_NAME, name.c_str())) < 0)
        return nlError(err, "RDMA_NLDEV_ATTR_DEV_NAME");
    if ((err = nla_put_string(msg->get(), RDMA_NLDEV_ATTR_LINK_TYPE, linkTypeName(type))) < 0)
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
    if (auto st = parse(message, RDMA_NLDEV_CMD_GET, tb); !st)
        return std::move(st).error();
    DeviceInfo d;
    auto index = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_DEV_INDEX], "RDMA_NLDEV_ATTR_DEV_INDEX");
    if (!index)
        return std::move(index).error();
    auto name = string(tb[RDMA_NLDEV_ATTR_DEV_NAME], "RDMA_NLDEV_ATTR_DEV_NAME");
    if (!name)
        return std::move(name).error();
    if (!index->has_value() || !name->has_value())
        return parseError("RDMA_NLDEV_CMD_GET");
    d.index = **index;
    d.name = **name;
    auto fw = string(tb[RDMA_NLDEV_ATTR_FW_VERSION], "RDMA_NLDEV_ATTR_FW_VERSION");
    if (!fw)
        return std::move(fw).error();
    d.fwVersion = *fw;
    auto guid = fixed<uint64_t>(tb[RDMA_NLDEV_ATTR_NODE_GUID], "RDMA_NLDEV_ATTR_NODE_GUID");
    if (!guid)
        return std::move(guid).error();
    d.nodeGuid = *guid;
    auto type = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], "RDMA_NLDEV_ATTR_DEV_NODE_TYPE");
    if (!type)
        return std::move(type).error();
    d.nodeType = *type;
    auto proto = string(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], "RDMA_NLDEV_ATTR_DEV_PROTOCOL");
    if (!proto)
        return std::move(proto).error();
    d.protocol = *proto;
    return d;
}

Result<PortInfo> decodePort(const nlmsghdr *message)
{
    nlattr *tb[RDMA_NLDEV_ATTR_MAX];
    if (auto st = parse(message, RDMA_NLDEV_CMD_PORT_GET, tb); !st)
        return std::move(st).error();
    PortInfo p;
    auto index = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_DEV_INDEX], "RDMA_NLDEV_ATTR_DEV_INDEX");
    if (!index)
        return std::move(index).error();
    auto name = string(tb[RDMA_NLDEV_ATTR_DEV_NAME], "RDMA_NLDEV_ATTR_DEV_NAME");
    if (!name)
        return std::move(name).error();
    auto port = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_PORT_INDEX], "RDMA_NLDEV_ATTR_PORT_INDEX");
    if (!port)
        return std::move(port).error();
    if (!index->has_value() || !name->has_value() || !port->has_value())
        return parseError("RDMA_NLDEV_CMD_PORT_GET");
    p.deviceIndex = **index;
    p.deviceName = **name;
    p.port = **port;
    auto state = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_PORT_STATE], "RDMA_NLDEV_ATTR_PORT_STATE");
    if (!state)
        return std::move(state).error();
    p.state = *state;
    auto phys = fixed<uint8_t>(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE], "RDMA_NLDEV_ATTR_PORT_PHYS_STATE");
    if (!phys)
        return std::move(phys).error();
    p.physState = *phys;
    auto ndevIndex = fixed<uint32_t>(tb[RDMA_NLDEV_ATTR_NDEV_INDEX], "RDMA_NLDEV_ATTR_NDEV_INDEX");
    if (!ndevIndex)
        return std::move(ndevIndex).error();
    p.netdevIndex = *ndevIndex;
    auto ndevName = string(tb[RDMA_NLDEV_ATTR_NDEV_NAME], "RDMA_NLDEV_ATTR_NDEV_NAME");
    if (!ndevName)
        return std::move(ndevName).error();
    p.netdevName = *ndevName;
    return p;
}

} // namespace ibnm::platform::rdma
