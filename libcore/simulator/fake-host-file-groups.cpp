// SPDX-License-Identifier: LGPL-2.1-or-later
// The groups of a host description, one reader each: [host], [device],
// [port DEVICE/N], [netdev NAME] (with its IPoIB keys), [bond NAME] and
// [soft-link NAME]; each checks its keys' values and adds
// its object to the state (fake-host-file.cpp calls them in order).
#include "config.h"

#include "libcore/simulator/fake-host-file-private.hpp"

#include "libcore/model/rdma.hpp"

#include <functional>
#include <set>

#include <arpa/inet.h>

namespace ibnm::platform {

using model::IpoibMode;
using model::LinkLayer;
using model::RoceMode;
using model::SoftLinkType;

namespace hostfile {

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
    auto resolved = boolean(g, "resolved");
    if (!resolved.ok())
        return std::move(resolved).error();
    st_.resolver.running = resolved->value_or(false);
    auto rdmaNetlink = boolean(g, "rdma-netlink");
    if (!rdmaNetlink.ok())
        return std::move(rdmaNetlink).error();
    st_.host.rdmaNetlink = rdmaNetlink->value_or(true);
    return {};
}

// egress-qos-map=FROM:TO;... (skb priority : 802.1Q priority 0-7, as `ip
// link set VLAN type vlan egress-qos-map 3:3`) and pfc=PRIO;... or none (the
// priorities DCB reports PFC on; no key: the netdev answers no DCB request).
Status Parser::parsePriorities(const std::string &g, model::Netdev &n)
{
    for (const auto &entry : splitList(str(g, "egress-qos-map"))) {
        guint64 from = 0, to = 0;
        auto colon = entry.find(':');
        if (colon == std::string::npos ||
            !g_ascii_string_to_unsigned(entry.substr(0, colon).c_str(), 10, 0, G_MAXUINT32, &from, nullptr) ||
            !g_ascii_string_to_unsigned(entry.substr(colon + 1).c_str(), 10, 0, model::kMaxPriority, &to, nullptr))
            return keyError(g, "egress-qos-map",
                            strprintf(_("not a mapping FROM:TO with TO from 0 to 7: “%s”"), entry.c_str()));
        n.egressQosMap[unsigned(from)] = unsigned(to);
    }
    if (!n.egressQosMap.empty() && n.kind != "vlan")
        return keyError(g, "egress-qos-map", _("only a VLAN has an egress-qos-map"));
    if (!has(g, "pfc"))
        return {};
    uint8_t bits = 0;
    std::string v = str(g, "pfc");
    for (const auto &prio : v == "none" ? std::vector<std::string>() : splitList(v)) {
        guint64 p = 0;
        if (!g_ascii_string_to_unsigned(prio.c_str(), 10, 0, model::kMaxPriority, &p, nullptr))
            return keyError(g, "pfc", strprintf(_("not a priority from 0 to 7: “%s”"), prio.c_str()));
        bits = uint8_t(bits | (1u << p));
    }
    n.pfcEnabled = bits;
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
        insertRoute(n.routes, std::move(*route));
    }
    // systemd-resolved's DNS for the link: servers are addresses.
    model::LinkDns dns{splitList(str(g, "dns")), splitList(str(g, "dns-search"))};
    for (const auto &a : dns.servers) {
        unsigned char bytes[16];
        if (inet_pton(AF_INET, a.c_str(), bytes) != 1 && inet_pton(AF_INET6, a.c_str(), bytes) != 1)
            return keyError(g, "dns", strprintf(_("not an IP address: “%s”"), a.c_str()));
    }
    if (!dns.empty())
        st_.resolver.links[id] = std::move(dns);
    n.link = str(g, "link");
    if (n.kind == "vlan" && n.link.empty())
        return groupError(g, strprintf(_("missing key “%s”"), "link"));
    n.master = str(g, "master");
    if (auto st = parsePriorities(g, n); !st)
        return st;
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
    if (n.ifindex != 0) {
        if (auto [other, fresh] = ifindexes_.emplace(n.ifindex, n.name); !fresh)
            return keyError(g, "ifindex", strprintf(_("ifindex %u is taken by %s"), n.ifindex, other->second.c_str()));
    }
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

} // namespace hostfile

} // namespace ibnm::platform
