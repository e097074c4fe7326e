// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/rdma.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdlib>

namespace ibnm::model {

namespace {

// The one of `values` that `nameOf` names `name`: each word read back
// through the function that writes it, so the two cannot drift apart.
template <typename T, size_t N>
std::optional<T> byName(std::string_view name, const T (&values)[N], const char *(*nameOf)(T))
{
    for (T v : values)
        if (name == nameOf(v))
            return v;
    return std::nullopt;
}

constexpr SoftLinkType kSoftLinkTypes[] = {SoftLinkType::Rxe, SoftLinkType::Siw};

} // namespace

const char *softLinkTypeName(SoftLinkType type)
{
    return type == SoftLinkType::Rxe ? "rxe" : "siw";
}

std::optional<SoftLinkType> softLinkTypeFromName(std::string_view name)
{
    return byName(name, kSoftLinkTypes, softLinkTypeName);
}

const char *softLinkDriver(SoftLinkType type)
{
    return type == SoftLinkType::Rxe ? "rdma_rxe" : "siw";
}

std::optional<SoftLinkType> softLinkTypeOfDriver(std::string_view driver)
{
    return byName(driver, kSoftLinkTypes, softLinkDriver);
}

const char *roceModeName(RoceMode mode)
{
    return mode == RoceMode::V1 ? "IB/RoCE v1" : "RoCE v2";
}

std::optional<RoceMode> roceModeFromName(std::string_view name)
{
    static constexpr RoceMode kModes[] = {RoceMode::V1, RoceMode::V2};
    return byName(name, kModes, roceModeName);
}

std::optional<GidType> gidTypeFromName(std::string_view name)
{
    // The kernel writes a GID's type with the words of the RoCE modes.
    if (auto m = roceModeFromName(name))
        return *m == RoceMode::V1 ? GidType::IbRoceV1 : GidType::RoceV2;
    return std::nullopt;
}

std::string defaultSoftLinkName(SoftLinkType type, const std::string &netdev)
{
    std::string name = std::string(softLinkTypeName(type)) + "_" + netdev;
    if (name.size() > 63)
        name.resize(63);
    return name;
}

bool roceModeSupported(std::optional<SoftLinkType> softLink, LinkLayer linkLayer, RoceMode mode)
{
    // rxe: the kernel refuses "IB/RoCE v1" (kernel lab, KernelRefusalOfRoceV1RollsBackTheLink);
    // siw: "RoCE v2" (platform contract SiwRefusesRoceV2).
    if (softLink)
        return *softLink == SoftLinkType::Rxe ? mode == RoceMode::V2 : mode == RoceMode::V1;
    if (linkLayer != LinkLayer::Ethernet)
        return mode == RoceMode::V1;
    return true;
}

unsigned vlanEgressPcp(const Netdev &vlan, unsigned priority)
{
    auto it = vlan.egressQosMap.find(priority);
    return it == vlan.egressQosMap.end() ? 0u : it->second;
}

bool hasTrafficClassFiles(const Device &device)
{
    return device.driver == "mlx5_core";
}

RoceMode kernelDefaultRoceMode(std::optional<SoftLinkType> softLink, LinkLayer linkLayer)
{
    return roceModeSupported(softLink, linkLayer, RoceMode::V2) ? RoceMode::V2 : RoceMode::V1;
}

bool hasRoceEnableFile(const Device &device)
{
    return device.driver == "mlx5_core" && device.roceEnabled.has_value();
}

namespace {

Error badRule(const std::string &text, const std::string &why)
{
    return Error(IBNM_ERROR_INVALID_VALUE,
                 strprintf(_("'%s' is not a traffic class rule: %s (use 'tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24')"),
                           text.c_str(), why.c_str()));
}

// An IPv4 or IPv6 address as GLib parses it, in its canonical text; with
// `prefix`, an optional /N within the family's length.
std::optional<std::string> canonicalAddress(const std::string &v, bool prefix)
{
    std::string addr = v;
    std::string len;
    auto slash = v.find('/');
    if (slash != std::string::npos) {
        if (!prefix)
            return std::nullopt;
        addr = v.substr(0, slash);
        len = v.substr(slash + 1);
    }
    // inet_pton() and inet_ntop(), as GLib's GInetAddress parses and prints
    // them on Linux.
    unsigned char bytes[sizeof(struct in6_addr)];
    int family = AF_INET;
    if (inet_pton(AF_INET, addr.c_str(), bytes) != 1) {
        family = AF_INET6;
        if (inet_pton(AF_INET6, addr.c_str(), bytes) != 1)
            return std::nullopt;
    }
    unsigned bits = family == AF_INET ? 32 : 128;
    char text[INET6_ADDRSTRLEN];
    if (!inet_ntop(family, bytes, text, sizeof text))
        return std::nullopt;
    std::string out = text;
    if (slash != std::string::npos) {
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned(len.c_str(), 10, 0, bits, &n, nullptr))
            return std::nullopt;
        out += "/" + std::to_string(n);
    }
    return out;
}

} // namespace

Result<TcRule> parseTcRule(const std::string &text)
{
    TcRule r;
    bool haveClass = false;
    size_t start = 0;
    bool first = true;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? text.size() + 1 : comma + 1;
        auto eq = part.find('=');
        std::string key = eq == std::string::npos ? (first ? "tclass" : part) : part.substr(0, eq);
        std::string value = eq == std::string::npos ? part : part.substr(eq + 1);
        first = false;
        if (eq == std::string::npos && key != "tclass")
            return badRule(text, strprintf(_("'%s' has no value"), part.c_str()));
        if (key == "tclass") {
            gint64 n = 0;
            if (haveClass || !g_ascii_string_to_signed(value.c_str(), 10, -1, 255, &n, nullptr))
                return badRule(text, _("the class is a number from 0 to 255, or -1 to remove the rule"));
            r.tclass = int(n);
            haveClass = true;
        } else if (key == "src_ip" || key == "dst_ip") {
            bool dst = key == "dst_ip";
            std::string &slot = dst ? r.dstIp : r.srcIp;
            auto a = canonicalAddress(value, dst);
            if (!slot.empty() || !a)
                return badRule(text, strprintf(dst ? _("'%s' is not an IP address with an optional /prefix")
                                                   : _("'%s' is not an IP address"),
                                               value.c_str()));
            slot = *a;
        } else {
            return badRule(text, strprintf(_("unknown part '%s'"), key.c_str()));
        }
    }
    if (!haveClass)
        return badRule(text, _("the class is missing"));
    if (r.srcIp.empty() && r.dstIp.empty())
        return badRule(text, _("a rule needs src_ip, dst_ip or both; a class alone is the global value"));
    return r;
}

std::string formatTcRule(const TcRule &rule)
{
    std::string s = "tclass=" + std::to_string(rule.tclass);
    if (!rule.srcIp.empty())
        s += ",src_ip=" + rule.srcIp;
    if (!rule.dstIp.empty())
        s += ",dst_ip=" + rule.dstIp;
    return s;
}

TcRule tcRuleRemoval(const TcRule &rule)
{
    TcRule r = rule;
    r.tclass = -1;
    return r;
}

Result<TrafficClassFile> parseTrafficClassFile(const std::string &text)
{
    TrafficClassFile f;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        start = nl == std::string::npos ? text.size() : nl + 1;
        while (!line.empty() && g_ascii_isspace(line.back()))
            line.pop_back();
        while (!line.empty() && g_ascii_isspace(line.front()))
            line.erase(0, 1);
        if (line.empty())
            continue;
        if (line.find("src_ip=") != std::string::npos || line.find("dst_ip=") != std::string::npos) {
            auto r = parseTcRule(line);
            if (!r.ok())
                return std::move(r).error();
            f.rules.push_back(*r);
            continue;
        }
        std::string v = line;
        if (g_str_has_prefix(line.c_str(), "Global tclass="))
            v = line.substr(std::string("Global tclass=").size());
        gint64 n = 0;
        if (!g_ascii_string_to_signed(v.c_str(), 10, -1, 255, &n, nullptr))
            return Error(IBNM_ERROR_INVALID_VALUE, strprintf(_("unexpected line '%s'"), line.c_str()));
        if (n >= 0)
            f.global = unsigned(n);
    }
    return f;
}

bool isIpv4MappedGid(const std::string &gid)
{
    return gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0;
}

std::optional<unsigned> gidIndexFor(const Port &port, GidType type, bool ipv6, const std::string &netdev)
{
    std::string want = netdev;
    if (want.empty())
        for (const auto &g : port.gids)
            if (g.index == 0)
                want = g.netdev;
    for (const auto &g : port.gids) {
        if (g.type != type || g.netdev != want || g.gid.find_first_not_of("0:") == std::string::npos)
            continue;
        bool v4 = isIpv4MappedGid(g.gid);
        bool linkLocal = g.gid.rfind("fe80:", 0) == 0;
        if (ipv6 ? (!v4 && !linkLocal) : v4)
            return g.index;
    }
    return std::nullopt;
}

const char *rdmaProtocolName(RdmaProtocol protocol)
{
    switch (protocol) {
    case RdmaProtocol::InfiniBand: return "InfiniBand";
    case RdmaProtocol::RoceV1: return "RoCE v1";
    case RdmaProtocol::RoceV2: return "RoCE v2";
    case RdmaProtocol::Iwarp: return "iWARP";
    case RdmaProtocol::Unknown: break;
    }
    return "";
}

RdmaProtocol rdmaProtocolOf(const Device &device, const Port &port, std::optional<GidType> gidType)
{
    // node_type "4: RNIC" (drivers/infiniband/core/sysfs.c node_type_show(),
    // RDMA_NODE_RNIC): iWARP, whatever its GID table says (siw: "IB/RoCE v1").
    if (g_str_has_prefix(device.nodeType.c_str(), "4:"))
        return RdmaProtocol::Iwarp;
    if (port.linkLayer == LinkLayer::InfiniBand)
        return RdmaProtocol::InfiniBand;
    if (port.linkLayer != LinkLayer::Ethernet || !gidType || *gidType == GidType::Unknown)
        return RdmaProtocol::Unknown;
    return *gidType == GidType::RoceV2 ? RdmaProtocol::RoceV2 : RdmaProtocol::RoceV1;
}

namespace {

// Whether one of `netdev`'s addresses ("192.0.2.1/24") is `address`.
bool holdsAddress(const Netdev &netdev, const std::string &address)
{
    for (const auto &a : netdev.addresses)
        if (a.compare(0, a.find('/'), address) == 0)
            return true;
    return false;
}

} // namespace

RdmaPath describeRdmaPath(const Host &host, const std::string &device, unsigned port, const std::string &address,
                          std::optional<unsigned> gidIndex)
{
    RdmaPath path;
    path.address = address;
    path.device = device;
    path.port = port;
    path.gidIndex = gidIndex;
    const Device *d = host.findDevice(device);
    const Port *p = nullptr;
    for (size_t i = 0; d && i < d->ports.size(); i++)
        if (d->ports[i].number == port)
            p = &d->ports[i];
    if (!p)
        return path;
    std::optional<GidType> type;
    for (const auto &g : p->gids)
        if (gidIndex && g.index == *gidIndex) {
            type = g.type;
            path.gid = g.gid;
            path.netdev = g.netdev;
        }
    path.protocol = rdmaProtocolOf(*d, *p, type);
    if (path.protocol == RdmaProtocol::Iwarp) {
        // iWARP addresses its packets by IP, not by a GID.
        path.gidIndex.reset();
        path.gid.clear();
    }
    for (const auto &nd : host.netdevs)
        if (path.netdev.empty() && !address.empty() && holdsAddress(nd, address))
            path.netdev = nd.name;
    for (const auto &nd : host.netdevs)
        if (path.netdev.empty() && nd.rdmaDevice == device && nd.rdmaPort == port)
            path.netdev = nd.name;
    return path;
}

std::optional<unsigned> portStateNumber(const std::string &sysfsText)
{
    size_t colon = sysfsText.find(':');
    if (colon == 0 || colon == std::string::npos || colon > 2)
        return std::nullopt;
    unsigned n = 0;
    for (size_t i = 0; i < colon; i++) {
        if (sysfsText[i] < '0' || sysfsText[i] > '9')
            return std::nullopt;
        n = n * 10 + unsigned(sysfsText[i] - '0');
    }
    return n;
}

} // namespace ibnm::model
