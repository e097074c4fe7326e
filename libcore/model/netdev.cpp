// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/netdev.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ibnm::model {

Status linkMtuAccepted(const std::string &ifname, unsigned mtu, std::optional<unsigned> max)
{
    if (mtu < kEthMinMtu)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%u is less than the minimum MTU %u; the kernel refuses it"), mtu, kEthMinMtu),
                     EINVAL);
    if (max && mtu > *max)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s takes an MTU of at most %u, not %u"), ifname.c_str(), *max, mtu), EINVAL);
    return {};
}

namespace {

// An address as bytes: family, 4 or 16 bytes; nullopt when `text` is none.
struct Bytes {
    int family = AF_INET;
    unsigned char b[16] = {};
    unsigned bits() const { return family == AF_INET ? 32 : 128; }
};

std::optional<Bytes> parseAddress(const std::string &text)
{
    Bytes a;
    if (inet_pton(AF_INET, text.c_str(), a.b) == 1)
        return a;
    a.family = AF_INET6;
    if (inet_pton(AF_INET6, text.c_str(), a.b) == 1)
        return a;
    return std::nullopt;
}

// "ADDR/LEN" as bytes and prefix length.
std::optional<std::pair<Bytes, unsigned>> parsePrefix(const std::string &cidr)
{
    size_t slash = cidr.find('/');
    auto a = parseAddress(cidr.substr(0, slash));
    if (!a)
        return std::nullopt;
    guint64 len = a->bits();
    if (slash != std::string::npos &&
        !g_ascii_string_to_unsigned(cidr.c_str() + slash + 1, 10, 0, a->bits(), &len, nullptr))
        return std::nullopt;
    return std::make_pair(*a, unsigned(len));
}

bool samePrefix(const Bytes &x, const Bytes &y, unsigned len)
{
    if (x.family != y.family)
        return false;
    for (unsigned i = 0; i < len / 8; i++)
        if (x.b[i] != y.b[i])
            return false;
    unsigned rest = len % 8;
    if (rest == 0)
        return true;
    unsigned char mask = static_cast<unsigned char>(0xff00 >> rest);
    return (x.b[len / 8] & mask) == (y.b[len / 8] & mask);
}

bool linkLocal6(const Bytes &a)
{
    return a.family == AF_INET6 && a.b[0] == 0xfe && (a.b[1] & 0xc0) == 0x80;
}

} // namespace

bool gatewayOnLink(const std::string &gateway, const std::vector<std::string> &addresses,
                   const std::vector<Route> &routes)
{
    auto gw = parseAddress(gateway);
    if (!gw)
        return false;
    if (linkLocal6(*gw))
        return true;
    auto covers = [&](const std::string &cidr) {
        auto p = parsePrefix(cidr);
        return p && samePrefix(p->first, *gw, p->second);
    };
    if (std::any_of(addresses.begin(), addresses.end(), covers))
        return true;
    return std::any_of(routes.begin(), routes.end(),
                       [&](const Route &r) { return r.gateway.empty() && covers(r.dest); });
}

std::vector<Route> withOnlinkRoutes(const std::vector<std::string> &addresses, const std::vector<Route> &routes)
{
    std::vector<Route> direct;
    for (const auto &r : routes)
        if (r.gateway.empty())
            direct.push_back(r);
    std::vector<Route> out;
    out.reserve(routes.size());
    for (const auto &r : routes) {
        if (!r.gateway.empty() && !gatewayOnLink(r.gateway, addresses, direct)) {
            auto gw = parseAddress(r.gateway);
            Route host{r.gateway + (gw && gw->family == AF_INET6 ? "/128" : "/32"), "", r.metric};
            if (std::find(out.begin(), out.end(), host) == out.end() &&
                std::find(routes.begin(), routes.end(), host) == routes.end())
                out.push_back(std::move(host));
        }
        if (std::find(out.begin(), out.end(), r) == out.end())
            out.push_back(r);
    }
    return out;
}

LinkDns resolvedLinkDns(const std::vector<std::string> &servers4, const std::vector<std::string> &servers6,
                        const std::vector<std::string> &search4, const std::vector<std::string> &search6)
{
    LinkDns dns;
    auto addOnce = [](std::vector<std::string> &to, const std::vector<std::string> &from) {
        for (const auto &x : from)
            if (!x.empty() && std::find(to.begin(), to.end(), x) == to.end())
                to.push_back(x);
    };
    addOnce(dns.servers, servers4);
    addOnce(dns.servers, servers6);
    addOnce(dns.domains, search4);
    addOnce(dns.domains, search6);
    return dns;
}

} // namespace ibnm::model
