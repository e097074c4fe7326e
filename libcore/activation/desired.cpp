// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/activation/desired.hpp"

#include "libcore/model/ipoib.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/profiles/profile-ip.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/netdev.hpp"
#include "libcore/model/rdma.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

namespace ibnm::activation {

namespace {

Origin originOf(NMConnection *c)
{
    const char *id = nm_connection_get_id(c);
    const char *uuid = nm_connection_get_uuid(c);
    return {id ? id : "", uuid ? uuid : ""};
}

std::vector<std::string> addressesOf(NMConnection *c)
{
    std::vector<std::string> out;
    for (NMSettingIPConfig *ip : {NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c)),
                                  NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c))}) {
        if (ip == nullptr)
            continue;
        const char *method = nm_setting_ip_config_get_method(ip);
        if (method == nullptr || std::string(method) != "manual")
            continue;
        for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(ip); i++) {
            NMIPAddress *a = nm_setting_ip_config_get_address(ip, i);
            // The kernel's text form ("2001:db8::1/64"), as the host reads
            // back: inet_ntop() of the binary address (what GInetAddress
            // would print, without an object per address).
            int family = nm_ip_address_get_family(a);
            guint8 bin[16];
            char text[INET6_ADDRSTRLEN];
            nm_ip_address_get_address_binary(a, bin);
            const char *shown = inet_ntop(family, bin, text, sizeof text);
            std::string entry = shown ? shown : nm_ip_address_get_address(a);
            entry += '/';
            entry += std::to_string(nm_ip_address_get_prefix(a));
            out.push_back(std::move(entry));
        }
    }
    return out;
}

// Whether the profile sets the family's addresses: method manual or disabled
// (NetworkManager then removes every other address of that family).
bool managesFamily(NMSettingIPConfig *ip)
{
    const char *method = ip ? nm_setting_ip_config_get_method(ip) : nullptr;
    return g_strcmp0(method, "manual") == 0 || g_strcmp0(method, "disabled") == 0;
}


// Static routes of manual IPv4/IPv6 settings, the gateway as a default route.
std::vector<model::Route> routesOf(NMConnection *c)
{
    std::vector<model::Route> out;
    for (NMSettingIPConfig *ip : {NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c)),
                                  NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c))}) {
        if (ip == nullptr || g_strcmp0(nm_setting_ip_config_get_method(ip), "manual") != 0)
            continue;
        bool v6 = NM_IS_SETTING_IP6_CONFIG(ip);
        gint64 metric = nm_setting_ip_config_get_route_metric(ip);
        unsigned defMetric = metric >= 0 ? unsigned(metric) : 0;
        if (const char *gw = nm_setting_ip_config_get_gateway(ip))
            out.push_back({v6 ? "::/0" : "0.0.0.0/0", gw, defMetric});
        for (guint i = 0; i < nm_setting_ip_config_get_num_routes(ip); i++) {
            NMIPRoute *r = nm_setting_ip_config_get_route(ip, i);
            model::Route route;
            route.dest = strprintf("%s/%u", nm_ip_route_get_dest(r), nm_ip_route_get_prefix(r));
            if (const char *hop = nm_ip_route_get_next_hop(r))
                route.gateway = hop;
            gint64 m = nm_ip_route_get_metric(r);
            route.metric = m >= 0 ? unsigned(m) : defMetric;
            out.push_back(std::move(route));
        }
    }
    return out;
}

} // namespace

bool needsResolver(const Desired &d)
{
    for (const auto &x : d.ipoib)
        if (!x.ip->dns.empty())
            return true;
    for (const auto &x : d.bonds)
        if (!x.ip->dns.empty())
            return true;
    for (const auto &x : d.ethernet)
        if (!x.ip->dns.empty())
            return true;
    return false;
}

namespace {

DesiredIp ipOf(NMConnection *c)
{
    DesiredIp ip;
    ip.dns = profiles::dnsOf(c);
    ip.addresses = addressesOf(c);
    // With the host route to each gateway no subnet of the profile reaches,
    // before the routes through it, as NetworkManager adds them
    // (model::withOnlinkRoutes): `up` adds them, its undo and `down`
    // remove them with the rest.
    ip.routes = model::withOnlinkRoutes(ip.addresses, routesOf(c));
    ip.manage4 = managesFamily(NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c)));
    ip.manage6 = managesFamily(NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c)));
    return ip;
}

// A port's: NetworkManager removes every address of a device that becomes
// a bond port, those it had before included (FACTS.md, the kernel lab's
// guest), and a port profile has no IP settings.
DesiredIp portIp()
{
    DesiredIp ip;
    ip.manage4 = true;
    ip.manage6 = true;
    return ip;
}

// The interface a connection names, or that its master reference names.
std::string masterInterface(NMConnection *c, const ProfileIndex &index)
{
    NMSettingConnection *sc = nm_connection_get_setting_connection(c);
    const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
    if (master == nullptr || *master == '\0')
        return {};
    if (NMConnection *o = index.findMaster(master)) {
        const char *ifname = nm_connection_get_interface_name(o);
        return ifname ? ifname : master;
    }
    return master; // an interface name, as NetworkManager also accepts
}

unsigned parseUnsigned(const char *v, unsigned fallback)
{
    if (v == nullptr || *v == '\0')
        return fallback;
    char *end = nullptr;
    unsigned long n = std::strtoul(v, &end, 10);
    return (end && *end == '\0') ? unsigned(n) : fallback;
}

// The profile `origin` has no connection.interface-name; `why` says what
// needs it.
Error missingInterfaceName(const char *why, const Origin &origin)
{
    return Error(IBNM_ERROR_MISSING_PROPERTY, why).withProperty("connection.interface-name").withProfile(origin.id);
}

} // namespace

bool DesiredIp::manages(const std::string &cidr) const
{
    if (cidr.find(':') == std::string::npos)
        return manage4;
    // The kernel's own link-local address stays.
    return manage6 && g_ascii_strncasecmp(cidr.c_str(), "fe80:", 5) != 0;
}

CompactIp &CompactIp::operator=(DesiredIp ip)
{
    manage4_ = ip.manage4;
    manage6_ = ip.manage6;
    if (ip.addresses.empty() && ip.routes.empty() && ip.dns.empty())
        full_.reset();
    else
        full_ = std::make_unique<DesiredIp>(std::move(ip));
    return *this;
}

const DesiredIp &CompactIp::get() const &
{
    if (full_)
        return *full_;
    // Never destroyed: a plan may still be read on another thread (an
    // asynchronous apply) while the process exits.
    static const DesiredIp *const empty = [] {
        auto *e = new DesiredIp[4];
        e[1].manage6 = true;
        e[2].manage4 = true;
        e[3].manage4 = e[3].manage6 = true;
        return e;
    }();
    return empty[(manage4_ ? 2 : 0) + (manage6_ ? 1 : 0)];
}

namespace {

// Where `ref` starts probing: g_str_hash() mixed (its low bits alone
// cluster names that differ in their last characters, ib0.8002, ib0.8003).
size_t firstSlot(const char *ref, size_t mask)
{
    uint32_t h = g_str_hash(ref);
    h ^= h >> 16;
    h *= 0x45d9f3bu;
    h ^= h >> 16;
    return h & mask;
}

} // namespace

const char *ProfileIndex::refOf(uint32_t slot) const
{
    NMConnection *o = all_[slot / 3];
    switch (slot % 3) {
    case 0:
        return nm_connection_get_uuid(o);
    case 1:
        return nm_connection_get_id(o);
    default:
        return nm_connection_get_interface_name(o);
    }
}

ProfileIndex::ProfileIndex(const std::vector<NMConnection *> &all) : all_(all)
{
    if (all.size() > (UINT32_MAX - 1) / 3)
        throw std::length_error("too many profiles");
    size_t size = 16;
    while (size < all.size() * 3 * 2)
        size *= 2;
    slots_.assign(size, 0);
    const size_t mask = size - 1;
    for (size_t i = 0; i < all.size(); i++) {
        NMConnection *o = all[i];
        for (uint32_t which = 0; which < 3; which++) {
            uint32_t slot = uint32_t(i * 3 + which);
            const char *ref = refOf(slot);
            if (ref == nullptr)
                continue;
            // Linear probing; a string already there keeps its first
            // profile.
            for (size_t at = firstSlot(ref, mask);; at = (at + 1) & mask) {
                if (slots_[at] == 0) {
                    slots_[at] = slot + 1;
                    break;
                }
                if (std::strcmp(refOf(slots_[at] - 1), ref) == 0)
                    break;
            }
        }
        NMSettingConnection *sc = nm_connection_get_setting_connection(o);
        const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
        if (master != nullptr && g_strcmp0(nm_connection_get_connection_type(o), NM_SETTING_WIRED_SETTING_NAME) == 0 &&
            g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) == 0)
            portsByMaster_[master].push_back(i);
    }
}

NMConnection *ProfileIndex::findMaster(const std::string &ref) const
{
    const size_t mask = slots_.size() - 1;
    for (size_t at = firstSlot(ref.c_str(), mask); slots_[at] != 0; at = (at + 1) & mask)
        if (ref == refOf(slots_[at] - 1))
            return all_[(slots_[at] - 1) / 3];
    return nullptr;
}

std::vector<NMConnection *> ProfileIndex::ethernetPorts(NMConnection *bond) const
{
    std::vector<size_t> at;
    for (const char *ref : {nm_connection_get_interface_name(bond), nm_connection_get_uuid(bond),
                            nm_connection_get_id(bond)}) {
        if (!ref)
            continue;
        if (auto it = portsByMaster_.find(ref); it != portsByMaster_.end())
            at.insert(at.end(), it->second.begin(), it->second.end());
    }
    std::sort(at.begin(), at.end());
    at.erase(std::unique(at.begin(), at.end()), at.end());
    std::vector<NMConnection *> out;
    for (size_t i : at)
        out.push_back(all_[i]);
    return out;
}

namespace {

// placeSecondaries(): a copy of `secondary` whose interface is `ifname`,
// added to `expanded` unless that pair is there already.
void placeOn(NMConnection *secondary, const std::string &ifname, std::vector<NMConnection *> &expanded,
             std::vector<GObjectPtr<NMConnection>> &placed)
{
    for (const auto &p : placed)
        if (g_strcmp0(nm_connection_get_uuid(p.get()), nm_connection_get_uuid(secondary)) == 0 &&
            ifname == nm_connection_get_interface_name(p.get()))
            return;
    auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(secondary));
    g_object_set(nm_connection_get_setting_connection(copy.get()), NM_SETTING_CONNECTION_INTERFACE_NAME,
                 ifname.c_str(), nullptr);
    expanded.push_back(copy.get());
    placed.push_back(std::move(copy));
}

bool listsSecondary(NMConnection *base, const char *uuid)
{
    NMSettingConnection *sc = nm_connection_get_setting_connection(base);
    guint n = sc ? nm_setting_connection_get_num_secondaries(sc) : 0;
    for (guint i = 0; i < n; i++)
        if (uuid && g_strcmp0(nm_setting_connection_get_secondary(sc, i), uuid) == 0)
            return true;
    return false;
}

} // namespace

Status placeSecondaries(const std::vector<NMConnection *> &selected, const std::vector<NMConnection *> &all,
                        const ProfileIndex &index, bool standalone, std::vector<NMConnection *> &expanded,
                        std::vector<GObjectPtr<NMConnection>> &placed)
{
    for (NMConnection *c : selected) {
        const char *ifname = nm_connection_get_interface_name(c);
        if (!userkeys::isSecondary(c)) {
            NMSettingConnection *sc = nm_connection_get_setting_connection(c);
            guint n = sc ? nm_setting_connection_get_num_secondaries(sc) : 0;
            for (guint i = 0; i < n; i++) {
                NMConnection *s = index.findMaster(nm_setting_connection_get_secondary(sc, i));
                if (s == nullptr || !userkeys::isSecondary(s))
                    continue;
                if (ifname == nullptr)
                    return missingInterfaceName(
                        _("its RDMA secondary is provisioned on the profile's interface; the profile names none"),
                        originOf(c));
                placeOn(s, ifname, expanded, placed);
            }
            continue;
        }
        if (ifname != nullptr)
            continue; // on the device it names (nm-ibnm-service's copy)
        bool based = false;
        for (NMConnection *b : all) {
            const char *bif = nm_connection_get_interface_name(b);
            if (b == c || !bif || userkeys::isSecondary(b) || !listsSecondary(b, nm_connection_get_uuid(c)))
                continue;
            placeOn(c, bif, expanded, placed);
            based = true;
        }
        if (!based && standalone)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         _("an RDMA secondary is provisioned on the device of the profile that lists it in "
                           "connection.secondaries, and no profile does"))
                .withProperty("connection.secondaries")
                .withProfile(originOf(c).id);
    }
    return {};
}

namespace {

// Stage 1, bonds' ports: a bond profile with rdma.* keys brings its
// Ethernet ports with it: its RDMA device (RoCE LAG,
// model::predictRoceLag) exists only once they are its ports.
std::vector<NMConnection *> withRoceLagPorts(const std::vector<NMConnection *> &selected, const ProfileIndex &index)
{
    std::vector<NMConnection *> expanded = selected;
    for (NMConnection *b : selected) {
        if (g_strcmp0(nm_connection_get_connection_type(b), NM_SETTING_BOND_SETTING_NAME) != 0)
            continue;
        auto options = userkeys::parse(b);
        if (!options.ok() || !(options->roceMode || options->roceTos || options->trafficClass ||
                               !options->tcRules.empty() || options->roceEnable || options->ttl))
            continue;
        for (NMConnection *p : index.ethernetPorts(b))
            if (std::find(expanded.begin(), expanded.end(), p) == expanded.end())
                expanded.push_back(p);
    }
    return expanded;
}

// Each list sized once: a plan of every profile of a large store grew
// them step by step, copying and faulting in megabytes.
void reserveLists(Desired &d, const std::vector<NMConnection *> &expanded, bool withIp)
{
    size_t ipoibs = 0, bonds = 0, ethernets = 0, rdmas = 0;
    for (NMConnection *c : expanded) {
        const char *type = nm_connection_get_connection_type(c);
        ipoibs += g_strcmp0(type, NM_SETTING_INFINIBAND_SETTING_NAME) == 0;
        bonds += g_strcmp0(type, NM_SETTING_BOND_SETTING_NAME) == 0;
        ethernets += g_strcmp0(type, NM_SETTING_WIRED_SETTING_NAME) == 0;
        // At most one DesiredRdma each: an RDMA secondary, or a profile
        // with an rdma.* key (the keys themselves are parsed below).
        rdmas += userkeys::isSecondary(c) || userkeys::hasRdmaKey(c);
    }
    d.ipoib.reserve(ipoibs);
    d.bonds.reserve(bonds);
    if (withIp)
        d.ethernet.reserve(ethernets);
    // Sized once too: grown by doubling, the old and the new room of 2,000
    // RDMA profiles were 1.4 MB at once (`ibnm check`'s plan of 10,000).
    d.rdma.reserve(rdmas);
}

// What the stages of one profile share.
struct ProfileInput {
    NMConnection *c;
    const Origin &origin;
    const std::string &ifname;
    const userkeys::Options &options;
    const ProfileIndex &index;
    bool withIp;
    bool standalone;
};

// Stage 2, an infiniband profile: the P_Key child (which needs a parent)
// or the base interface (by name or MAC address), mode, MTU, umcast,
// bond, addresses; DHCP is refused in standalone mode.
Status resolveIpoib(const ProfileInput &in, Desired &d)
{
    const Origin &origin = in.origin;
    NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(in.c);
    if (ib == nullptr)
        return Error(IBNM_ERROR_MISSING_PROPERTY, _("the profile has no infiniband setting")).withProfile(origin.id);
    DesiredIpoib x;
    x.origin = origin;
    const char *tm = nm_setting_infiniband_get_transport_mode(ib);
    x.mode = model::modeFromName(tm).value_or(model::IpoibMode::Datagram);
    x.mtu = nm_setting_infiniband_get_mtu(ib);
    x.umcast = in.options.umcast;
    int pkey = nm_setting_infiniband_get_p_key(ib);
    if (pkey >= 0) {
        const char *parent = nm_setting_infiniband_get_parent(ib);
        if (parent == nullptr)
            return Error(IBNM_ERROR_MISSING_PROPERTY, _("a P_Key child needs a parent interface to be created"))
                .withProperty("infiniband.parent")
                .withProfile(origin.id);
        x.parent = parent;
        x.pkey = uint16_t(pkey);
        const char *virt = nm_setting_infiniband_get_virtual_interface_name(ib);
        x.ifname = in.ifname.empty() ? (virt ? virt : "") : in.ifname;
    } else {
        x.ifname = in.ifname;
        const char *mac = nm_setting_infiniband_get_mac_address(ib);
        x.macAddress = mac ? mac : "";
        if (x.ifname.empty() && x.macAddress.empty())
            return missingInterfaceName(_("neither an interface name nor a MAC address names the device"), origin);
    }
    x.master = masterInterface(in.c, in.index);
    if (in.withIp)
        x.ip = x.master.empty() ? ipOf(in.c) : portIp();
    // DHCP over IPoIB needs a client that sends the client identifier
    // derived from the port GUID (model::dhcpClientId); NetworkManager's
    // does, ibnm has none.
    if (in.standalone && in.withIp && x.master.empty() && profiles::wantsDhcp(in.c))
        return Error(IBNM_ERROR_NOT_SUPPORTED, profiles::dhcpRefusal())
            .withProperty("ipv4.method")
            .withProfile(origin.id);
    d.ipoib.push_back(std::move(x));
    return {};
}

// Stage 3, a bond profile: its name (required), mode, miimon, primary,
// fail_over_mac, MTU (infiniband or wired) and addresses.
Status resolveBond(const ProfileInput &in, Desired &d)
{
    NMSettingBond *b = nm_connection_get_setting_bond(in.c);
    DesiredBond x;
    x.origin = in.origin;
    x.ifname = in.ifname;
    if (x.ifname.empty())
        return missingInterfaceName(_("a bond needs an interface name"), in.origin);
    if (b) {
        if (const char *m = nm_setting_bond_get_option_by_name(b, NM_SETTING_BOND_OPTION_MODE))
            x.mode = model::bondModeName(m);
        if (const char *m = nm_setting_bond_get_option_by_name(b, NM_SETTING_BOND_OPTION_MIIMON))
            x.miimon = parseUnsigned(m, 100);
        if (const char *p = nm_setting_bond_get_option_by_name(b, NM_SETTING_BOND_OPTION_PRIMARY))
            x.primary = p;
        if (const char *f = nm_setting_bond_get_option_by_name(b, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC))
            x.failOverMac = model::failOverMacName(f);
    }
    if (NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(in.c)) {
        x.mtu = nm_setting_infiniband_get_mtu(ib);
        x.mtuProperty = "infiniband.mtu";
    } else if (NMSettingWired *w = nm_connection_get_setting_wired(in.c))
        x.mtu = nm_setting_wired_get_mtu(w);
    if (in.withIp)
        x.ip = ipOf(in.c);
    d.bonds.push_back(std::move(x));
    return {};
}

// Stage 4, an Ethernet profile (standalone only: with NetworkManager it
// configures the interface itself): its name (required), MTU, bond and
// addresses, as NetworkManager would.
Status resolveEthernet(const ProfileInput &in, Desired &d)
{
    DesiredEthernet x;
    x.origin = in.origin;
    x.ifname = in.ifname;
    if (x.ifname.empty())
        return missingInterfaceName(_("ibnm finds an Ethernet interface by its name; the profile has none"),
                                    in.origin);
    if (NMSettingWired *w = nm_connection_get_setting_wired(in.c))
        x.mtu = nm_setting_wired_get_mtu(w);
    x.master = masterInterface(in.c, in.index);
    x.ip = x.master.empty() ? ipOf(in.c) : portIp();
    d.ethernet.push_back(std::move(x));
    return {};
}

// Stage 5, the rdma.* keys of any profile: on the profile's interface
// (required), a soft link (named by default after it) and the RoCE and
// traffic class settings.
Status resolveRdma(const ProfileInput &in, Desired &d)
{
    const userkeys::Options &options = in.options;
    if (!(options.linkType || options.roceMode || options.roceTos || options.trafficClass ||
          !options.tcRules.empty() || options.roceEnable || options.ttl))
        return {};
    DesiredRdma r;
    r.origin = in.origin;
    r.netdev = in.ifname;
    if (r.netdev.empty())
        return missingInterfaceName(_("RDMA options need the profile's interface name to find the device"),
                                    in.origin);
    r.linkType = options.linkType;
    if (r.linkType)
        r.linkName = options.linkName ? *options.linkName : model::defaultSoftLinkName(*r.linkType, r.netdev);
    r.roceMode = options.roceMode;
    r.roceTos = options.roceTos;
    r.trafficClass = options.trafficClass;
    r.tcRules = options.tcRules;
    r.roceEnable = options.roceEnable;
    r.ttl = options.ttl;
    d.rdma.push_back(std::move(r));
    return {};
}

} // namespace

// The stages in order: the profiles (with bonds' ports and RDMA
// secondaries), then each profile by its type, then its rdma.* keys.
Result<Desired> resolve(const std::vector<NMConnection *> &selected, const std::vector<NMConnection *> &all,
                        bool withIp, bool standalone, const ProfileIndex *shared)
{
    std::optional<ProfileIndex> own;
    if (shared == nullptr)
        own.emplace(all);
    const ProfileIndex &index = shared ? *shared : *own;
    Desired d;
    std::vector<NMConnection *> expanded = withRoceLagPorts(selected, index);
    // RDMA secondaries where NetworkManager activates them, on their base
    // profile's interface (connection.secondaries): standalone ibnm brings a
    // base's secondaries up and down with it, and a secondary itself on each
    // of its bases' interfaces (not with NetworkManager, whose VPN service
    // does that: withIp false). Each (secondary, interface) once.
    std::vector<GObjectPtr<NMConnection>> placed;
    if (withIp)
        if (auto st = placeSecondaries(selected, all, index, standalone, expanded, placed); !st)
            return std::move(st).error();
    reserveLists(d, expanded, withIp);
    for (NMConnection *c : expanded) {
        Origin origin = originOf(c);
        const char *type = nm_connection_get_connection_type(c);
        const char *ifnameC = nm_connection_get_interface_name(c);
        std::string ifname = ifnameC ? ifnameC : "";

        auto options = userkeys::parse(c);
        if (!options.ok())
            return std::move(options).error().withProfile(origin.id);
        // An RDMA secondary has no device of its own: it is resolved on its
        // base profile's, named as its interface (nm-ibnm-service, and
        // rules::checkSecondaries()).
        if (userkeys::isSecondary(c) && ifname.empty())
            continue;
        ProfileInput in{c, origin, ifname, *options, index, withIp, standalone};
        Status st;
        if (g_strcmp0(type, NM_SETTING_INFINIBAND_SETTING_NAME) == 0)
            st = resolveIpoib(in, d);
        else if (g_strcmp0(type, NM_SETTING_BOND_SETTING_NAME) == 0)
            st = resolveBond(in, d);
        else if (g_strcmp0(type, NM_SETTING_WIRED_SETTING_NAME) == 0 && withIp)
            st = resolveEthernet(in, d);
        if (!st.ok())
            return std::move(st).error();
        if (Status r = resolveRdma(in, d); !r.ok())
            return std::move(r).error();
    }
    return d;
}

} // namespace ibnm::activation
