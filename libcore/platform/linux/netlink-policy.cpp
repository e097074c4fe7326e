// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/netlink-policy.hpp"

namespace ibnm::platform::netlink {

namespace {

// The size of a fixed-size kind: libnl checks the least (nla_attr_minlen),
// the policy's maxlen the greatest, so an integer is exactly its size.
uint16_t fixedSize(uint16_t kind)
{
    switch (kind) {
    case NLA_U8: return 1;
    case NLA_U16: return 2;
    case NLA_U32: return 4;
    case NLA_U64: return 8;
    default: return 0;
    }
}

} // namespace

Policy::Policy(int maxType, std::initializer_list<Attribute> attributes)
    : maxType_(maxType), attributes_(attributes), table_(static_cast<size_t>(maxType) + 1)
{
    for (const auto &a : attributes_) {
        uint16_t size = fixedSize(a.kind);
        table_[static_cast<size_t>(a.type)] = nla_policy{a.kind, size ? size : a.minlen, size ? size : a.maxlen};
    }
}

const char *Policy::parse(nlattr **tb, nlattr *head, int len) const
{
    if (nla_parse(tb, maxType_, head, len, table_.data()) >= 0)
        return nullptr;
    // nla_parse() does not say which one: check each alone.
    if (nla_parse(tb, maxType_, head, len, nullptr) >= 0)
        for (const auto &a : attributes_)
            if (nlattr *attr = tb[a.type]; attr && nla_validate(attr, attr->nla_len, maxType_, table_.data()) < 0)
                return a.name;
    return "attributes";
}

const char *Policy::parseNested(nlattr **tb, const nlattr *nested) const
{
    return parse(tb, static_cast<nlattr *>(nla_data(nested)), nla_len(nested));
}

} // namespace ibnm::platform::netlink
