// SPDX-License-Identifier: LGPL-2.1-or-later
// The attributes a netlink decoder reads, checked by libnl (nla_parse() with
// a struct nla_policy table: an integer exactly its size, a string ending in
// a NUL and at most its greatest length), with their names, so that a
// refusal names the attribute libnl refused.
#pragma once

#include <netlink/attr.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ibnm::platform::netlink {

struct Attribute {
    int type;
    uint16_t kind;       // NLA_U8, NLA_U16, NLA_U32, NLA_U64, NLA_STRING, NLA_NESTED
    const char *name;    // for errors: "IFLA_IFNAME"
    uint16_t maxlen = 0; // a string's greatest length with its NUL (0: any)
    uint16_t minlen = 0; // NLA_UNSPEC: the least payload (a struct's size)
};

class Policy {
public:
    // The attributes of types 1..maxType a message may hold; others are
    // not checked.
    Policy(int maxType, std::initializer_list<Attribute> attributes);

    // Splits the attributes at [head, head + len) into tb[0..maxType] and
    // checks them. nullptr when they pass; else the name of an attribute
    // libnl refused, or "attributes" when the stream itself is malformed.
    const char *parse(nlattr **tb, nlattr *head, int len) const;
    // The same for the payload of a nested attribute.
    const char *parseNested(nlattr **tb, const nlattr *nested) const;

private:
    int maxType_;
    std::vector<Attribute> attributes_;
    std::vector<nla_policy> table_;
};

} // namespace ibnm::platform::netlink
