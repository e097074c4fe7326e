// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description parser (fake-host-file.hpp): parseHostDescription()
// and the text forms it shares with the writer, fake-host-file-format.cpp.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"

#include "libcore/model/rdma.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <arpa/inet.h>

namespace ibnm::platform {

using model::GidType;
using model::IpoibMode;
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

namespace {

// The keys each kind of group takes (systemd-networkd style: one table says
// what a section may contain; the parsers below read them).
const std::map<std::string, std::set<std::string>> kGroupKeys = {
    {"host", {"kernel-release", "child-naming"}},
    {"simulation", {"operations"}},
    {"device",
     {"driver", "node-type", "node-guid", "fw-ver", "hca-type", "board-id", "pci-address", "enhanced-ipoib",
      "connected-mode",
      "roce-enable"}},
    {"port",
     {"link-layer", "state", "phys-state", "rate", "lid", "sm-lid", "active-mtu", "max-mtu", "broadcast-mtu",
      "pkeys", "port-guid", "default-roce-mode", "default-roce-tos", "traffic-class", "traffic-class-rules", "ttl"}},
    {"netdev",
     {"ifindex", "type", "kind", "address", "mtu", "max-mtu", "up", "addresses", "routes", "rdma-port", "link", "master",
      "original-mtu", "parent", "pkey", "mode", "umcast"}},
    {"bond", {"mode", "miimon", "primary", "active-port", "fail-over-mac"}},
    {"soft-link", {"type", "netdev"}},
};

std::string trim(const std::string &s)
{
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return {};
    size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
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

// Unsigned in decimal or with 0x in hex.
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

// Where each group and key is, for error messages.
struct Locations {
    std::string file;
    std::map<std::string, unsigned> groups;
    std::map<std::pair<std::string, std::string>, unsigned> keys;
};

class Parser {
public:
    Parser(std::string file) { loc_.file = std::move(file); }

    Result<FakeState> parse(const std::string &text);

private:
    Status scan(const std::string &text);
    Error errorAt(unsigned line, std::string message) const
    {
        return Error(IBNM_ERROR_PARSE, std::move(message)).withContext(strprintf("%s:%u", loc_.file.c_str(), line));
    }
    Error keyError(const std::string &group, const std::string &key, const std::string &what) const
    {
        auto it = loc_.keys.find({group, key});
        unsigned line = it != loc_.keys.end() ? it->second : groupLine(group);
        return errorAt(line, "[" + group + "] " + key + ": " + what);
    }
    Error groupError(const std::string &group, const std::string &what) const
    {
        return errorAt(groupLine(group), "[" + group + "]: " + what);
    }
    unsigned groupLine(const std::string &group) const
    {
        auto it = loc_.groups.find(group);
        return it != loc_.groups.end() ? it->second : 0;
    }

    bool has(const std::string &group, const std::string &key) const
    {
        return g_key_file_has_key(kf_.get(), group.c_str(), key.c_str(), nullptr);
    }
    std::string str(const std::string &group, const std::string &key, const std::string &fallback = {}) const
    {
        GCharPtr v(g_key_file_get_string(kf_.get(), group.c_str(), key.c_str(), nullptr));
        return v ? std::string(v.get()) : fallback;
    }
    Result<std::optional<uint64_t>> number(const std::string &group, const std::string &key, uint64_t max) const
    {
        if (!has(group, key))
            return std::optional<uint64_t>();
        std::string v = str(group, key);
        auto n = parseUnsigned(v, max);
        if (!n)
            return keyError(group, key,
                            strprintf(_("expected a number from 0 to %llu, got “%s”"),
                                      static_cast<unsigned long long>(max), v.c_str()));
        return std::optional<uint64_t>(*n);
    }
    Result<std::optional<bool>> boolean(const std::string &group, const std::string &key) const
    {
        if (!has(group, key))
            return std::optional<bool>();
        std::string v = str(group, key);
        if (v == "true" || v == "1")
            return std::optional<bool>(true);
        if (v == "false" || v == "0")
            return std::optional<bool>(false);
        return keyError(group, key, strprintf(_("expected true or false, got “%s”"), v.c_str()));
    }
    Error choiceError(const std::string &group, const std::string &key, const std::string &v,
                      const char *choices) const
    {
        return keyError(group, key, strprintf(_("“%s” is not one of %s"), v.c_str(), choices));
    }

    Status parseHost(const std::string &g);
    Status parseDevice(const std::string &g, const std::string &id);
    Status parsePort(const std::string &g, const std::string &id);
    Status parseNetdev(const std::string &g, const std::string &id);
    Status parseBond(const std::string &g, const std::string &id);
    Status parseSoftLink(const std::string &g, const std::string &id);
    Status resolve();

    Locations loc_;
    GKeyFilePtr kf_{g_key_file_new()};
    FakeState st_;
    // Per-netdev references checked once every group is read.
    std::map<std::string, std::string> rdmaPortRef_;
};

Status Parser::scan(const std::string &text)
{
    std::string group;
    unsigned lineNo = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        std::string line = trim(text.substr(pos, nl - pos));
        pos = nl + 1;
        lineNo++;
        if (line.empty() || line[0] == '#')
            continue;
        if (line[0] == '[') {
            if (line.back() != ']')
                return errorAt(lineNo, _("a group header must end with “]”"));
            group = line.substr(1, line.size() - 2);
            if (loc_.groups.count(group))
                return errorAt(lineNo, strprintf(_("group [%s] appears twice (first on line %u)"), group.c_str(),
                                                 loc_.groups[group]));
            loc_.groups[group] = lineNo;
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string::npos)
            return errorAt(lineNo, _("not a group header, a key=value line or a comment"));
        if (group.empty())
            return errorAt(lineNo, _("a key outside any group"));
        std::string key = trim(line.substr(0, eq));
        auto k = std::make_pair(group, key);
        if (loc_.keys.count(k))
            return errorAt(lineNo, strprintf(_("key “%s” appears twice in [%s]"), key.c_str(), group.c_str()));
        loc_.keys[k] = lineNo;
    }
    return {};
}

Result<FakeState> Parser::parse(const std::string &text)
{
    if (auto s = scan(text); !s.ok())
        return std::move(s).error();
    GError *raw = nullptr;
    if (!g_key_file_load_from_data(kf_.get(), text.data(), text.size(), G_KEY_FILE_NONE, &raw)) {
        GErrorPtr err(raw);
        return Error(IBNM_ERROR_PARSE, err->message).withContext(loc_.file);
    }

    // Every group has a known kind and only that kind's keys.
    std::vector<std::pair<std::string, std::string>> byKind[7];
    static const char *order[] = {"host", "simulation", "device", "port", "netdev", "bond", "soft-link"};
    std::vector<std::pair<std::string, unsigned>> groups(loc_.groups.begin(), loc_.groups.end());
    std::sort(groups.begin(), groups.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
    // [netdev ib0] and [netdev  ib0] name one object: a second header of
    // the same kind and name is a duplicate, however it is spaced.
    std::map<std::pair<std::string, std::string>, unsigned> named;
    for (const auto &[g, line] : groups) {
        size_t sp = g.find(' ');
        std::string kind = g.substr(0, sp);
        std::string id = sp == std::string::npos ? std::string() : trim(g.substr(sp + 1));
        if (auto [first, fresh] = named.emplace(std::make_pair(kind, id), line); !fresh)
            return errorAt(line, strprintf(_("group [%s] appears twice (first on line %u)"), g.c_str(), first->second));
        auto it = kGroupKeys.find(kind);
        if (it == kGroupKeys.end())
            return errorAt(line, strprintf(_("unknown group [%s]"), g.c_str()));
        bool needsId = kind != "host" && kind != "simulation";
        if (needsId && id.empty())
            return errorAt(line, strprintf(_("group [%s] needs a name: [%s NAME]"), g.c_str(), kind.c_str()));
        if (!needsId && !id.empty())
            return errorAt(line, strprintf(_("group [%s] takes no name"), kind.c_str()));
        // The group's keys only (the map is ordered by group, then key): a
        // walk over every key for every group made loading a state of a few
        // hundred netdevs cost tens of milliseconds.
        for (auto k = loc_.keys.lower_bound({g, std::string()}); k != loc_.keys.end() && k->first.first == g; ++k) {
            if (!it->second.count(k->first.second))
                return errorAt(k->second,
                               strprintf(_("unknown key “%s” in [%s]"), k->first.second.c_str(), g.c_str()));
        }
        for (size_t i = 0; i < std::size(order); i++)
            if (kind == order[i])
                byKind[i].emplace_back(g, id);
    }

    for (const auto &[g, id] : byKind[0])
        if (auto s = parseHost(g); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[1]) {
        auto ops = number(g, "operations", G_MAXUINT64);
        if (!ops.ok())
            return std::move(ops).error();
        st_.operations = ops->value_or(0);
    }
    for (const auto &[g, id] : byKind[2])
        if (auto s = parseDevice(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[3])
        if (auto s = parsePort(g, id); !s.ok())
            return std::move(s).error();
    for (auto &d : st_.host.devices) {
        std::sort(d.ports.begin(), d.ports.end(), [](const auto &a, const auto &b) { return a.number < b.number; });
        for (size_t i = 0; i < d.ports.size(); i++)
            if (d.ports[i].number != i + 1)
                return groupError("device " + d.name, _("its ports must be numbered from 1 without gaps"));
    }
    for (const auto &[g, id] : byKind[4])
        if (auto s = parseNetdev(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[5])
        if (auto s = parseBond(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[6])
        if (auto s = parseSoftLink(g, id); !s.ok())
            return std::move(s).error();
    if (auto s = resolve(); !s.ok())
        return std::move(s).error();
    return std::move(st_);
}

Status Parser::parseHost(const std::string &g)
{
    st_.host.kernelRelease = str(g, "kernel-release");
    if (has(g, "child-naming")) {
        std::string v = str(g, "child-naming");
        if (v == "upstream")
            st_.host.childNaming = model::ChildNaming::Upstream;
        else if (v == "ofed")
            st_.host.childNaming = model::ChildNaming::FullMembershipBit;
        else
            return choiceError(g, "child-naming", v, "upstream, ofed");
    }
    return {};
}

Status Parser::parseDevice(const std::string &g, const std::string &id)
{
    model::Device d;
    d.name = id;
    d.driver = str(g, "driver");
    d.nodeType = str(g, "node-type", "1: CA");
    d.nodeGuid = lower(str(g, "node-guid"));
    if (!d.nodeGuid.empty() && !isGuid(d.nodeGuid))
        return keyError(g, "node-guid", strprintf(_("not a GUID like 0002:c903:0031:7850: “%s”"), d.nodeGuid.c_str()));
    d.fwVersion = str(g, "fw-ver");
    d.hcaType = str(g, "hca-type");
    d.boardId = str(g, "board-id");
    d.pciAddress = str(g, "pci-address");
    auto enhanced = boolean(g, "enhanced-ipoib");
    if (!enhanced.ok())
        return std::move(enhanced).error();
    auto cm = boolean(g, "connected-mode");
    if (!cm.ok())
        return std::move(cm).error();
    auto roce = boolean(g, "roce-enable");
    if (!roce.ok())
        return std::move(roce).error();
    d.enhancedIpoib = enhanced->value_or(false);
    d.connectedModeSupported = cm->value_or(!d.enhancedIpoib);
    if (d.enhancedIpoib && d.connectedModeSupported)
        return keyError(g, "connected-mode", _("Enhanced IPoIB supports datagram mode only"));
    d.roceEnabled = *roce;
    st_.host.devices.push_back(std::move(d));
    return {};
}

Status Parser::parsePort(const std::string &g, const std::string &id)
{
    size_t slash = id.rfind('/');
    std::string devName = slash == std::string::npos ? std::string() : id.substr(0, slash);
    uint64_t num = 0;
    if (slash != std::string::npos)
        num = parseUnsigned(id.substr(slash + 1), 255).value_or(0);
    if (devName.empty() || num == 0)
        return groupError(g, _("a port group is named [port DEVICE/NUMBER]"));
    model::Device *dev = nullptr;
    for (auto &d : st_.host.devices)
        if (d.name == devName)
            dev = &d;
    if (dev == nullptr)
        return groupError(g, strprintf(_("no [device %s] group"), devName.c_str()));
    model::Port p;
    p.number = static_cast<unsigned>(num);
    std::string ll = str(g, "link-layer");
    if (ll == "InfiniBand")
        p.linkLayer = LinkLayer::InfiniBand;
    else if (ll == "Ethernet")
        p.linkLayer = LinkLayer::Ethernet;
    else
        return choiceError(g, "link-layer", ll, "InfiniBand, Ethernet");
    p.state = str(g, "state", "4: ACTIVE");
    p.physState = str(g, "phys-state", "5: LinkUp");
    p.rate = str(g, "rate");

    struct NumKey {
        const char *key;
        uint64_t max;
        std::function<void(uint64_t)> set;
    };
    const NumKey nums[] = {
        {"lid", 0xffffffff, [&](uint64_t v) { p.lid = static_cast<uint32_t>(v); }},
        {"sm-lid", 0xffffffff, [&](uint64_t v) { p.smLid = static_cast<uint32_t>(v); }},
        {"active-mtu", 4096, [&](uint64_t v) { p.activeMtu = static_cast<unsigned>(v); }},
        {"max-mtu", 4096, [&](uint64_t v) { p.maxMtu = static_cast<unsigned>(v); }},
        {"broadcast-mtu", 4096, [&](uint64_t v) { p.broadcastMtu = static_cast<unsigned>(v); }},
        {"default-roce-tos", 255, [&](uint64_t v) { p.defaultRoceTos = static_cast<unsigned>(v); }},
        {"traffic-class", 255, [&](uint64_t v) { p.trafficClass = static_cast<unsigned>(v); }},
        {"ttl", 255, [&](uint64_t v) { p.ttl = static_cast<unsigned>(v); }},
    };
    for (const auto &n : nums) {
        auto v = number(g, n.key, n.max);
        if (!v.ok())
            return std::move(v).error();
        if (*v)
            n.set(**v);
    }
    for (const char *mtuKey : {"active-mtu", "max-mtu", "broadcast-mtu"}) {
        std::optional<unsigned> v = std::string(mtuKey) == "active-mtu" ? p.activeMtu
                                    : std::string(mtuKey) == "max-mtu"  ? p.maxMtu
                                                                        : p.broadcastMtu;
        if (v && *v != 256 && *v != 512 && *v != 1024 && *v != 2048 && *v != 4096)
            return keyError(g, mtuKey, strprintf(_("an IB MTU is 256, 512, 1024, 2048 or 4096, not %u"), *v));
    }
    for (const auto &pk : splitList(str(g, "pkeys"))) {
        auto v = parseUnsigned(pk, 0xffff);
        if (!v || *v == 0)
            return keyError(g, "pkeys", strprintf(_("not a P_Key: “%s”"), pk.c_str()));
        p.pkeys.push_back(static_cast<uint16_t>(*v));
    }
    for (const auto &text : splitList(str(g, "traffic-class-rules"))) {
        auto rule = model::parseTcRule(text);
        if (!rule.ok() || rule->tclass < 0)
            return keyError(g, "traffic-class-rules",
                            strprintf(_("not a traffic class rule like tclass=16,dst_ip=192.0.2.0/24: “%s”"),
                                      text.c_str()));
        p.tcRules.push_back(*rule);
    }
    if (has(g, "port-guid")) {
        std::string guid = lower(str(g, "port-guid"));
        if (!isGuid(guid))
            return keyError(g, "port-guid", strprintf(_("not a GUID like 0002:c903:0031:7850: “%s”"), guid.c_str()));
        if (p.linkLayer != LinkLayer::InfiniBand)
            return keyError(g, "port-guid", _("only InfiniBand ports have a port GUID here"));
        st_.portGuids[id] = guid;
    }
    if (has(g, "default-roce-mode")) {
        std::string m = str(g, "default-roce-mode");
        if (m == "IB/RoCE v1")
            p.defaultRoceMode = RoceMode::V1;
        else if (m == "RoCE v2")
            p.defaultRoceMode = RoceMode::V2;
        else
            return choiceError(g, "default-roce-mode", m, "IB/RoCE v1, RoCE v2");
    }
    for (const auto &existing : dev->ports)
        if (existing.number == p.number)
            return groupError(g, _("this port is defined twice"));
    dev->ports.push_back(std::move(p));
    return {};
}

Status Parser::parseNetdev(const std::string &g, const std::string &id)
{
    if (id.size() > 15)
        return groupError(g, _("interface names have at most 15 characters"));
    model::Netdev n;
    n.name = id;
    n.kind = str(g, "kind");
    static const std::set<std::string> kinds = {"", "ipoib", "bond", "vlan", "dummy", "veth"};
    if (!kinds.count(n.kind))
        return choiceError(g, "kind", n.kind, "ipoib, bond, vlan, dummy, veth (or none for hardware)");
    auto type = number(g, "type", 0xffff);
    if (!type.ok())
        return std::move(type).error();
    n.type = static_cast<unsigned>(type->value_or(n.kind == "ipoib" ? 32 : 1));
    if (n.type != 1 && n.type != 32)
        return choiceError(g, "type", str(g, "type"), "1 (Ethernet), 32 (InfiniBand)");
    if (n.kind == "ipoib" && n.type != 32)
        return keyError(g, "type", _("an ipoib netdev has type 32"));
    auto ifindex = number(g, "ifindex", 0x7fffffff);
    if (!ifindex.ok())
        return std::move(ifindex).error();
    n.ifindex = static_cast<unsigned>(ifindex->value_or(0));
    n.address = lower(str(g, "address"));
    if (!n.address.empty() && !isHwAddress(n.address, n.type == 32 ? 20 : 6))
        return keyError(g, "address",
                        strprintf(_("not a %u-byte hardware address: “%s”"), n.type == 32 ? 20u : 6u, n.address.c_str()));
    auto mtu = number(g, "mtu", 65535);
    if (!mtu.ok())
        return std::move(mtu).error();
    n.mtu = static_cast<unsigned>(mtu->value_or(n.type == 32 ? 2044 : 1500));
    auto maxMtu = number(g, "max-mtu", 65535);
    if (!maxMtu.ok())
        return std::move(maxMtu).error();
    if (*maxMtu)
        st_.maxMtu[id] = static_cast<unsigned>(**maxMtu);
    auto originalMtu = number(g, "original-mtu", 65535);
    if (!originalMtu.ok())
        return std::move(originalMtu).error();
    if (*originalMtu)
        st_.originalMtu[id] = static_cast<unsigned>(**originalMtu);
    auto up = boolean(g, "up");
    if (!up.ok())
        return std::move(up).error();
    n.up = up->value_or(false);
    for (const auto &a : splitList(str(g, "addresses"))) {
        if (!isCidr(a))
            return keyError(g, "addresses", strprintf(_("not an address with a prefix length: “%s”"), a.c_str()));
        n.addresses.push_back(a);
    }
    for (const auto &r : splitList(str(g, "routes"))) {
        auto route = parseRoute(r);
        if (!route)
            return keyError(g, "routes",
                            strprintf(_("not a route (DEST/LEN [via GATEWAY] [metric N]): “%s”"), r.c_str()));
        n.routes.push_back(*route);
    }
    n.link = str(g, "link");
    if (n.kind == "vlan" && n.link.empty())
        return groupError(g, strprintf(_("missing key “%s”"), "link"));
    n.master = str(g, "master");
    if (has(g, "rdma-port"))
        rdmaPortRef_[id] = str(g, "rdma-port");

    // IPoIB: kind ipoib or InfiniBand hardware. A bond of IPoIB ports has
    // their link type (32) but is no IPoIB interface (no P_Key, no mode).
    if (n.type == 32 && (n.kind == "ipoib" || n.kind.empty())) {
        model::IpoibNetdev ib;
        ib.name = id;
        ib.parent = str(g, "parent");
        if (has(g, "pkey")) {
            std::string v = str(g, "pkey");
            auto pk = parseUnsigned(v, 0xffff);
            if (!pk || *pk == 0 || *pk == 0x8000)
                return keyError(g, "pkey", strprintf(_("not a valid P_Key: “%s”"), v.c_str()));
            ib.pkey = static_cast<uint16_t>(*pk | 0x8000);
        }
        if (has(g, "mode")) {
            std::string m = str(g, "mode");
            if (m == "datagram")
                ib.mode = IpoibMode::Datagram;
            else if (m == "connected")
                ib.mode = IpoibMode::Connected;
            else
                return choiceError(g, "mode", m, "datagram, connected");
        }
        auto umcast = boolean(g, "umcast");
        if (!umcast.ok())
            return std::move(umcast).error();
        ib.umcast = umcast->value_or(false);
        st_.host.ipoib.push_back(std::move(ib));
    } else if (n.kind != "bond" || n.type != 32) {
        // (A bond of type 32 may carry these keys: states written before
        // bonds were told from IPoIB interfaces have them. They mean nothing.)
        for (const char *k : {"parent", "pkey", "mode", "umcast"})
            if (has(g, k))
                return keyError(g, k, _("only IPoIB netdevs (type 32) take this key"));
    }
    for (const auto &other : st_.host.netdevs)
        if (n.ifindex != 0 && other.ifindex == n.ifindex)
            return keyError(g, "ifindex", strprintf(_("ifindex %u is taken by %s"), n.ifindex, other.name.c_str()));
    st_.host.netdevs.push_back(std::move(n));
    return {};
}

Status Parser::parseBond(const std::string &g, const std::string &id)
{
    // A bond is a netdev too (its [netdev] is written back): the same limit.
    if (id.size() > 15)
        return groupError(g, _("interface names have at most 15 characters"));
    model::Bond b;
    b.name = id;
    b.mode = str(g, "mode", "balance-rr");
    static const std::set<std::string> modes = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                                "802.3ad",    "balance-tlb",   "balance-alb"};
    if (!modes.count(b.mode))
        return choiceError(g, "mode", b.mode,
                           "balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb");
    auto miimon = number(g, "miimon", G_MAXINT);
    if (!miimon.ok())
        return std::move(miimon).error();
    b.miimon = static_cast<unsigned>(miimon->value_or(0));
    b.primary = str(g, "primary");
    b.activePort = str(g, "active-port");
    b.failOverMac = str(g, "fail-over-mac", "none");
    if (b.failOverMac != "none" && b.failOverMac != "active" && b.failOverMac != "follow")
        return choiceError(g, "fail-over-mac", b.failOverMac, "none, active, follow");
    st_.host.bonds.push_back(std::move(b));
    return {};
}

Status Parser::parseSoftLink(const std::string &g, const std::string &id)
{
    model::SoftLink l;
    l.name = id;
    std::string t = str(g, "type");
    if (t == "rxe")
        l.type = SoftLinkType::Rxe;
    else if (t == "siw")
        l.type = SoftLinkType::Siw;
    else
        return choiceError(g, "type", t, "rxe, siw");
    l.netdev = str(g, "netdev");
    const model::Netdev *nd = st_.host.findNetdev(l.netdev);
    if (nd == nullptr)
        return keyError(g, "netdev", strprintf(_("no [netdev %s] group"), l.netdev.c_str()));
    if (st_.host.findDevice(id) == nullptr)
        st_.host.devices.push_back(softLinkDevice(id, l.type, *nd));
    st_.host.softLinks.push_back(std::move(l));
    return {};
}

// References between groups, once all are read.
Status Parser::resolve()
{
    auto &h = st_.host;
    unsigned next = 1;
    for (const auto &n : h.netdevs)
        next = std::max(next, n.ifindex + 1);
    for (auto &n : h.netdevs) {
        std::string g = "netdev " + n.name;
        if (n.ifindex == 0)
            n.ifindex = next++;
        auto ref = rdmaPortRef_.find(n.name);
        if (ref != rdmaPortRef_.end()) {
            size_t slash = ref->second.rfind('/');
            std::string dev = slash == std::string::npos ? ref->second : ref->second.substr(0, slash);
            uint64_t port = 0;
            if (slash != std::string::npos)
                port = parseUnsigned(ref->second.substr(slash + 1), 255).value_or(0);
            const model::Device *d = h.findDevice(dev);
            if (d == nullptr || port == 0 || port > d->ports.size())
                return keyError(g, "rdma-port", strprintf(_("no RDMA port %s"), ref->second.c_str()));
            n.rdmaDevice = dev;
            n.rdmaPort = static_cast<unsigned>(port);
        }
        if (!n.link.empty() && h.findNetdev(n.link) == nullptr)
            return keyError(g, "link", strprintf(_("no [netdev %s] group"), n.link.c_str()));
        if (!n.master.empty()) {
            bool found = false;
            for (const auto &b : h.bonds)
                found = found || b.name == n.master;
            if (!found)
                return keyError(g, "master", strprintf(_("no [bond %s] group"), n.master.c_str()));
        }
        if (n.address.empty()) {
            // A stable, locally administered address derived from the name.
            guint hash = g_str_hash(n.name.c_str());
            n.address = strprintf("02:%02x:%02x:%02x:%02x:%02x", n.ifindex & 0xff, (hash >> 24) & 0xff,
                                  (hash >> 16) & 0xff, (hash >> 8) & 0xff, hash & 0xff);
            if (n.type == 32) {
                std::string guid = st_.portGuids.count(n.rdmaDevice + "/" + std::to_string(n.rdmaPort))
                                       ? st_.portGuids[n.rdmaDevice + "/" + std::to_string(n.rdmaPort)]
                                       : "0000:0000:0000:0000";
                const model::Device *d = h.findDevice(n.rdmaDevice);
                bool cm = d != nullptr && d->connectedModeSupported;
                std::string hex;
                for (char c : guid)
                    if (c != ':')
                        hex += c;
                n.address = strprintf("%s:fe:80:00:00:00:00:00:00", cm ? "80:00:02:08" : "00:00:10:49");
                for (size_t i = 0; i < 16; i += 2)
                    n.address += ":" + hex.substr(i, 2);
            }
        }
    }
    for (auto &ib : h.ipoib) {
        const model::Netdev *nd = h.findNetdev(ib.name);
        std::string g = "netdev " + ib.name;
        if (!ib.parent.empty()) {
            const model::IpoibNetdev *parent = h.findIpoib(ib.parent);
            if (parent == nullptr)
                return keyError(g, "parent", strprintf(_("no IPoIB [netdev %s] group"), ib.parent.c_str()));
        }
        if (nd != nullptr) {
            ib.mtu = nd->mtu;
            ib.address = nd->address;
            ib.portGuid = portGuidFromIpoibAddress(nd->address);
            const model::Device *d = h.findDevice(nd->rdmaDevice);
            if (ib.mode == IpoibMode::Connected && d != nullptr && !d->connectedModeSupported)
                return keyError(g, "mode", strprintf(_("%s does not support connected mode"), d->name.c_str()));
        }
    }
    // IB ports: GID 0 from the port GUID.
    for (auto &d : h.devices)
        for (auto &p : d.ports) {
            auto it = st_.portGuids.find(d.name + "/" + std::to_string(p.number));
            if (it != st_.portGuids.end() && p.gids.empty())
                p.gids.push_back({0, "fe80:0000:0000:0000:" + it->second, GidType::IbRoceV1, ""});
        }
    // Bonds have a netdev too.
    for (const auto &b : h.bonds) {
        if (h.findNetdev(b.name) == nullptr) {
            model::Netdev n;
            n.name = b.name;
            n.kind = "bond";
            n.type = 1;
            const model::Netdev *first = nullptr;
            for (const auto &port : h.netdevs)
                if (port.master == b.name && first == nullptr)
                    first = &port;
            n.mtu = 1500;
            n.ifindex = next++;
            if (first != nullptr && first->type == 32) {
                // A bond of IPoIB ports takes the link type and the 20-byte
                // address of its first port (the kernel's bond_setup_by_slave).
                n.type = first->type;
                n.address = first->address;
            } else {
                guint hash = g_str_hash(b.name.c_str());
                n.address = strprintf("02:%02x:%02x:%02x:%02x:%02x", n.ifindex & 0xff, (hash >> 24) & 0xff,
                                      (hash >> 16) & 0xff, (hash >> 8) & 0xff, hash & 0xff);
            }
            h.netdevs.push_back(std::move(n));
        }
    }
    return {};
}

std::string macToEui64Guid(const std::string &mac)
{
    unsigned m[6] = {};
    if (std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
        return "0000:0000:0000:0000";
    return strprintf("%02x%02x:%02xff:fe%02x:%02x%02x", m[0] ^ 0x02, m[1], m[2], m[3], m[4], m[5]);
}

} // namespace

std::string portGuidFromIpoibAddress(const std::string &address)
{
    if (!isHwAddress(address, 20))
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

Result<FakeState> parseHostDescription(const std::string &text, const std::string &fileName)
{
    return Parser(fileName).parse(text);
}

Result<std::string> readHostDescriptionText(const std::string &path)
{
    char *raw = nullptr;
    gsize len = 0;
    GError *err = nullptr;
    if (!g_file_get_contents(path.c_str(), &raw, &len, &err)) {
        GErrorPtr e(err);
        int errnum = e->domain == G_FILE_ERROR && e->code == G_FILE_ERROR_NOENT ? ENOENT
                     : e->domain == G_FILE_ERROR && e->code == G_FILE_ERROR_ACCES ? EACCES
                                                                                 : EIO;
        return Error::fromErrno(errnum, path);
    }
    GCharPtr text(raw);
    return std::string(text.get(), len);
}

Result<FakeState> loadHostDescription(const std::string &path)
{
    auto text = readHostDescriptionText(path);
    if (!text.ok())
        return std::move(text).error();
    return parseHostDescription(*text, path);
}

} // namespace ibnm::platform
