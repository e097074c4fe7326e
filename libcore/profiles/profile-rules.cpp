// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/profiles/profile-rules.hpp"

#include "libcore/model/host-index.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <unordered_map>
#include <cstring>
#include <map>
#include <set>
#include <optional>

namespace ibnm::rules {

namespace {

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

// `f`, involving the profiles `others`: the rule looked at them to find it.
Finding involving(Finding f, const std::vector<NMConnection *> &others)
{
    for (NMConnection *o : others) {
        std::string id = idOf(o);
        if (id != f.profileId && std::find(f.related.begin(), f.related.end(), id) == f.related.end())
            f.related.push_back(id);
    }
    return f;
}

// make(), involving `others`.
Finding make(NMConnection *c, std::string property, IbnmSeverity severity, std::string message, std::string hint,
             const std::vector<NMConnection *> &others)
{
    return involving(make(c, std::move(property), severity, std::move(message), std::move(hint)), others);
}

// The IPoIB port interface whose port GUID (the last 8 of the 20 address
// bytes, the only stable part) is that of `mac`; empty when none.
std::string netdevByMac(const model::Host *host, const char *mac)
{
    if (host == nullptr || mac == nullptr)
        return {};
    for (const auto &n : host->ipoib)
        if (n.parent.empty() && model::sameIpoibPort(n.address, mac))
            return n.name;
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

PortOnHost lookup(const model::HostIndex &host, const std::string &netdev)
{
    return {host.findNetdev(netdev), model::deviceOf(host, netdev), model::portOf(host, netdev)};
}

void checkMtu(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at, std::vector<Finding> &out)
{
    guint32 mtu = nm_setting_infiniband_get_mtu(ib);
    std::optional<unsigned> max = model::datagramMax(at.port);
    std::optional<unsigned> ceiling = model::datagramCeiling(at.port);
    if (!max)
        return;
    if (mtu != 0) {
        auto eff = model::effectiveMtu(mtu, model::IpoibMode::Datagram, at.port);
        if (!eff.ok()) {
            bool connectedOk = at.device && model::connectedModeAvailable(*at.device);
            std::string hint = connectedOk
                                   ? strprintf(_("Lower infiniband.mtu to %u or less, or use connected mode "
                                                 "(infiniband.transport-mode connected)."),
                                               ceiling.value_or(*max))
                                   : strprintf(_("Lower infiniband.mtu to %u or less (this device has no connected "
                                                 "mode)."),
                                               ceiling.value_or(*max));
            out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_ERROR,
                               "infiniband.mtu: " + eff.error().message(), hint));
            return;
        }
        if (*eff != mtu)
            out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_WARNING,
                               strprintf(_("infiniband.mtu: the kernel uses %u, not %u: the IB link and the "
                                           "partition's broadcast group allow no more (the kernel clamps "
                                           "silently)"),
                                         *eff, mtu),
                               strprintf(_("Set infiniband.mtu %u, or raise the partition's MTU in the subnet "
                                           "manager (ibnm check --opensm prints its partitions.conf line)."),
                                         *eff)));
        return;
    }
    // The automatic MTU: only the broadcast group can make it smaller than
    // the link allows.
    const model::Port *p = at.port;
    if (p->broadcastMtu && p->activeMtu && *p->broadcastMtu < *p->activeMtu && ceiling)
        out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_INFO,
                           strprintf(_("infiniband.mtu: the effective MTU is %u (the partition's broadcast group "
                                       "MTU %u - 4), less than the link allows (%u)"),
                                     *ceiling, *p->broadcastMtu, *p->activeMtu - model::kIpoibHeader)));
}

void checkTransportMode(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at,
                        std::vector<Finding> &out)
{
    if (g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "connected") != 0 || at.device == nullptr ||
        model::connectedModeAvailable(*at.device))
        return;
    std::optional<unsigned> max = model::datagramCeiling(at.port);
    std::string hint = max ? strprintf(_("Set infiniband.transport-mode datagram and infiniband.mtu %u or less."), *max)
                           : std::string(_("Set infiniband.transport-mode datagram."));
    out.push_back(make(c, "infiniband.transport-mode", IBNM_SEVERITY_ERROR,
                       "infiniband.transport-mode: " + model::connectedModeRefusal(*at.device), hint));
}

void checkPkey(NMConnection *c, NMSettingInfiniband *ib, const model::HostIndex *host, const PortOnHost &at,
               std::vector<Finding> &out)
{
    int raw = nm_setting_infiniband_get_p_key(ib);
    if (raw == -1 || !model::validatePkey(raw))
        return; // rule 1 (NetworkManager's verify) names a bad value
    uint16_t pkey = uint16_t(raw);
    std::string parent = str(nm_setting_infiniband_get_parent(ib));
    if (at.port != nullptr && !at.port->pkeys.empty()) {
        bool found = std::any_of(at.port->pkeys.begin(), at.port->pkeys.end(),
                                 [&](uint16_t e) { return model::samePartition(e, pkey); });
        if (!found)
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_WARNING,
                               strprintf(_("infiniband.p-key: 0x%04x is not in the P_Key table of %s port %u; "
                                           "the child is created but carries no traffic"),
                                         unsigned(pkey), at.device->name.c_str(), at.port->number),
                               strprintf(_("The subnet manager must add the partition 0x%04x (ibnm check --opensm "
                                           "prints its partitions.conf line)."),
                                         unsigned(pkey & ~model::kFullMembership))));
    }
    if (parent.empty()) {
        // NetworkManager finds the parent by mac-address; ibnm creates the
        // child under a parent it is told.
        out.push_back(make(c, "infiniband.parent", IBNM_SEVERITY_ERROR,
                           _("infiniband.parent: a P_Key child needs a parent interface to be created"),
                           _("Set infiniband.parent to the port's interface (e.g. ib0).")));
        return;
    }
    if (host && (host->findNetdev(parent) || host->findIpoib(parent))) {
        if (Status st = model::childCreatable(*host, parent, pkey); !st.ok()) {
            const char *property = st.error().code() == IBNM_ERROR_NOT_FOUND ? "infiniband.parent" : "infiniband.p-key";
            int e = st.error().errnum();
            std::string hint = e == ENOTUNIQ ? _("Use the parent itself for its own partition, or another P_Key.")
                               : e == EEXIST ? _("Use another P_Key, or a shorter parent name (a udev rule can "
                                                 "rename the port).")
                                             : _("Set infiniband.parent to the port's interface (e.g. ib0).");
            out.push_back(make(c, property, IBNM_SEVERITY_ERROR, std::string(property) + ": " + st.error().message(),
                               hint));
        }
    }
    auto naming = host ? host->childNaming : model::ChildNaming::Upstream;
    std::string kernelName = model::childName(parent, pkey, naming);
    std::string nmName = model::nmChildName(parent, pkey);
    if (!(pkey & model::kFullMembership)) {
        bool mismatch = kernelName != nmName && nm_connection_get_interface_name(c) == nullptr;
        uint16_t full = model::fullMembership(pkey);
        std::string message =
            host ? strprintf(_("infiniband.p-key: 0x%04x has the full-membership bit clear; the kernel uses 0x%04x "
                               "and names the child '%s' on this host"),
                             unsigned(pkey), unsigned(full), kernelName.c_str())
                 : strprintf(_("infiniband.p-key: 0x%04x has the full-membership bit clear; the kernel uses "
                               "0x%04x"),
                             unsigned(pkey), unsigned(full));
        std::string hint;
        if (mismatch)
            hint = strprintf(_("NetworkManager looks for '%s'; use p-key 0x%04x so the names agree."),
                             nmName.c_str(), unsigned(full));
        out.push_back(make(c, "infiniband.p-key", mismatch ? IBNM_SEVERITY_WARNING : IBNM_SEVERITY_INFO,
                           message, hint));
    }
    std::string untruncated = strprintf("%s.%04x", parent.c_str(), unsigned(pkey));
    if (untruncated.size() > model::kIfNameMax && nm_connection_get_interface_name(c) == nullptr)
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
         return o.linkType == model::SoftLinkType::Rxe && o.roceMode &&
                !model::roceModeSupported(o.linkType, model::LinkLayer::Ethernet, *o.roceMode);
     },
     N_("rdma.roce-mode: an rxe (Soft-RoCE) link has RoCE v2 only; the kernel refuses v1 (IB/RoCE v1) at "
        "activation"),
     N_("Set rdma.roce-mode v2, or remove it (rxe uses RoCE v2).")},
    // siw is iWARP: its GIDs are "IB/RoCE v1"-typed MAC GIDs and the kernel
    // refuses the default mode "RoCE v2" with EINVAL (platform contract:
    // SiwRefusesRoceV2, on Debian's kernel in the kernel lab).
    {"rdma.roce-mode",
     [](const userkeys::Options &o) {
         return o.linkType == model::SoftLinkType::Siw && o.roceMode &&
                !model::roceModeSupported(o.linkType, model::LinkLayer::Ethernet, *o.roceMode);
     },
     N_("rdma.roce-mode: a siw (Soft-iWARP) link is iWARP, not RoCE; the kernel refuses RoCE v2 at activation"),
     N_("Remove rdma.roce-mode: RoCE modes do not apply to iWARP.")},
};

} // namespace

std::vector<Finding> checkNetworkManager(NMConnection *profile)
{
    auto st = nmcli::verify(profile);
    if (st)
        return {};
    return {make(profile, st.error().property(), IBNM_SEVERITY_ERROR, st.error().toString())};
}

namespace {

// `index` is one of `host` (checkAll() builds it once for every profile: the
// Host's own lookups scan it, which made checking N profiles on a host of N
// interfaces quadratic).
std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host, const model::HostIndex *index)
{
    std::vector<Finding> out;
    auto *ib = nm_connection_get_setting_infiniband(profile);
    if (ib == nullptr || typeOf(profile) != NM_SETTING_INFINIBAND_SETTING_NAME)
        return out;
    std::string property;
    std::string netdev = baseNetdev(profile, ib, host, &property);
    PortOnHost at;
    bool child = nm_setting_infiniband_get_p_key(ib) != -1;
    const char *mac = nm_setting_infiniband_get_mac_address(ib);
    if (host == nullptr) {
        out.push_back(make(profile, property, IBNM_SEVERITY_INFO,
                           strprintf(_("%s: no inventory of the host; the host checks were skipped"),
                                     property.c_str())));
    } else if (netdev.empty()) {
        if (!child)
            out.push_back(make(profile, mac ? "infiniband.mac-address" : "connection.interface-name",
                               IBNM_SEVERITY_ERROR,
                               mac ? strprintf(_("infiniband.mac-address: no IPoIB interface of this host has the "
                                                 "port GUID of %s"),
                                               mac)
                                   : std::string(_("connection.interface-name: neither an interface name nor a MAC "
                                                   "address names the device"))));
    } else if (index->findIpoib(netdev) == nullptr || !index->findIpoib(netdev)->parent.empty()) {
        // The planner cannot bring up an IPoIB profile on something that is
        // not an IPoIB port's interface.
        std::string what = index->findNetdev(netdev) == nullptr
                               ? strprintf(_("%s: '%s' does not exist on this host"), property.c_str(), netdev.c_str())
                               : strprintf(_("%s: '%s' is not the interface of an IPoIB port"), property.c_str(),
                                           netdev.c_str());
        out.push_back(make(profile, property, IBNM_SEVERITY_ERROR, what,
                           child ? _("Check the parent's name (ibnm device status lists the IPoIB interfaces).")
                                 : _("Check the interface name (ibnm device status lists the IPoIB interfaces).")));
    } else {
        at = lookup(*index, netdev);
        // NetworkManager refuses a profile whose interface has another
        // port's GUID than its mac-address.
        const model::IpoibNetdev *nd = index->findIpoib(netdev);
        if (!child && mac && nm_connection_get_interface_name(profile) && !model::sameIpoibPort(nd->address, mac))
            out.push_back(make(profile, "infiniband.mac-address", IBNM_SEVERITY_ERROR,
                               strprintf(_("infiniband.mac-address: %s is not the address of %s (its port GUID is "
                                           "%s)"),
                                         mac, netdev.c_str(), model::portGuidBytes(nd->address).c_str()),
                               _("Remove the mac-address, or set the interface name of the port it names.")));
    }
    checkTransportMode(profile, ib, at, out);
    if (g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "datagram") == 0)
        checkMtu(profile, ib, at, out);
    checkPkey(profile, ib, index, at, out);
    return out;
}

} // namespace

std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host)
{
    std::optional<model::HostIndex> index;
    if (host)
        index.emplace(*host);
    return checkHost(profile, host, host ? &*index : nullptr);
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
    // Options that would be silently ignored are refused, naming the key:
    // umcast is an IPoIB interface's (/sys/class/net/<if>/umcast), and a
    // link name names the link rdma.link-type creates.
    if (options->umcast && typeOf(profile) != NM_SETTING_INFINIBAND_SETTING_NAME)
        out.push_back(make(profile, "ipoib.umcast", IBNM_SEVERITY_ERROR,
                           strprintf(_("ipoib.umcast: only an infiniband profile's interface has IPoIB multicast; "
                                       "this is a %s profile"),
                                     typeOf(profile).c_str()),
                           _("Remove ipoib.umcast, or set it on the profile of the IPoIB interface.")));
    if (options->linkName && !options->linkType)
        out.push_back(make(profile, "rdma.link-name", IBNM_SEVERITY_ERROR,
                           _("rdma.link-name: names the soft RDMA link rdma.link-type creates; without "
                             "rdma.link-type there is no link to name"),
                           _("Add rdma.link-type rxe or siw, or remove rdma.link-name.")));
    // NVIDIA's RoCE page: with RoCE disabled "there will be no GID tables"
    // (model::hasRoceEnableFile).
    if (options->roceEnable == false)
        out.push_back(make(profile, std::string(userkeys::kRoceEnable), IBNM_SEVERITY_WARNING,
                           _("rdma.roce-enable: disabling RoCE drops the RoCE GIDs of every port of the device's PCI "
                             "function; RDMA over Ethernet stops there, for every application"),
                           _("Disable RoCE only on functions that carry Ethernet traffic alone.")));
    return out;
}

std::vector<Finding> checkBonds(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    // Index once: a port names its bond by interface name or UUID. (A loop
    // over all profiles per bond made 10,000 profiles take seconds.) The
    // bond may be a profile that is not checked itself (the context).
    std::map<std::string, std::vector<NMConnection *>> bondsByRef;
    for (NMConnection *b : context ? *context : profiles) {
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
        std::string mode = model::bondModeName(bondOption(bond, NM_SETTING_BOND_OPTION_MODE));
        if (!model::ipoibBondModeSupported(mode))
            out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                               strprintf(_("bond.options: mode %s; IPoIB ports can only join an active-backup "
                                           "bond"),
                                         mode.c_str()),
                               _("Set bond.options mode=active-backup."),
                               ib));
        std::vector<NMConnection *> bondAndIb = ib;
        bondAndIb.push_back(bond);
        for (NMConnection *e : eth)
            out.push_back(make(e, "connection.master",
                               IBNM_SEVERITY_ERROR,
                               strprintf(_("connection.master: bond %s has IPoIB ports (%s); Ethernet and IPoIB "
                                           "ports cannot share a bond"),
                                         ifnameOf(bond).c_str(), ifnameOf(ib.empty() ? bond : ib[0]).c_str()),
                               _("Put the Ethernet ports into a bond of their own."),
                               bondAndIb));
        std::string fom = model::failOverMacName(bondOption(bond, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC));
        const model::Bond *onHost = host ? host->findBond(ifnameOf(bond)) : nullptr;
        bool hasPorts = onHost && !onHost->ports.empty();
        // An existing bond keeps the fail_over_mac it has (the driver does
        // not change it under its ports).
        std::string current = hasPorts ? onHost->failOverMac : fom;
        if (!ib.empty() && current != "active" &&
            (hasPorts || !bondOption(bond, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC).empty())) {
            if (model::failOverMacAfterIpoibEnslave(current, hasPorts) == "active")
                out.push_back(make(bond, "bond.options", IBNM_SEVERITY_INFO,
                                   strprintf(_("bond.options: fail_over_mac=%s: IPoIB ports cannot take a MAC "
                                               "address, so the kernel switches the bond to fail_over_mac=active "
                                               "at its first port"),
                                             fom.c_str()),
                                   {}, ib));
            else
                out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                                   strprintf(_("bond.options: bond %s has ports and fail_over_mac=%s; the kernel "
                                               "refuses further IPoIB ports"),
                                             ifnameOf(bond).c_str(), onHost->failOverMac.c_str()),
                                   _("Take the bond down so that it is created again."),
                                   ib));
        }
        std::string bondProperty;
        guint32 bondMtu = profileMtu(bond, &bondProperty);
        if (bondMtu == 0) {
            bondProperty = "bond.mtu";
            const model::Netdev *bnd = host ? host->findNetdev(ifnameOf(bond)) : nullptr;
            bondMtu = bnd ? bnd->mtu : model::kBondDefaultMtu;
        }
        for (NMConnection *p : ib) {
            // The kernel gives each port the bond's MTU at enslave.
            auto *pib = nm_connection_get_setting_infiniband(p);
            if (pib == nullptr)
                continue;
            model::IpoibMode portMode = g_strcmp0(nm_setting_infiniband_get_transport_mode(pib), "connected") == 0
                                        ? model::IpoibMode::Connected
                                        : model::IpoibMode::Datagram;
            const model::Port *port = host ? model::portOf(*host, ifnameOf(p)) : nullptr;
            auto r = model::portMtuAtEnslave(bondMtu, portMode, port);
            if (!r.ok())
                out.push_back(make(bond, bondProperty, IBNM_SEVERITY_ERROR,
                                   strprintf(_("%s: the kernel sets the bond's MTU %u on its port %s at enslave: %s"),
                                             bondProperty.c_str(), bondMtu, ifnameOf(p).c_str(),
                                             r.error().message().c_str()),
                                   strprintf(_("Lower the bond's MTU, or put %s in connected mode."),
                                             ifnameOf(p).c_str()),
                                   {p}));
            else if (guint32 portMtu = nm_setting_infiniband_get_mtu(pib); portMtu != 0 && portMtu != *r)
                out.push_back(make(p, "infiniband.mtu", IBNM_SEVERITY_INFO,
                                   strprintf(_("infiniband.mtu: the port takes its bond's MTU %u at enslave, not "
                                               "%u"),
                                             *r, portMtu),
                                   {}, {bond}));
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
    std::map<std::string, NMConnection *> childNames;        // the kernel's name of each child
    std::map<std::string, NMConnection *> bases;             // interface name of profiles without a P_Key
    std::map<std::string, NMConnection *> persistentNames;   // port GUID -> profile naming it
    std::map<std::string, NMConnection *> softLinks;         // link name -> profile
    std::map<std::pair<std::string, int>, NMConnection *> softLinkNetdevs; // (netdev, type) -> profile
    auto naming = host ? host->childNaming : model::ChildNaming::Upstream;
    for (NMConnection *o : profiles) {
        auto *oib = nm_connection_get_setting_infiniband(o);
        if (oib == nullptr || nm_setting_infiniband_get_p_key(oib) != -1 || typeOf(o) != NM_SETTING_INFINIBAND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(o);
        if (!ifname.empty())
            bases.emplace(ifname, o);
        // Persistent names (udev rules) match the port GUID of mac-address.
        const char *mac = nm_setting_infiniband_get_mac_address(oib);
        std::string guid = mac ? model::portGuidBytes(mac) : "";
        if (!guid.empty() && !ifname.empty()) {
            auto [it, inserted] = persistentNames.emplace(guid, o);
            if (!inserted && ifnameOf(it->second) != ifname)
                out.push_back(make(o, "infiniband.mac-address", IBNM_SEVERITY_ERROR,
                                   strprintf(_("infiniband.mac-address: profile '%s' names the port %s '%s'; one port "
                                               "cannot have two persistent names"),
                                             idOf(it->second).c_str(), guid.c_str(), ifnameOf(it->second).c_str()),
                                   _("Give both profiles the same interface name, or remove one mac-address."),
                                   {it->second}));
        }
    }
    // One interface, one profile: NetworkManager activates one profile per
    // device, and two would configure it twice (P_Key children are keyed by
    // parent and P_Key below).
    std::map<std::string, NMConnection *> interfaces;
    for (NMConnection *c : profiles) {
        auto *cib = nm_connection_get_setting_infiniband(c);
        if (cib && nm_setting_infiniband_get_p_key(cib) != -1 && typeOf(c) == NM_SETTING_INFINIBAND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(c);
        if (ifname.empty() && cib) // a MAC-only profile: the port with its GUID
            ifname = netdevByMac(host, nm_setting_infiniband_get_mac_address(cib));
        if (ifname.empty())
            continue;
        auto [it, inserted] = interfaces.emplace(ifname, c);
        if (!inserted)
            out.push_back(make(c, "connection.interface-name", IBNM_SEVERITY_ERROR,
                               strprintf(_("connection.interface-name: profile '%s' configures %s too; one interface "
                                           "has one active profile"),
                                         idOf(it->second).c_str(), ifname.c_str()),
                               _("Bring up one of the two profiles, or delete one."),
                               {it->second}));
    }
    for (NMConnection *c : profiles) {
        auto options = userkeys::parse(c);
        if (options && options->linkType && !ifnameOf(c).empty()) {
            std::string name = options->linkName ? *options->linkName
                                                 : model::defaultSoftLinkName(*options->linkType, ifnameOf(c));
            auto [it, inserted] = softLinks.emplace(name, c);
            auto [jt, jinserted] = softLinkNetdevs.emplace(std::make_pair(ifnameOf(c), int(*options->linkType)), c);
            if (!inserted)
                out.push_back(make(c, "rdma.link-name", IBNM_SEVERITY_ERROR,
                                   strprintf(_("rdma.link-name: profile '%s' creates the RDMA link %s too"),
                                             idOf(it->second).c_str(), name.c_str()),
                                   _("Give each profile its own rdma.link-name."),
                                   {it->second}));
            else if (!jinserted)
                out.push_back(make(c, "rdma.link-type", IBNM_SEVERITY_ERROR,
                                   strprintf(_("rdma.link-type: profile '%s' creates a %s link over %s too; the kernel "
                                               "allows one per netdev"),
                                             idOf(jt->second).c_str(), model::softLinkTypeName(*options->linkType),
                                             ifnameOf(c).c_str()),
                                   _("Keep the RDMA options in one of the two profiles."),
                                   {jt->second}));
        }
        auto *ib = nm_connection_get_setting_infiniband(c);
        if (ib == nullptr || nm_setting_infiniband_get_p_key(ib) == -1 || !model::validatePkey(nm_setting_infiniband_get_p_key(ib)))
            continue;
        std::string parent = str(nm_setting_infiniband_get_parent(ib));
        if (parent.empty())
            continue;
        uint16_t raw = uint16_t(nm_setting_infiniband_get_p_key(ib));
        unsigned pkey = model::fullMembership(raw);
        auto [it, inserted] = children.emplace(std::make_pair(parent, pkey), c);
        if (!inserted) {
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_ERROR,
                               strprintf(_("infiniband.p-key: profile '%s' already defines the child of %s with "
                                           "P_Key 0x%04x"),
                                         idOf(it->second).c_str(), parent.c_str(), pkey),
                               _("Delete one of the two profiles, or give them different P_Keys."),
                               {it->second}));
        } else {
            std::string name = model::childName(parent, raw, naming);
            auto [nt, ninserted] = childNames.emplace(name, c);
            if (!ninserted)
                out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_ERROR,
                                   strprintf(_("infiniband.p-key: the kernel names this child %s, as the child of "
                                               "profile '%s' (names are cut to 15 characters)"),
                                             name.c_str(), idOf(nt->second).c_str()),
                                   _("Use a shorter parent name (a udev rule can rename it), or another P_Key."),
                                   {nt->second}));
        }

        // With an inventory the host rules say whether the parent exists.
        if (host == nullptr && bases.count(parent) == 0)
            out.push_back(make(c, "infiniband.parent", IBNM_SEVERITY_WARNING,
                               strprintf(_("infiniband.parent: '%s' has no profile (and there is no "
                                           "inventory to look for the device)"),
                                         parent.c_str()),
                               _("Check the parent's name, or add a profile for it.")));
    }
    return out;
}

std::vector<Finding> checkRoceLag(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                  const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    auto lags = model::roceLags(host);
    if (lags.empty())
        return out;
    const auto &all = context ? *context : profiles;
    for (NMConnection *b : profiles) {
        if (typeOf(b) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(b);
        auto lag = std::find_if(lags.begin(), lags.end(), [&](const model::RoceLag &l) { return l.bond == ifname; });
        if (lag == lags.end())
            continue;
        NMSettingBond *sb = nm_connection_get_setting_bond(b);
        const char *m = sb ? nm_setting_bond_get_option_by_name(sb, NM_SETTING_BOND_OPTION_MODE) : nullptr;
        std::string mode = model::bondModeName(m ? m : "");
        // The bond's ports as the profiles name them (by interface, id or UUID).
        std::vector<std::string> ports;
        std::vector<NMConnection *> portProfiles;
        for (NMConnection *p : all) {
            if (slaveTypeOf(p) != NM_SETTING_BOND_SETTING_NAME)
                continue;
            std::string master = masterOf(p);
            if (master == ifname || master == idOf(b) || master == str(nm_connection_get_uuid(b))) {
                ports.push_back(ifnameOf(p));
                portProfiles.push_back(p);
            }
        }
        std::string why = model::roceLagBreak(*lag, mode, ports);
        if (!why.empty())
            out.push_back(make(b, NM_SETTING_BOND_SETTING_NAME "." NM_SETTING_BOND_OPTIONS, IBNM_SEVERITY_WARNING,
                               strprintf(_("bond.options: %s backs the RoCE LAG device %s; this profile leaves LAG "
                                           "mode (%s): the driver splits %s into one RDMA device per port, and its "
                                           "GIDs and RDMA settings go"),
                                         ifname.c_str(), lag->device.c_str(), why.c_str(), lag->device.c_str()),
                               _("Keep the bond in active-backup, balance-xor or 802.3ad with exactly both ports of "
                                 "the card."),
                                 portProfiles));
    }
    return out;
}

std::vector<Finding> checkPlan(const std::vector<NMConnection *> &profiles, const model::Host &host, bool standalone,
                               const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    // One index of the host for every plan below: each profile is planned
    // alone, and building the index each time made checking N profiles on
    // a host of N interfaces quadratic.
    const model::HostIndex index(host);
    const activation::ProfileIndex profileIndex(context ? *context : profiles);
    auto planFails = [&](const std::vector<NMConnection *> &selected) -> std::optional<Error> {
        auto desired = activation::resolve(selected, context ? *context : profiles, true, standalone, &profileIndex);
        if (!desired.ok())
            return std::move(desired).error();
        activation::Options options;
        options.dryRun = true;
        options.index = &index;
        auto report = activation::plan(host, *desired, options);
        if (report.ok)
            return std::nullopt;
        return report.failure;
    };
    // The profile an error names, by id (the last of that id, as before),
    // looked up in an index built at the first error: a scan of every
    // profile per failing one made checking N failing profiles quadratic.
    std::unordered_map<std::string, NMConnection *> byId;
    auto finding = [&](NMConnection *c, const Error &e) {
        if (byId.empty())
            for (NMConnection *o : profiles)
                byId[idOf(o)] = o;
        NMConnection *who = c;
        if (!e.profile().empty())
            if (auto it = byId.find(e.profile()); it != byId.end())
                who = it->second;
        std::string text = e.property().empty() ? e.message() : e.property() + ": " + e.message();
        Finding f = make(who, e.property(), IBNM_SEVERITY_ERROR, text);
        f.code = e.code();
        // The error can name another profile than the one planned (a
        // bond's Ethernet port): the planned one is involved.
        return involving(std::move(f), {c});
    };
    bool each = true;
    for (NMConnection *c : profiles) {
        if (auto e = planFails({c})) {
            out.push_back(finding(c, *e));
            each = false;
        }
    }
    if (each && profiles.size() > 1)
        if (auto e = planFails(profiles)) {
            // Each plans alone, all together do not: the profile whose
            // addition makes the plan of those before it fail is involved
            // (the shortest failing prefix, found in log2(n) plans; a
            // prefix of one plans, as each did alone).
            size_t good = 1, bad = profiles.size();
            while (bad - good > 1) {
                size_t mid = good + (bad - good) / 2;
                if (planFails(std::vector<NMConnection *>(profiles.begin(), profiles.begin() + mid)))
                    bad = mid;
                else
                    good = mid;
            }
            out.push_back(finding(profiles[bad - 1], *e));
        }
    return out;
}

std::vector<Finding> checkAll(const std::vector<NMConnection *> &profiles, const model::Host *host,
                              const std::vector<NMConnection *> *context, bool standalone)
{
    std::vector<Finding> out;
    auto append = [&](std::vector<Finding> v) { std::move(v.begin(), v.end(), std::back_inserter(out)); };
    std::optional<model::HostIndex> index;
    if (host)
        index.emplace(*host);
    for (NMConnection *c : profiles) {
        append(checkNetworkManager(c));
        append(checkHost(c, host, host ? &*index : nullptr));
        append(checkOptions(c));
    }
    append(checkBonds(profiles, host, context));
    append(checkAcross(profiles, host));
    if (host)
        append(checkRoceLag(profiles, *host, context));
    if (host) {
        // What `up` would refuse that no rule above names: the planner's
        // verdict, so that check and up --dry-run always agree. An error a
        // rule already gave for the same profile and property is not
        // repeated.
        for (auto &f : checkPlan(profiles, *host, standalone, context)) {
            bool known = std::any_of(out.begin(), out.end(), [&](const Finding &o) {
                return o.severity == IBNM_SEVERITY_ERROR && o.profileId == f.profileId &&
                       (o.property == f.property || f.property.empty());
            });
            if (!known)
                out.push_back(std::move(f));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return out;
}

} // namespace ibnm::rules
