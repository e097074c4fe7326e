// SPDX-License-Identifier: LGPL-2.1-or-later
// The values of a host description: the checks of their text (numbers,
// GUIDs, hardware addresses, CIDR, lists), the text forms the parser shares
// with the writer (fake-host-file-format.cpp), and what the simulated host
// derives from them (a port GUID, a soft link's RDMA device).
#include "config.h"

#include "libcore/simulator/fake-host-file-private.hpp"

#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <arpa/inet.h>

namespace ibnm::platform {

using model::LinkLayer;
using model::RoceMode;
using model::SoftLinkType;

bool isStorableId(const std::string &id)
{
    if (id.empty() || !g_utf8_validate(id.data(), static_cast<gssize>(id.size()), nullptr))
        return false;
    if (g_ascii_isspace(id.front()) || g_ascii_isspace(id.back()))
        return false;
    for (char c : id)
        if (c == '[' || c == ']' || g_ascii_iscntrl(c))
            return false;
    return true;
}

std::optional<model::Route> parseRoute(const std::string &text)
{
    GStrvPtr words(g_strsplit_set(text.c_str(), " \t", -1));
    std::vector<std::string> w;
    for (char **p = words.get(); *p; p++)
        if (**p)
            w.emplace_back(*p);
    if (w.empty())
        return std::nullopt;
    model::Route r;
    r.dest = w[0];
    size_t slash = r.dest.find('/');
    if (slash == std::string::npos)
        return std::nullopt;
    bool v6 = r.dest.find(':') != std::string::npos;
    unsigned char buf[16];
    if (inet_pton(v6 ? AF_INET6 : AF_INET, r.dest.substr(0, slash).c_str(), buf) != 1)
        return std::nullopt;
    guint64 len = 0;
    if (!g_ascii_string_to_unsigned(r.dest.c_str() + slash + 1, 10, 0, v6 ? 128 : 32, &len, nullptr))
        return std::nullopt;
    for (size_t i = 1; i + 1 < w.size(); i += 2) {
        if (w[i] == "via") {
            if (inet_pton(v6 ? AF_INET6 : AF_INET, w[i + 1].c_str(), buf) != 1)
                return std::nullopt;
            r.gateway = w[i + 1];
        } else if (w[i] == "metric") {
            guint64 m = 0;
            if (!g_ascii_string_to_unsigned(w[i + 1].c_str(), 10, 0, G_MAXUINT32, &m, nullptr))
                return std::nullopt;
            r.metric = static_cast<unsigned>(m);
        } else {
            return std::nullopt;
        }
    }
    if (w.size() % 2 == 0)
        return std::nullopt;
    return r;
}

const char *linkLayerName(LinkLayer l)
{
    switch (l) {
    case LinkLayer::InfiniBand:
        return "InfiniBand";
    case LinkLayer::Ethernet:
        return "Ethernet";
    case LinkLayer::Unknown:
        break;
    }
    return "Unknown";
}

const char *roceModeName(RoceMode m)
{
    return m == RoceMode::V1 ? "IB/RoCE v1" : "RoCE v2";
}

const char *softLinkTypeName(SoftLinkType t)
{
    return t == SoftLinkType::Rxe ? "rxe" : "siw";
}

namespace hostfile {

std::string_view trimmed(std::string_view s)
{
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string trim(const std::string &s)
{
    return std::string(trimmed(s));
}

std::vector<std::string> splitList(const std::string &s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(';', start);
        if (end == std::string::npos)
            end = s.size();
        std::string item = trim(s.substr(start, end - start));
        if (!item.empty())
            out.push_back(item);
        start = end + 1;
    }
    return out;
}

std::optional<uint64_t> parseUnsigned(const std::string &s, uint64_t max)
{
    if (s.empty())
        return std::nullopt;
    guint64 v = 0;
    gboolean ok;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        ok = g_ascii_string_to_unsigned(s.c_str() + 2, 16, 0, max, &v, nullptr);
    else
        ok = g_ascii_string_to_unsigned(s.c_str(), 10, 0, max, &v, nullptr);
    if (!ok)
        return std::nullopt;
    return v;
}

bool isGuid(const std::string &s)
{
    if (s.size() != 19)
        return false;
    for (size_t i = 0; i < s.size(); i++) {
        if (i % 5 == 4) {
            if (s[i] != ':')
                return false;
        } else if (!g_ascii_isxdigit(s[i])) {
            return false;
        }
    }
    return true;
}

bool isHwAddress(const std::string &s, size_t bytes)
{
    if (s.size() != bytes * 3 - 1)
        return false;
    for (size_t i = 0; i < s.size(); i++) {
        if (i % 3 == 2) {
            if (s[i] != ':')
                return false;
        } else if (!g_ascii_isxdigit(s[i])) {
            return false;
        }
    }
    return true;
}

bool isCidr(const std::string &s)
{
    size_t slash = s.find('/');
    if (slash == std::string::npos)
        return false;
    std::string addr = s.substr(0, slash);
    bool v6 = addr.find(':') != std::string::npos;
    unsigned char buf[16];
    if (inet_pton(v6 ? AF_INET6 : AF_INET, addr.c_str(), buf) != 1)
        return false;
    auto len = parseUnsigned(s.substr(slash + 1), v6 ? 128 : 32);
    return len.has_value() && s.substr(slash + 1).find('x') == std::string::npos;
}

std::string lower(std::string s)
{
    for (auto &c : s)
        c = g_ascii_tolower(c);
    return s;
}

} // namespace hostfile

namespace {

std::string macToEui64Guid(const std::string &mac)
{
    unsigned m[6] = {};
    if (std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
        return "0000:0000:0000:0000";
    return strprintf("%02x%02x:%02xff:fe%02x:%02x%02x", m[0] ^ 0x02, m[1], m[2], m[3], m[4], m[5]);
}

} // namespace

std::string localMac(unsigned ifindex, const std::string &name)
{
    guint hash = g_str_hash(name.c_str());
    return strprintf("02:%02x:%02x:%02x:%02x:%02x", ifindex & 0xff, (hash >> 24) & 0xff, (hash >> 16) & 0xff,
                     (hash >> 8) & 0xff, hash & 0xff);
}

std::string portGuidFromIpoibAddress(const std::string &address)
{
    if (!hostfile::isHwAddress(address, 20))
        return {};
    std::string hex;
    for (size_t i = 12 * 3; i < address.size(); i++)
        if (address[i] != ':')
            hex += address[i];
    return hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
}

model::Device softLinkDevice(const std::string &name, SoftLinkType type, const model::Netdev &netdev)
{
    model::Device d;
    d.name = name;
    d.nodeGuid = macToEui64Guid(netdev.address);
    d.connectedModeSupported = false;
    if (type == SoftLinkType::Rxe) {
        d.nodeType = "1: CA";
        d.driver = "rdma_rxe";
    } else {
        d.nodeType = "4: RNIC";
        d.driver = "siw";
        d.fwVersion = "0.0.0";
    }
    model::Port p;
    p.number = 1;
    p.linkLayer = LinkLayer::Ethernet;
    p.state = "4: ACTIVE";
    p.physState = "5: LinkUp";
    // siw reports a maximum of IB_MTU_1024 (siw_query_port()), rxe 4096.
    p.maxMtu = type == SoftLinkType::Siw ? 1024 : 4096;
    p.lid = 0;
    p.smLid = 0;
    d.ports.push_back(std::move(p));
    return d;
}

namespace {

struct RouteKey {
    bool v6 = false;
    unsigned char bytes[16] = {};
    unsigned len = 0;
};

RouteKey routeKey(const model::Route &r)
{
    RouteKey k;
    size_t slash = r.dest.find('/');
    k.v6 = r.dest.find(':') != std::string::npos;
    inet_pton(k.v6 ? AF_INET6 : AF_INET, r.dest.substr(0, slash).c_str(), k.bytes);
    guint64 len = 0;
    if (slash != std::string::npos)
        g_ascii_string_to_unsigned(r.dest.c_str() + slash + 1, 10, 0, k.v6 ? 128 : 32, &len, nullptr);
    k.len = unsigned(len);
    return k;
}

bool bit(const RouteKey &k, unsigned i)
{
    return (k.bytes[i / 8] >> (7 - i % 8)) & 1;
}

// -1: `a` is listed before `b`, 1: after, 0: same place.
int kernelOrder(const model::Route &ra, const model::Route &rb)
{
    RouteKey a = routeKey(ra), b = routeKey(rb);
    if (a.v6 != b.v6)
        return a.v6 ? 1 : -1;
    if (!a.v6) {
        if (int c = memcmp(a.bytes, b.bytes, 4))
            return c < 0 ? -1 : 1;
    } else {
        for (unsigned i = 0; i < std::min(a.len, b.len); i++)
            if (bit(a, i) != bit(b, i))
                return bit(a, i) ? 1 : -1;
    }
    if (a.len != b.len)
        return a.len > b.len ? -1 : 1;
    if (ra.metric != rb.metric)
        return ra.metric < rb.metric ? -1 : 1;
    return 0;
}

} // namespace

void insertRoute(std::vector<model::Route> &routes, model::Route route)
{
    auto at = std::find_if(routes.begin(), routes.end(),
                           [&](const model::Route &r) { return kernelOrder(route, r) < 0; });
    routes.insert(at, std::move(route));
}

} // namespace ibnm::platform
