// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/ipoib-netlink.hpp"

#include "libcore/platform/linux/netlink-policy.hpp"
#include "libcore/support/i18n.hpp"

#include <cstring>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

namespace ibnm::platform::ipoib {

namespace {

Error nlError(int err, const char *what)
{
    return Error(IBNM_ERROR_FAILED, nl_geterror(err)).withContext(what);
}

Error parseError(const char *what)
{
    return Error(IBNM_ERROR_PARSE, _("malformed IPoIB link message")).withContext(what);
}

// The attributes decodeLink() reads, at each level of nesting, checked by
// libnl (netlink-policy.hpp).
const netlink::Policy &linkPolicy()
{
    static const netlink::Policy p(IFLA_MAX, {
                                                 {IFLA_LINK, NLA_U32, "IFLA_LINK"},
                                                 {IFLA_IFNAME, NLA_STRING, "IFLA_IFNAME", IFNAMSIZ},
                                                 {IFLA_LINKINFO, NLA_NESTED, "IFLA_LINKINFO"},
                                             });
    return p;
}

const netlink::Policy &infoPolicy()
{
    static const netlink::Policy p(IFLA_INFO_MAX, {
                                                      {IFLA_INFO_KIND, NLA_STRING, "IFLA_INFO_KIND"},
                                                      {IFLA_INFO_DATA, NLA_NESTED, "IFLA_INFO_DATA"},
                                                  });
    return p;
}

const netlink::Policy &ipoibPolicy()
{
    static const netlink::Policy p(IFLA_IPOIB_MAX, {
                                                       {IFLA_IPOIB_PKEY, NLA_U16, "IFLA_IPOIB_PKEY"},
                                                       {IFLA_IPOIB_MODE, NLA_U16, "IFLA_IPOIB_MODE"},
                                                       {IFLA_IPOIB_UMCAST, NLA_U16, "IFLA_IPOIB_UMCAST"},
                                                   });
    return p;
}

std::optional<uint16_t> u16Attr(const nlattr *attr)
{
    if (attr == nullptr)
        return std::nullopt;
    return nla_get_u16(const_cast<nlattr *>(attr)); // two bytes: ipoibPolicy()
}

} // namespace

Result<NlMsgPtr> encodeNewLink(const LinkRequest &request)
{
    NlMsgPtr msg(nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK));
    if (!msg)
        return Error(IBNM_ERROR_FAILED, "nlmsg_alloc_simple");
    ifinfomsg ifi;
    memset(&ifi, 0, sizeof(ifi));
    ifi.ifi_family = AF_UNSPEC;
    int err = nlmsg_append(msg.get(), &ifi, sizeof(ifi), NLMSG_ALIGNTO);
    if (err < 0)
        return nlError(err, "ifinfomsg");
    if (request.parentIfindex != 0 && (err = nla_put_u32(msg.get(), IFLA_LINK, request.parentIfindex)) < 0)
        return nlError(err, "IFLA_LINK");
    if (!request.ifname.empty() && (err = nla_put_string(msg.get(), IFLA_IFNAME, request.ifname.c_str())) < 0)
        return nlError(err, "IFLA_IFNAME");
    nlattr *info = nla_nest_start(msg.get(), IFLA_LINKINFO);
    if (info == nullptr)
        return nlError(-NLE_NOMEM, "IFLA_LINKINFO");
    if ((err = nla_put_string(msg.get(), IFLA_INFO_KIND, "ipoib")) < 0)
        return nlError(err, "IFLA_INFO_KIND");
    if (request.pkey || request.mode || request.umcast) {
        nlattr *data = nla_nest_start(msg.get(), IFLA_INFO_DATA);
        if (data == nullptr)
            return nlError(-NLE_NOMEM, "IFLA_INFO_DATA");
        if (request.pkey && (err = nla_put_u16(msg.get(), IFLA_IPOIB_PKEY, *request.pkey)) < 0)
            return nlError(err, "IFLA_IPOIB_PKEY");
        if (request.mode) {
            uint16_t mode = *request.mode == model::IpoibMode::Connected ? IPOIB_MODE_CONNECTED : IPOIB_MODE_DATAGRAM;
            if ((err = nla_put_u16(msg.get(), IFLA_IPOIB_MODE, mode)) < 0)
                return nlError(err, "IFLA_IPOIB_MODE");
        }
        if (request.umcast && (err = nla_put_u16(msg.get(), IFLA_IPOIB_UMCAST, *request.umcast ? 1 : 0)) < 0)
            return nlError(err, "IFLA_IPOIB_UMCAST");
        nla_nest_end(msg.get(), data);
    }
    nla_nest_end(msg.get(), info);
    return msg;
}

Result<LinkRequest> decodeLink(const nlmsghdr *message)
{
    auto *hdr = const_cast<nlmsghdr *>(message);
    if (hdr->nlmsg_type != RTM_NEWLINK || !nlmsg_valid_hdr(hdr, sizeof(ifinfomsg)))
        return parseError("RTM_NEWLINK");
    nlattr *tb[IFLA_MAX + 1];
    if (const char *refused = linkPolicy().parse(tb, nlmsg_attrdata(hdr, sizeof(ifinfomsg)),
                                                 nlmsg_attrlen(hdr, sizeof(ifinfomsg))))
        return parseError(refused);
    LinkRequest r;
    if (tb[IFLA_LINK])
        r.parentIfindex = nla_get_u32(tb[IFLA_LINK]);
    if (tb[IFLA_IFNAME])
        r.ifname = static_cast<const char *>(nla_data(tb[IFLA_IFNAME]));
    if (!tb[IFLA_LINKINFO])
        return parseError("IFLA_LINKINFO");
    nlattr *info[IFLA_INFO_MAX + 1];
    if (const char *refused = infoPolicy().parseNested(info, tb[IFLA_LINKINFO]))
        return parseError(refused);
    if (!info[IFLA_INFO_KIND] || nla_strcmp(info[IFLA_INFO_KIND], "ipoib") != 0)
        return parseError("IFLA_INFO_KIND");
    if (info[IFLA_INFO_DATA]) {
        nlattr *data[IFLA_IPOIB_MAX + 1];
        if (const char *refused = ipoibPolicy().parseNested(data, info[IFLA_INFO_DATA]))
            return parseError(refused);
        r.pkey = u16Attr(data[IFLA_IPOIB_PKEY]);
        if (auto mode = u16Attr(data[IFLA_IPOIB_MODE])) {
            if (*mode == IPOIB_MODE_DATAGRAM)
                r.mode = model::IpoibMode::Datagram;
            else if (*mode == IPOIB_MODE_CONNECTED)
                r.mode = model::IpoibMode::Connected;
            else
                return parseError("IFLA_IPOIB_MODE");
        }
        if (auto umcast = u16Attr(data[IFLA_IPOIB_UMCAST]))
            r.umcast = *umcast != 0;
    }
    return r;
}

std::vector<uint8_t> messageBytes(nl_msg *message)
{
    const nlmsghdr *hdr = nlmsg_hdr(message);
    const auto *p = reinterpret_cast<const uint8_t *>(hdr);
    return std::vector<uint8_t>(p, p + hdr->nlmsg_len);
}

} // namespace ibnm::platform::ipoib
