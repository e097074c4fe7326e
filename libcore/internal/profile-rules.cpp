// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/internal/profile-rules.hpp"

#include "libcore/internal/i18n.hpp"
#include "libcore/internal/nmcli-args.hpp"
#include "libcore/internal/strings.hpp"
#include "libcore/internal/user-keys.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <optional>

namespace ibnm::rules {

namespace {

constexpr size_t kIfNameMax = 15; // IFNAMSIZ - 1
constexpr uint16_t kFullMembership = 0x8000;

std::string str(const char *s)
{
    return s ? s : "";
}

std::string idOf(NMConnection *c)
{
    return str(nm_connection_get_id(c));
}

std::string typeOf(NMConnection *c)
{
    return str(nm_connection_get_connection_type(c));
}

std::string ifnameOf(NMConnection *c)
{
    return str(nm_connection_get_interface_name(c));
}

NMSettingConnection *sCon(NMConnection *c)
{
    return nm_connection_get_setting_connection(c);
}

std::string slaveTypeOf(NMConnection *c)
{
    return sCon(c) ? str(nm_setting_connection_get_slave_type(sCon(c))) : "";
}

std::string masterOf(NMConnection *c)
{
    return sCon(c) ? str(nm_setting_connection_get_master(sCon(c))) : "";
}

Finding make(NMConnection *c, std::string property, IbnmSeverity severity, std::string message,
             std::string hint = {})
{
    return Finding{idOf(c), std::move(property), severity, std::move(message), std::move(hint)};
}

// The IPoIB netdev whose port GUID (the last 8 of the 20 address bytes, the
// only stable part) is that of `mac`; empty when none.
std::string netdevByMac(const model::Host *host, const char *mac)
{
    constexpr size_t kLen = 20, kGuid = 8;
    guint8 want[kLen];
    if (host == nullptr || mac == nullptr || !nm_utils_hwaddr_aton(mac, want, kLen))
        return {};
    for (const auto &n : host->ipoib) {
        guint8 have[kLen];
        if (nm_utils_hwaddr_aton(n.address.c_str(), have, kLen) &&
            memcmp(want + kLen - kGuid, have + kLen - kGuid, kGuid) == 0)
            return n.parent.empty() ? n.name : n.parent;
    }
    return {};
}

// The netdev an IPoIB profile runs on: the parent of a P_Key child, else the
// profile's own interface; a profile naming neither is found by its MAC.
std::string baseNetdev(NMConnection *c, NMSettingInfiniband *ib, const model::Host *host, std::string *property)
{
    std::string name;
    if (nm_setting_infiniband_get_p_key(ib) != -1) {
        *property = "infiniband.parent";
        name = str(nm_setting_infiniband_get_parent(ib));
    } else {
        *property = "connection.interface-name";
        name = ifnameOf(c);
    }
    if (name.empty()) {
        name = netdevByMac(host, nm_setting_infiniband_get_mac_address(ib));
        if (!name.empty())
            *property = "infiniband.mac-address";
    }
    return name;
}

struct PortOnHost {
    const model::Netdev *netdev = nullptr;
    const model::Device *device = nullptr;
    const model::Port *port = nullptr;
};

PortOnHost lookup(const model::Host &host, const std::string &netdev)
{
    PortOnHost r;
    r.netdev = host.findNetdev(netdev);
    if (r.netdev == nullptr || r.netdev->rdmaDevice.empty())
        return r;
    r.device = host.findDevice(r.netdev->rdmaDevice);
    if (r.device == nullptr)
        return r;
    for (const auto &p : r.device->ports)
        if (p.number == r.netdev->rdmaPort)
            r.port = &p;
    return r;
}

void checkMtu(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at, std::vector<Finding> &out)
{
    guint32 mtu = nm_setting_infiniband_get_mtu(ib);
    if (at.port == nullptr || !at.port->activeMtu)
        return;
    unsigned linkMtu = *at.port->activeMtu;
    unsigned datagramMax = linkMtu - 4;
    bool connectedOk = at.device && at.device->connectedModeSupported && !at.device->enhancedIpoib;
    if (mtu > datagramMax) {
        std::string hint =
            connectedOk
                ? strprintf(_("Lower infiniband.mtu to %u or less, or use connected mode "
                              "(infiniband.transport-mode connected)."),
                            datagramMax)
                : strprintf(_("Lower infiniband.mtu to %u or less (this device has no connected mode)."),
                            datagramMax);
        out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_ERROR,
                           strprintf(_("infiniband.mtu: %u exceeds the datagram maximum %u (IB link MTU %u - 4)"),
                                     mtu, datagramMax, linkMtu),
                           hint));
        return;
    }
    if (!at.port->broadcastMtu || *at.port->broadcastMtu < 4)
        return;
    unsigned groupMax = *at.port->broadcastMtu - 4;
    unsigned requested = mtu != 0 ? mtu : datagramMax;
    if (requested <= groupMax)
        return;
    if (mtu != 0)
        out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_WARNING,
                           strprintf(_("infiniband.mtu: the kernel uses %u, not %u: the partition's broadcast "
                                       "group has MTU %u (the kernel clamps silently)"),
                                     groupMax, mtu, *at.port->broadcastMtu),
                           strprintf(_("Set infiniband.mtu %u, or raise the partition's MTU in the subnet "
                                       "manager (OpenSM partitions.conf: mtu=5 is 4096)."),
                                     groupMax)));
    else
        out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_INFO,
                           strprintf(_("infiniband.mtu: the effective MTU is %u (the partition's broadcast group "
                                       "MTU %u - 4), less than the link allows (%u)"),
                                     groupMax, *at.port->broadcastMtu, datagramMax)));
}

void checkTransportMode(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at,
                        std::vector<Finding> &out)
{
    if (g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "connected") != 0 || at.device == nullptr)
        return;
    std::string message;
    if (at.device->enhancedIpoib)
        message = strprintf(_("infiniband.transport-mode: %s uses Enhanced IPoIB, which supports datagram "
                              "mode only"),
                            at.device->name.c_str());
    else if (!at.device->connectedModeSupported)
        message = strprintf(_("infiniband.transport-mode: connected mode is not available on %s (the kernel "
                              "has no IPoIB connected mode)"),
                            at.device->name.c_str());
    else
        return;
    std::string hint = at.port && at.port->activeMtu
                           ? strprintf(_("Set infiniband.transport-mode datagram and infiniband.mtu %u or less."),
                                       *at.port->activeMtu - 4)
                           : std::string(_("Set infiniband.transport-mode datagram."));
    out.push_back(make(c, "infiniband.transport-mode", IBNM_SEVERITY_ERROR, message, hint));
}

void checkPkey(NMConnection *c, NMSettingInfiniband *ib, const model::Host *host, const PortOnHost &at,
               std::vector<Finding> &out)
{
    int pkey = nm_setting_infiniband_get_p_key(ib);
    if (pkey == -1)
        return;
    std::string parent = str(nm_setting_infiniband_get_parent(ib));
    if (at.port != nullptr && !at.port->pkeys.empty()) {
        bool found = std::any_of(at.port->pkeys.begin(), at.port->pkeys.end(),
                                 [&](uint16_t e) { return (e & 0x7fff) == (pkey & 0x7fff); });
        if (!found)
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_WARNING,
                               strprintf(_("infiniband.p-key: 0x%04x is not in the P_Key table of %s port %u; "
                                           "the child is created but carries no traffic"),
                                         unsigned(pkey), at.device->name.c_str(), at.port->number),
                               strprintf(_("The subnet manager must add the partition (OpenSM partitions.conf: "
                                           "0x%04x, ipoib : ALL=full;)."),
                                         unsigned(pkey & 0x7fff))));
    }
    if (parent.empty())
        return;
    auto naming = host ? host->childNaming : model::ChildNaming::Upstream;
    std::string kernelName = kernelChildName(parent, pkey, naming);
    std::string nmName = nmChildName(parent, pkey);
    if (!(pkey & kFullMembership)) {
        bool mismatch = kernelName != nmName && nm_connection_get_interface_name(c) == nullptr;
        std::string message =
            host ? strprintf(_("infiniband.p-key: 0x%04x has the full-membership bit clear; the kernel uses 0x%04x "
                               "and names the child '%s' on this host"),
                             unsigned(pkey), unsigned(pkey | kFullMembership), kernelName.c_str())
                 : strprintf(_("infiniband.p-key: 0x%04x has the full-membership bit clear; the kernel uses "
                               "0x%04x"),
                             unsigned(pkey), unsigned(pkey | kFullMembership));
        std::string hint;
        if (mismatch)
            hint = strprintf(_("NetworkManager looks for '%s'; use p-key 0x%04x so the names agree."),
                             nmName.c_str(), unsigned(pkey | kFullMembership));
        out.push_back(make(c, "infiniband.p-key", mismatch ? IBNM_SEVERITY_WARNING : IBNM_SEVERITY_INFO,
                           message, hint));
    }
    std::string untruncated = strprintf("%s.%04x", parent.c_str(), unsigned(pkey));
    if (untruncated.size() > kIfNameMax && nm_connection_get_interface_name(c) == nullptr)
        out.push_back(make(c, "connection.interface-name", IBNM_SEVERITY_INFO,
                           strprintf(_("connection.interface-name: the kernel cuts '%s' to 15 characters: '%s'"),
                                     untruncated.c_str(), nmName.c_str())));
}

std::string bondOption(NMConnection *c, const char *name)
{
    auto *bond = nm_connection_get_setting_bond(c);
    return bond ? str(nm_setting_bond_get_option_by_name(bond, name)) : "";
}

// The MTU a profile sets on its interface (0: automatic).
guint32 profileMtu(NMConnection *c, std::string *property)
{
    if (auto *ib = nm_connection_get_setting_infiniband(c); ib && nm_setting_infiniband_get_mtu(ib)) {
        *property = "infiniband.mtu";
        return nm_setting_infiniband_get_mtu(ib);
    }
    if (auto *wired = nm_connection_get_setting_wired(c); wired && nm_setting_wired_get_mtu(wired)) {
        *property = "802-3-ethernet.mtu";
        return nm_setting_wired_get_mtu(wired);
    }
    return 0;
}

// Rule 5: ibnm's [user] options that the kernel refuses together whatever
// the host, so that activation is bound to fail and roll back. One row a
// refusal: the option the message names and when it applies.
struct OptionConflict {
    const char *property;
    bool (*applies)(const userkeys::Options &);
    const char *message; // N_(): starts with the property
    const char *hint;    // N_()
};

const OptionConflict kOptionConflicts[] = {
    // rxe's ports have RoCE v2 GIDs only: the kernel refuses the RDMA-CM
    // default mode "IB/RoCE v1" with EINVAL (tests/kernel:
    // KernelRefusalOfRoceV1RollsBackTheLink).
    {"rdma.roce-mode",
     [](const userkeys::Options &o) {
         return o.linkType == model::SoftLinkType::Rxe && o.roceMode == model::RoceMode::V1;
     },
     N_("rdma.roce-mode: an rxe (Soft-RoCE) link has RoCE v2 only; the kernel refuses v1 (IB/RoCE v1) at "
        "activation"),
     N_("Set rdma.roce-mode v2, or remove it (rxe uses RoCE v2).")},
    // siw is iWARP: its GIDs are "IB/RoCE v1"-typed MAC GIDs and the kernel
    // refuses the default mode "RoCE v2" with EINVAL (platform contract:
    // SiwRefusesRoceV2, on Debian's kernel in the kernel lab).
    {"rdma.roce-mode",
     [](const userkeys::Options &o) {
         return o.linkType == model::SoftLinkType::Siw && o.roceMode == model::RoceMode::V2;
     },
     N_("rdma.roce-mode: a siw (Soft-iWARP) link is iWARP, not RoCE; the kernel refuses RoCE v2 at activation"),
     N_("Remove rdma.roce-mode: RoCE modes do not apply to iWARP.")},
};

} // namespace

std::string nmChildName(const std::string &parent, int pkey)
{
    return strprintf("%s.%04x", parent.c_str(), unsigned(pkey)).substr(0, kIfNameMax);
}

std::string kernelChildName(const std::string &parent, int pkey, model::ChildNaming naming)
{
    unsigned value = unsigned(pkey);
    if (naming == model::ChildNaming::FullMembershipBit)
        value |= kFullMembership;
    return strprintf("%s.%04x", parent.c_str(), value).substr(0, kIfNameMax);
}

std::vector<Finding> checkNetworkManager(NMConnection *profile)
{
    auto st = nmcli::verify(profile);
    if (st)
        return {};
    const std::string &message = st.error().message();
    std::string property;
    auto colon = message.find(": ");
    if (colon != std::string::npos && message.substr(0, colon).find('.') != std::string::npos &&
        message.substr(0, colon).find(' ') == std::string::npos)
        property = message.substr(0, colon);
    return {make(profile, property, IBNM_SEVERITY_ERROR, message)};
}

std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host)
{
    std::vector<Finding> out;
    auto *ib = nm_connection_get_setting_infiniband(profile);
    if (ib == nullptr || typeOf(profile) != NM_SETTING_INFINIBAND_SETTING_NAME)
        return out;
    std::string property;
    std::string netdev = baseNetdev(profile, ib, host, &property);
    PortOnHost at;
    if (host == nullptr) {
        out.push_back(make(profile, property, IBNM_SEVERITY_INFO,
                           strprintf(_("%s: no inventory of the host; the host checks were skipped"),
                                     property.c_str())));
    } else if (netdev.empty()) {
        out.push_back(make(profile, property, IBNM_SEVERITY_INFO,
                           strprintf(_("%s: the profile names no interface; the host checks were skipped"),
                                     property.c_str())));
    } else {
        at = lookup(*host, netdev);
        if (at.port == nullptr)
            out.push_back(make(profile, property, IBNM_SEVERITY_INFO,
                               strprintf(_("%s: '%s' is not an IPoIB interface of this host; the host checks "
                                           "were skipped"),
                                         property.c_str(), netdev.c_str())));
    }
    checkTransportMode(profile, ib, at, out);
    if (g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "datagram") == 0)
        checkMtu(profile, ib, at, out);
    checkPkey(profile, ib, host, at, out);
    return out;
}

std::vector<Finding> checkOptions(NMConnection *profile)
{
    std::vector<Finding> out;
    // A value that does not parse is refused where the profile is read.
    auto options = userkeys::parse(profile);
    if (!options)
        return out;
    for (const auto &c : kOptionConflicts)
        if (c.applies(*options))
            out.push_back(make(profile, c.property, IBNM_SEVERITY_ERROR, _(c.message), _(c.hint)));
    return out;
}

std::vector<Finding> checkBonds(const std::vector<NMConnection *> &profiles, const model::Host *host)
{
    std::vector<Finding> out;
    // Index once: a port names its bond by interface name or UUID. (A loop
    // over all profiles per bond made 10,000 profiles take seconds.)
    std::map<std::string, std::vector<NMConnection *>> bondsByRef;
    for (NMConnection *b : profiles) {
        if (typeOf(b) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(b), uuid = str(nm_connection_get_uuid(b));
        if (!ifname.empty())
            bondsByRef[ifname].push_back(b);
        if (!uuid.empty() && uuid != ifname)
            bondsByRef[uuid].push_back(b);
    }
    std::map<NMConnection *, std::pair<std::vector<NMConnection *>, std::vector<NMConnection *>>> portsOf;
    std::vector<NMConnection *> orphans;
    for (NMConnection *p : profiles) {
        if (slaveTypeOf(p) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string master = masterOf(p);
        if (master.empty())
            continue;
        auto it = bondsByRef.find(master);
        if (it == bondsByRef.end()) {
            orphans.push_back(p);
            continue;
        }
        std::vector<NMConnection *> seen;
        for (NMConnection *b : it->second) {
            if (std::find(seen.begin(), seen.end(), b) != seen.end())
                continue;
            seen.push_back(b);
            if (typeOf(p) == NM_SETTING_INFINIBAND_SETTING_NAME)
                portsOf[b].first.push_back(p);
            else if (typeOf(p) == NM_SETTING_WIRED_SETTING_NAME)
                portsOf[b].second.push_back(p);
        }
    }
    for (NMConnection *bond : profiles) {
        if (typeOf(bond) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        const std::vector<NMConnection *> &ib = portsOf[bond].first;
        const std::vector<NMConnection *> &eth = portsOf[bond].second;
        if (ib.empty() && nm_connection_get_setting_infiniband(bond) == nullptr)
            continue;
        std::string mode = bondOption(bond, NM_SETTING_BOND_OPTION_MODE);
        if (mode != "active-backup" && mode != "1")
            out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                               strprintf(_("bond.options: mode %s; IPoIB ports can only join an active-backup "
                                           "bond"),
                                         mode.empty() ? "balance-rr" : mode.c_str()),
                               _("Set bond.options mode=active-backup.")));
        for (NMConnection *e : eth)
            out.push_back(make(e, "connection.master",
                               IBNM_SEVERITY_ERROR,
                               strprintf(_("connection.master: bond %s has IPoIB ports (%s); Ethernet and IPoIB "
                                           "ports cannot share a bond"),
                                         ifnameOf(bond).c_str(), ifnameOf(ib.empty() ? bond : ib[0]).c_str()),
                               _("Put the Ethernet ports into a bond of their own.")));
        std::string fom = bondOption(bond, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC);
        if (fom == "none" || fom == "0" || fom == "follow" || fom == "2")
            out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                               strprintf(_("bond.options: fail_over_mac=%s moves a MAC address to the ports, which "
                                           "IPoIB ports cannot take"),
                                         fom.c_str()),
                               _("Set bond.options fail_over_mac=active (or leave it unset: the kernel then "
                                 "chooses active for IPoIB ports).")));
        std::string bondProperty;
        guint32 bondMtu = profileMtu(bond, &bondProperty);
        if (bondMtu == 0)
            continue;
        for (NMConnection *p : ib) {
            std::string unused;
            guint32 portMtu = profileMtu(p, &unused);
            if (portMtu == 0 && host)
                if (const auto *n = host->findNetdev(ifnameOf(p)))
                    portMtu = n->mtu;
            if (portMtu != 0 && bondMtu > portMtu)
                out.push_back(make(bond, bondProperty, IBNM_SEVERITY_ERROR,
                                   strprintf(_("%s: the bond's MTU %u exceeds the MTU %u of its port %s"),
                                             bondProperty.c_str(), bondMtu, portMtu, ifnameOf(p).c_str()),
                                   strprintf(_("Set the bond's MTU to %u or less."), portMtu)));
        }
    }
    for (NMConnection *p : orphans) {
        out.push_back(make(p, "connection.master", IBNM_SEVERITY_ERROR,
                           strprintf(_("connection.master: no bond profile has the interface name or UUID '%s'"),
                                     masterOf(p).c_str()),
                           strprintf(_("Add the bond: type bond ifname %s bond.options mode=active-backup."),
                                     masterOf(p).c_str())));
    }
    return out;
}

std::vector<Finding> checkAcross(const std::vector<NMConnection *> &profiles, const model::Host *host)
{
    std::vector<Finding> out;
    std::map<std::pair<std::string, unsigned>, NMConnection *> children;
    std::set<std::string> baseProfiles; // interface names of profiles without a P_Key
    for (NMConnection *o : profiles) {
        auto *oib = nm_connection_get_setting_infiniband(o);
        if (oib && nm_setting_infiniband_get_p_key(oib) == -1)
            baseProfiles.insert(ifnameOf(o));
    }
    for (NMConnection *c : profiles) {
        auto *ib = nm_connection_get_setting_infiniband(c);
        if (ib == nullptr || nm_setting_infiniband_get_p_key(ib) == -1)
            continue;
        std::string parent = str(nm_setting_infiniband_get_parent(ib));
        if (parent.empty())
            continue;
        unsigned pkey = unsigned(nm_setting_infiniband_get_p_key(ib)) | kFullMembership;
        auto [it, inserted] = children.emplace(std::make_pair(parent, pkey), c);
        if (!inserted)
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_ERROR,
                               strprintf(_("infiniband.p-key: profile '%s' already defines the child of %s with "
                                           "P_Key 0x%04x"),
                                         idOf(it->second).c_str(), parent.c_str(), pkey),
                               _("Delete one of the two profiles, or give them different P_Keys.")));

        bool parentProfile = baseProfiles.count(parent) > 0;
        bool parentDevice = host && (host->findNetdev(parent) || host->findIpoib(parent));
        if (!parentProfile && !parentDevice)
            out.push_back(make(c, "infiniband.parent", IBNM_SEVERITY_WARNING,
                               host ? strprintf(_("infiniband.parent: '%s' has neither a profile nor a device on "
                                                  "this host"),
                                                parent.c_str())
                                    : strprintf(_("infiniband.parent: '%s' has no profile (and there is no "
                                                  "inventory to look for the device)"),
                                                parent.c_str()),
                               _("Check the parent's name, or add a profile for it.")));
    }
    return out;
}

std::vector<Finding> checkAll(const std::vector<NMConnection *> &profiles, const model::Host *host)
{
    std::vector<Finding> out;
    auto append = [&](std::vector<Finding> v) { std::move(v.begin(), v.end(), std::back_inserter(out)); };
    for (NMConnection *c : profiles) {
        append(checkNetworkManager(c));
        append(checkHost(c, host));
        append(checkOptions(c));
    }
    append(checkBonds(profiles, host));
    append(checkAcross(profiles, host));
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return out;
}

} // namespace ibnm::rules
